package moderated

import (
	"errors"
	"fmt"
	"testing"
)

// TestMemo: the same bytes in the same format are decoded once, what
// they gave (an error included) coming back each time; other bytes or
// another format are decoded anew, so an edited file is read as it now
// is; past memoLimit files the memo starts again.
func TestMemo(t *testing.T) {
	var m memo[int]
	decodes := 0
	read := func(f, data string) (int, string, error) {
		return m.read(f, []byte(data), func() (int, string, error) {
			decodes++
			if data == "bad" {
				return 0, "", errors.New("bad file")
			}
			return len(data), "body of " + data, nil
		})
	}
	for _, c := range []struct {
		f, data string
		decodes int
	}{{"md", "abc", 1}, {"md", "abc", 1}, {"md", "abcd", 2}, {"txt", "abc", 3}, {"md", "bad", 4}, {"md", "bad", 4}, {"md", "abc", 4}} {
		n, body, err := read(c.f, c.data)
		if c.data == "bad" {
			if err == nil || err.Error() != "bad file" {
				t.Errorf("%s %q: err = %v, want bad file", c.f, c.data, err)
			}
		} else if n != len(c.data) || body != "body of "+c.data || err != nil {
			t.Errorf("%s %q read as %d, %q, %v", c.f, c.data, n, body, err)
		}
		if decodes != c.decodes {
			t.Errorf("%s %q: %d decodes so far, want %d", c.f, c.data, decodes, c.decodes)
		}
	}
	for i := 0; i < memoLimit; i++ {
		read("md", fmt.Sprint(i))
	}
	if m.n > memoLimit {
		t.Errorf("memo holds %d files, more than %d", m.n, memoLimit)
	}
	before := decodes
	read("md", "abc")
	if decodes != before+1 {
		t.Errorf("a file read before the memo started again was not decoded again")
	}
}
