package termwidth

import "testing"

func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"moot", 4},
		{"討論", 4},
		{"café", 4},
		{"cafe\u0301", 4},
		{"🙂", 2},
		{"👍🏽", 2},
		{"🇫🇷", 2},
		{"a討b", 4},
	} {
		t.Run(tc.s, func(t *testing.T) {
			if got := Width(tc.s); got != tc.want {
				t.Errorf("Width(%q) = %d, want %d", tc.s, got, tc.want)
			}
		})
	}
}

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  string
	}{
		{"moot", 4, "moot"},
		{"moot", 3, "mo…"},
		{"討論會議", 8, "討論會議"},
		// A wide character that would reach past the last column is left
		// out whole, not cut in half.
		{"討論會議", 7, "討論會…"},
		{"討論會議", 6, "討論…"},
		{"🙂🙂🙂", 4, "🙂…"},
		// A character of several runes is kept or dropped whole.
		{"ab👍🏽cd", 4, "ab…"},
		{"ab👍🏽cd", 5, "ab👍🏽…"},
		{"cafe\u0301 noir", 5, "cafe\u0301…"},
		{"anything", 0, ""},
		{"anything", 1, "…"},
	} {
		t.Run(tc.s, func(t *testing.T) {
			got := Fit(tc.s, tc.width)
			if got != tc.want {
				t.Errorf("Fit(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
			}
			if Width(got) > tc.width {
				t.Errorf("Fit(%q, %d) = %q takes %d columns", tc.s, tc.width, got, Width(got))
			}
		})
	}
}

func TestPad(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  string
	}{
		{"ab", 4, "ab  "},
		{"討", 4, "討  "},
		{"🙂", 3, "🙂 "},
		{"討論會", 4, "討論會"},
	} {
		t.Run(tc.s, func(t *testing.T) {
			if got := Pad(tc.s, tc.width); got != tc.want {
				t.Errorf("Pad(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
			}
		})
	}
}
