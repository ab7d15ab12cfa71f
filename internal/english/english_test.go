package english

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "exchange", "0 exchanges"},
		{1, "exchange", "1 exchange"},
		{2, "exchange", "2 exchanges"},
		{1, "model call", "1 model call"},
		{9, "model call", "9 model calls"},
		{1, "problem", "1 problem"},
		{4, "problem", "4 problems"},
		{2, "match", "2 matches"},
		{2, "reply", "2 replies"},
		{2, "day", "2 days"},
		{-1, "point", "-1 point"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := Count(tc.n, tc.noun); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
			}
		})
	}
}

func TestA(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"opposition argument", "an opposition argument"},
		{"proposition argument", "a proposition argument"},
		{"exchange", "an exchange"},
		{"judgment", "a judgment"},
		{"", "a "},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := A(tc.in); got != tc.want {
				t.Errorf("A(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"trio"}, "trio"},
		{[]string{"trio", "moderated"}, "trio and moderated"},
		{[]string{"trio", "moderated", "forum"}, "trio, moderated and forum"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := List(tc.items, "and"); got != tc.want {
				t.Errorf("List(%q) = %q, want %q", tc.items, got, tc.want)
			}
		})
	}
}
