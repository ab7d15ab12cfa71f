package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.txt")
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr func(error) bool
	}{
		{"a small file", small, "hello", nil},
		{"a file over the limit", big, "", func(err error) bool {
			var se *SizeError
			return errors.As(err, &se) && se.Limit == 10 && se.Name == big && !se.Total
		}},
		{"a missing file", filepath.Join(dir, "none"), "", func(err error) bool { return errors.Is(err, os.ErrNotExist) }},
		{"a directory", dir, "", func(err error) bool { return err != nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadInput(tt.path, 10)
			if tt.wantErr == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("ReadInput = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !tt.wantErr(err) {
				t.Fatalf("ReadInput error = %v, not the one wanted", err)
			}
		})
	}
}
