package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestReadInputFolder: a folder given by name reads its regular files with
// the suffix, passes over the rest, and refuses files that together
// exceed the limit, naming the file that went past it.
func TestReadInputFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "alpha")
	write("b.md", "bravo")
	write("c.txt", "not read")
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		limit int64
		want  map[string]string
		fails bool
	}{
		{"within the limit", 100, map[string]string{"a.md": "alpha", "b.md": "bravo"}, false},
		{"exactly the limit", 10, map[string]string{"a.md": "alpha", "b.md": "bravo"}, false},
		{"over the limit together", 9, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadInputFolder(dir, ".md", tc.limit)
			if tc.fails {
				var se *SizeError
				if !errors.As(err, &se) || !se.Total || !strings.Contains(err.Error(), "b.md") {
					t.Fatalf("got %v, want a size error of the files together naming b.md", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("read %d files, want %d: %v", len(got), len(tc.want), got)
			}
			for k, v := range tc.want {
				if string(got[k]) != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
	if _, err := ReadInputFolder(filepath.Join(dir, "missing"), ".md", 100); err == nil {
		t.Error("a missing folder read without an error")
	}
}
