package driver_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

func TestCacheMarksFor(t *testing.T) {
	for _, tc := range []struct {
		marks driver.CacheMarks
		model string
		want  bool
	}{
		{driver.CacheAuto, "anthropic/claude-sonnet-4.5", true},
		{driver.CacheAuto, "Anthropic/Claude-Opus-4.5", true},
		{driver.CacheAuto, "google/gemini-2.5-pro", true},
		{driver.CacheAuto, "google/gemma-3-27b-it", false},
		{driver.CacheAuto, "gpt-4o-mini", false},
		{driver.CacheAuto, "deepseek/deepseek-chat", false},
		{driver.CacheAuto, "claude-sonnet-4-5", false},
		{driver.CacheOn, "gpt-4o-mini", true},
		{driver.CacheOff, "anthropic/claude-sonnet-4.5", false},
	} {
		t.Run(string(tc.marks)+"/"+tc.model, func(t *testing.T) {
			if got := tc.marks.For(tc.model); got != tc.want {
				t.Errorf("%s.For(%q) = %v, want %v", tc.marks, tc.model, got, tc.want)
			}
		})
	}
	for _, s := range []string{"", "auto", "on", "off"} {
		if _, err := driver.ParseCacheMarks(s); err != nil {
			t.Errorf("ParseCacheMarks(%q): %v", s, err)
		}
	}
	if _, err := driver.ParseCacheMarks("yes"); err == nil || !strings.Contains(err.Error(), "auto, on or off") {
		t.Errorf("ParseCacheMarks(\"yes\") = %v, want an error naming the values", err)
	}
}

// cacheControls counts the parts marked cache_control in each message of a
// request as sent.
func cacheControls(t *testing.T, body []byte) []int {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(req.Messages))
	for i, m := range req.Messages {
		var parts []struct {
			CacheControl *struct {
				Type string `json:"type"`
			} `json:"cache_control"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if p.CacheControl != nil && p.CacheControl.Type == "ephemeral" {
				out[i]++
			}
		}
	}
	return out
}

// TestCacheMarksOfARun runs three exchanges under each setting: the calls
// to a model that needs marks carry them (two a debater from its first
// rebuttal, one a judge), the others none; the debate's files are the
// same whatever the marks; the cache writes the server reports are
// logged; a setting other than the default is kept in debate.md.
func TestCacheMarksOfARun(t *testing.T) {
	type run struct {
		files  map[string]string
		marked map[string][]int // the marks of each role's calls
		usage  string
		header string
	}
	do := func(t *testing.T, modelID string, marks driver.CacheMarks) run {
		dir := newDebate(t, t.TempDir(), 0, false)
		fake := sparring.Handler(sparring.Options{})
		srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
			r := fake(req)
			r.CacheWriteTokens = 7
			return r
		})
		opts := options(client(t, srv))
		opts.DefaultModel = modelID
		opts.Overrides.CacheMarks = marks
		d := openDir(t, dir)
		if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, opts); err != nil {
			t.Fatal(err)
		}
		out := run{marked: map[string][]int{}}
		for _, req := range srv.Requests() {
			n := 0
			for _, c := range cacheControls(t, req.Body) {
				n += c
			}
			role := string(modeltest.RoleOf(req))
			out.marked[role] = append(out.marked[role], n)
		}
		out.files = runSnapshot(t, d)
		b, err := os.ReadFile(filepath.Join(dir, ".moot", driver.UsageFile))
		if err != nil {
			t.Fatal(err)
		}
		out.usage = string(b)
		out.header = out.files[sm.StateFile]
		return out
	}
	off := do(t, "anthropic/claude-sonnet-4.5", driver.CacheOff)
	for _, tc := range []struct {
		name  string
		model string
		marks driver.CacheMarks
		want  bool
	}{
		{"an Anthropic model by default", "anthropic/claude-sonnet-4.5", "", true},
		{"an OpenAI model by default", "gpt-4o-mini", "", false},
		{"any model with marks on", "fake-model", driver.CacheOn, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, tc.model, tc.marks)
			for role, counts := range r.marked {
				for i, n := range counts {
					want := 0
					switch {
					case !tc.want:
					case i > 0:
						want = 2 // what the last call cached, what the next reads
					default:
						want = 1 // the first call of a role marks the motion
					}
					if n != want {
						t.Errorf("the %s's call %d carries %d marks, want %d", role, i, n, want)
					}
				}
			}
			same := maps.Clone(r.files)
			delete(same, sm.StateFile)
			want := maps.Clone(off.files)
			delete(want, sm.StateFile)
			for name := range want {
				if !strings.HasPrefix(name, ".moot") && want[name] != same[name] {
					t.Errorf("%s differs from the run without marks", name)
				}
			}
			if strings.Count(r.usage, `"cache_write_tokens":7`) != strings.Count(r.usage, "\n") {
				t.Errorf("usage.jsonl does not log every call's cache writes:\n%s", r.usage)
			}
			stored := strings.Contains(r.header, `"cache_marks"`)
			if stored != (tc.marks == driver.CacheOn) {
				t.Errorf("debate.md keeps cache_marks: %v, want %v", stored, tc.marks == driver.CacheOn)
			}
		})
	}
	if !strings.Contains(off.header, `"cache_marks": "off"`) {
		t.Errorf("debate.md does not keep cache marks off")
	}
}
