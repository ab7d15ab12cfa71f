package driver

import (
	"slices"
	"testing"
)

// TestRetryOpen: a --retry-missing pass asks every gap but those it has
// asked already, and none once it has asked them all, whatever gaps the
// debate records by then.
func TestRetryOpen(t *testing.T) {
	gaps := []string{"006-score/judge-b", "010-score/judge-b", "012-score/judge"}
	for _, tc := range []struct {
		name string
		rec  retryRecord
		want []string
	}{
		{"no pass yet", retryRecord{}, gaps},
		{"one asked", retryRecord{Asked: []string{"006-score/judge-b"}}, gaps[1:]},
		{"asked in another order", retryRecord{Asked: []string{"012-score/judge", "006-score/judge-b"}}, gaps[1:2]},
		{"a gap asked that is filled", retryRecord{Asked: []string{"001-score/judge"}}, gaps},
		{"all asked", retryRecord{Asked: gaps}, nil},
		{"done", retryRecord{Done: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rec.open(gaps); !slices.Equal(got, tc.want) {
				t.Errorf("open = %q, want %q", got, tc.want)
			}
		})
	}
}
