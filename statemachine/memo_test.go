package statemachine

import (
	"errors"
	"fmt"
	"testing"
)

// TestMemo: the same bytes of the same kind are decoded once, what they
// gave (an error included) coming back each time; other bytes or another
// kind are decoded anew, so an edited file is read as it now is; past
// MemoLimit files, or MemoBytes bytes, the memo starts again.
func TestMemo(t *testing.T) {
	var m Memo[string]
	decodes := 0
	read := func(kind, data string) (string, error) {
		return m.Read(kind, []byte(data), func() (string, error) {
			decodes++
			if data == "bad" {
				return "", errors.New("bad file")
			}
			return "record of " + data, nil
		})
	}
	for _, c := range []struct {
		kind, data string
		decodes    int
	}{{"md", "abc", 1}, {"md", "abc", 1}, {"md", "abcd", 2}, {"txt", "abc", 3}, {"md", "bad", 4}, {"md", "bad", 4}, {"md", "abc", 4}} {
		rec, err := read(c.kind, c.data)
		if c.data == "bad" {
			if err == nil || err.Error() != "bad file" {
				t.Errorf("%s %q: err = %v, want bad file", c.kind, c.data, err)
			}
		} else if rec != "record of "+c.data || err != nil {
			t.Errorf("%s %q read as %q, %v", c.kind, c.data, rec, err)
		}
		if decodes != c.decodes {
			t.Errorf("%s %q: %d decodes so far, want %d", c.kind, c.data, decodes, c.decodes)
		}
	}
	for i := 0; i < MemoLimit; i++ {
		read("md", fmt.Sprint(i))
	}
	if m.n > MemoLimit {
		t.Errorf("memo holds %d files, more than %d", m.n, MemoLimit)
	}
	before := decodes
	read("md", "abc")
	if decodes != before+1 {
		t.Errorf("a file read before the memo started again was not decoded again")
	}
	big := string(make([]byte, MemoBytes/2))
	read("md", big+"1")
	read("md", big+"2")
	if m.bytes > MemoBytes {
		t.Errorf("memo holds %d bytes, more than %d", m.bytes, MemoBytes)
	}
	before = decodes
	read("md", "abc")
	if decodes != before+1 {
		t.Errorf("a file read before the memo passed its bytes was not decoded again")
	}
}
