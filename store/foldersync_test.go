package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestFolderSynced(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"synced", nil, nil},
		{"cannot sync a folder: EINVAL", &fs.PathError{Op: "sync", Path: "d", Err: syscall.EINVAL}, nil},
		{"cannot sync a folder: ENOTSUP", fmt.Errorf("sync: %w", syscall.ENOTSUP), nil},
		{"unsupported", errors.ErrUnsupported, nil},
		{"a real failure stays one", &fs.PathError{Op: "sync", Path: "d", Err: syscall.EIO}, syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := folderSynced(tc.err)
			if (got == nil) != (tc.want == nil) || (tc.want != nil && !errors.Is(got, tc.want)) {
				t.Errorf("folderSynced(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
