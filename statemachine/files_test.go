package statemachine_test

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

func TestFileNames(t *testing.T) {
	files := fstest.MapFS{
		"rounds/r02.md":        {Data: []byte("b")},
		"rounds/r01.md":        {Data: []byte("a")},
		"rounds/notes.txt":     {Data: []byte("c")},
		"rounds/sub/r03.md":    {Data: []byte("d")},
		"empty":                {Mode: fs.ModeDir},
		"debate.md":            {Data: []byte("{}")},
		"only-folders/a/b.md":  {Data: []byte("e")},
		"only-folders/c/d.txt": {Data: []byte("f")},
	}
	tests := []struct {
		name, dir string
		want      []string
		err       string
	}{
		{name: "sorted regular files, folders left out", dir: "rounds", want: []string{"notes.txt", "r01.md", "r02.md"}},
		{name: "missing folder lists none", dir: "messages"},
		{name: "empty folder lists none", dir: "empty"},
		{name: "folder of folders lists none", dir: "only-folders"},
		{name: "a file is not a folder", dir: "debate.md", err: "read debate.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sm.FileNames(files, tt.dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("FileNames(%q) error = %v, want one containing %q", tt.dir, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("FileNames(%q): %v", tt.dir, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FileNames(%q) = %q, want %q", tt.dir, got, tt.want)
			}
		})
	}
}

// TestRequireKeys: a state file that lacks a protocol's own fields is
// said to be another's, with the fields named; one that has them passes.
func TestRequireKeys(t *testing.T) {
	read := func(s string) frontmatter.Object {
		front, _, err := frontmatter.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return front
	}
	if err := sm.RequireKeys(read(`{"protocol": "forum", "turns": 6}`+"\n"), "forum", "turns"); err != nil {
		t.Errorf("a forum state: %v", err)
	}
	err := sm.RequireKeys(read(`{"protocol": "moderated", "turns": 6}`+"\n"), "moderated", "round_count", "participants")
	want := `debate.md names protocol "moderated" but lacks its fields "round_count", "participants": the files are not a moderated debate's`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
