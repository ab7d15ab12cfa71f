package protocoltest_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
)

func TestUnder(t *testing.T) {
	files := map[string]string{
		"messages/":           "",
		"messages/002_b.md":   "b",
		"messages/001_a.md":   "a",
		"messages/sub/":       "",
		"messages/sub/x.md":   "x",
		"scores/001_a.md":     "s",
		"debate.md":           "d",
		"messages-not/003.md": "n",
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"messages/", []string{"001_a.md", "002_b.md", "sub/x.md"}},
		{"scores/", []string{"001_a.md"}},
		{"rounds/", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			if got := protocoltest.Under(files, tt.prefix); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Under(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
		})
	}
}

func TestStopAtHoldsOnlyItsRequest(t *testing.T) {
	stopped := 0
	h, asked := protocoltest.StopAt(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: "ok"}
	}, 2, func() { stopped++ })
	for i, want := range []modeltest.Reply{{Content: "ok"}, {Delay: time.Minute}, {Content: "ok"}} {
		if got := h(modeltest.Request{}); !reflect.DeepEqual(got, want) {
			t.Errorf("request %d: %+v, want %+v", i+1, got, want)
		}
	}
	if stopped != 1 || asked() != 3 {
		t.Errorf("at called %d times and %d requests counted, want 1 and 3", stopped, asked())
	}
}
