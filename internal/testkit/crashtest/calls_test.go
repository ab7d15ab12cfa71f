package crashtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/trio"
)

// TestTrioKilledAtEveryCall: trio, whose speakers are asked in parallel,
// killed while each of its calls is in flight and run again, ends as a
// run never killed, and asks again only what was in flight. Its six kills
// take a second or two, so the quick run keeps it, as a check of the
// harness.
func TestTrioKilledAtEveryCall(t *testing.T) {
	self, env := Self(t)
	KillAtEveryCall(t, CallKills{
		Bin: self, Env: env,
		New: []string{"--protocol", "trio", "--motion", "Three is a crowd.", "--rounds", "2"},
		Model: func(req modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Content: trio.Fake(req.Messages[0].Content, req.Messages[1].Content)}
		},
		Requests: 6,
	})
}

// TestCompareAsked: the harness's count of requests tells a request asked
// again after its answer came from one that was in flight.
func TestCompareAsked(t *testing.T) {
	ref := []string{"plan-a", "plan-b", "score"}
	for _, tc := range []struct {
		name                    string
		answered, held, resumed []string
		want                    []string // words each problem must hold, in order
	}{
		{"the one in flight asked again", []string{"plan-a"}, []string{"plan-b"}, []string{"plan-b", "score"}, nil},
		{"both parallel calls in flight", nil, []string{"plan-b", "plan-a"}, []string{"plan-a", "plan-b", "score"}, nil},
		{"an answered request asked again", []string{"plan-a"}, []string{"plan-b"}, []string{"plan-a", "plan-b", "score"}, []string{"asked again though answered"}},
		{"one in flight never asked again", []string{"plan-a", "plan-b"}, []string{"score"}, nil, []string{"never answered", "in flight at the kill but not asked again"}},
		{"a request the reference never made", []string{"plan-a"}, []string{"plan-b"}, []string{"plan-b", "other", "score"}, []string{"the uninterrupted run never asked it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compareAsked(ref, tc.answered, tc.held, tc.resumed)
			slices.Sort(got)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d", got, len(tc.want))
			}
			want := slices.Clone(tc.want)
			slices.Sort(want)
			for i := range got {
				if !strings.Contains(got[i], want[i]) {
					t.Errorf("problem %q does not say %q", got[i], want[i])
				}
			}
		})
	}
}

// TestStops: without Repeated every request is killed at; with it, every
// request it names no kind for, and of each kind it names only the first
// and the last request.
func TestStops(t *testing.T) {
	t.Setenv(SampleEnv, "") // every stop, as CI kills at
	reqs := func(models ...string) []modeltest.Request {
		var rs []modeltest.Request
		for _, m := range models {
			rs = append(rs, modeltest.Request{Model: m})
		}
		return rs
	}
	byModel := func(req modeltest.Request) string {
		if req.Model == "judge" {
			return ""
		}
		return req.Model
	}
	for _, tc := range []struct {
		name     string
		repeated func(modeltest.Request) string
		models   []string
		want     []int
	}{
		{"every request", nil, []string{"a", "b", "a", "a", "judge"}, []int{1, 2, 3, 4, 5}},
		{"first and last of each kind", byModel, []string{"a", "b", "a", "judge", "a", "b", "judge", "a", "b"}, []int{1, 2, 4, 7, 8, 9}},
		{"a kind asked once", byModel, []string{"a", "judge", "judge"}, []int{1, 2, 3}},
		{"none of a kind", byModel, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CallKills{Repeated: tc.repeated}.stops(reqs(tc.models...))
			if !slices.Equal(got, tc.want) {
				t.Errorf("stops %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSample: the sample the README's test command kills at keeps the
// first, the middle and the last request, and the first and the last of
// each kind, in order; and the same stops give the same sample.
func TestSample(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kinds string // the kind of each stop, stops numbered from 1
		want  []int
	}{
		{"one kind", "aaaaaaaaa", []int{1, 5, 9}},
		{"each kind's first and last", "abababababcc", []int{1, 2, 6, 9, 10, 11, 12}},
		{"a kind asked once, in the middle", "aaaaxaaaa", []int{1, 5, 9}},
		{"a kind asked once, elsewhere", "aaxaaaaaa", []int{1, 3, 5, 9}},
		{"two stops", "ab", []int{1, 2}},
		{"none", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stops []int
			for i := range tc.kinds {
				stops = append(stops, i+1)
			}
			kind := func(k int) string { return tc.kinds[k-1 : k] }
			got := sample(stops, kind)
			if !slices.Equal(got, tc.want) {
				t.Errorf("sample %v, want %v", got, tc.want)
			}
			if again := sample(stops, kind); !slices.Equal(again, got) {
				t.Errorf("a second sample %v, the first %v", again, got)
			}
		})
	}
}

// TestSampleOfRepeated: with SampleEnv set, the sample is taken of the
// stops Repeated leaves, by the step kind of each request.
func TestSampleOfRepeated(t *testing.T) {
	t.Setenv(SampleEnv, "1")
	var reqs []modeltest.Request
	for _, m := range strings.Split("a b a judge a b judge a b a a", " ") {
		reqs = append(reqs, modeltest.Request{Model: m, Path: "/v1/chat/completions"})
	}
	repeated := func(req modeltest.Request) string {
		if req.Model == "b" {
			return "b"
		}
		return ""
	}
	// Repeated leaves 1 2 3 4 5 7 8 9 10 11: a at 1 3 5 8 10 11, b at 2 and
	// 9, the judge at 4 and 7; the middle of the ten is 5.
	if got, want := (CallKills{Repeated: repeated}).stops(reqs), []int{1, 2, 4, 5, 7, 9, 11}; !slices.Equal(got, want) {
		t.Errorf("stops %v, want %v", got, want)
	}
}
