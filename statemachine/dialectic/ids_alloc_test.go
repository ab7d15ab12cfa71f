package dialectic

import (
	"fmt"
	"testing"
)

// TestIDStringSpelling checks ID.String against the spelling the file
// format gives ids (side, "_", at least three digits, the opening's letter)
// over a range of exchanges, including ones wider than three digits.
func TestIDStringSpelling(t *testing.T) {
	for _, side := range Sides() {
		for _, ex := range []int{-12, -1, 0, 1, 9, 10, 99, 100, 999, 1000, 12345, 123456} {
			for _, letter := range []byte{0, 'a', 'b', 'c'} {
				id := ID{Side: side, Exchange: ex, Letter: letter}
				want := fmt.Sprintf("%s_%03d", side, ex)
				if Opening(ex) {
					want = fmt.Sprintf("%s_%03d%c", side, ex, letter)
				}
				t.Run(want, func(t *testing.T) {
					if got := id.String(); got != want {
						t.Errorf("ID%+v.String() = %q, want %q", id, got, want)
					}
				})
			}
		}
	}
}

// TestParseIDDoesNotAllocate checks that parsing a valid id allocates
// nothing: every read of a debate parses each id several times (loading,
// sorting, checking), and status and every step pay for it at start-up.
func TestParseIDDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"prop_000a", "opp_000c", "prop_001", "opp_12345"} {
		t.Run(s, func(t *testing.T) {
			if _, err := ParseID(s); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(100, func() { ParseID(s) }); n != 0 {
				t.Errorf("ParseID(%q) allocates %v times, want 0", s, n)
			}
		})
	}
}
