package driver_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"testing/fstest"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestLoadSettingsResponseFormat checks that the response format kept in
// debate.md is validated when it is read, so that a hand-edited value
// never reaches a model as an unknown mode.
func TestLoadSettingsResponseFormat(t *testing.T) {
	tests := []struct {
		name, stored, want, wantErr string
	}{
		{name: "none", stored: `{"models":{}}`, want: ""},
		{name: "known", stored: `{"models":{},"response_format":"json_object"}`, want: "json_object"},
		{name: "spaces", stored: `{"models":{},"response_format":" text "}`, want: "text"},
		{name: "unknown", stored: `{"models":{},"response_format":"yaml"}`,
			wantErr: `read debate.md: field "moot": response_format: unknown mode "yaml"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := dialectic.NewHeader("demo", dialectic.Motion{Text: "This house would test"})
			if err := h.SetSetting(driver.SettingsKey, json.RawMessage(tc.stored)); err != nil {
				t.Fatal(err)
			}
			s, err := driver.LoadSettings(h.Front)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || s.ResponseFormat != tc.want {
				t.Fatalf("response format %q (%v), want %q", s.ResponseFormat, err, tc.want)
			}
		})
	}
}

// TestJudgeContextSetting: a debate.md whose settings name an unknown
// judge context is refused by the dialectic protocol, which owns the
// field, naming it, and so by a run of the debate; "full" is read as
// full, and an absent one as the focused default. Merge stores full and
// leaves the default, which it is told, absent.
func TestJudgeContextSetting(t *testing.T) {
	for _, tc := range []struct {
		name, stored string
		want         dialectic.JudgeContext
		wantErr      string
	}{
		{name: "absent", stored: `{"models":{}}`, want: dialectic.ContextFocused},
		{name: "full", stored: `{"models":{},"judge_context":"full"}`, want: dialectic.ContextFull},
		{name: "focused", stored: `{"models":{},"judge_context":"focused"}`, want: dialectic.ContextFocused},
		{name: "unknown", stored: `{"models":{},"judge_context":"most"}`, wantErr: `judge_context: "most" is not a judge context (focused or full)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := dialectic.NewHeader("demo", dialectic.Motion{Text: "This house would test"})
			if err := h.SetSetting(driver.SettingsKey, json.RawMessage(tc.stored)); err != nil {
				t.Fatal(err)
			}
			state, err := h.Render()
			if err != nil {
				t.Fatal(err)
			}
			_, err = dialectic.Protocol{}.Load(fstest.MapFS{sm.StateFile: {Data: state}, dialectic.ScoresFile: {Data: []byte("{}\n")}})
			c, cerr := dialectic.JudgeContextOf(h)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), `field "moot"`) {
					t.Errorf("Load: %v, want an error naming %q", err, tc.wantErr)
				}
				if cerr == nil || !strings.Contains(cerr.Error(), tc.wantErr) {
					t.Errorf("JudgeContextOf: %v, want an error naming %q", cerr, tc.wantErr)
				}
				return
			}
			if err != nil || cerr != nil || c != tc.want {
				t.Fatalf("context %q (%v, %v), want %q", c, err, cerr, tc.want)
			}
		})
	}
	var s driver.Settings
	def := string(dialectic.ContextFocused)
	full, lines := s.Merge(driver.Overrides{JudgeContext: string(dialectic.ContextFull), JudgeContextDefault: def}, "m", []string{"judge"})
	if full.JudgeContext != "full" || len(lines) != 1 || lines[0] != "judge context changes from focused to full" {
		t.Errorf("merge full: %q, %q", full.JudgeContext, lines)
	}
	back, lines := full.Merge(driver.Overrides{JudgeContext: string(dialectic.ContextFocused), JudgeContextDefault: def}, "m", []string{"judge"})
	if back.JudgeContext != "" || len(lines) != 1 {
		t.Errorf("merge focused: %q, %q", back.JudgeContext, lines)
	}
	if kept, lines := full.Merge(driver.Overrides{JudgeContextDefault: def}, "m", []string{"judge"}); kept.JudgeContext != "full" || len(lines) != 0 {
		t.Errorf("merge without the flag: %q, %q", kept.JudgeContext, lines)
	}
}

// TestSeedState: the models given are stored under "moot"; a model the
// state already names for a role they do not set (a forum cast's judge)
// is kept, one they set is replaced.
func TestSeedState(t *testing.T) {
	tests := []struct {
		name, front string
		want        map[string]string
	}{
		{name: "no models yet", front: `"protocol": "x"`, want: map[string]string{"for": "a", "against": "b"}},
		{name: "a judge kept, a debater replaced", front: `"protocol": "x", "moot": {"models": {"judge": "j", "for": "cast"}}`,
			want: map[string]string{"for": "a", "against": "b", "judge": "j"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := driver.SeedState([]byte("{\n"+tc.front+"\n}\n\n# Topic\n"), map[string]string{"for": "a", "against": "b"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			front, body, err := frontmatter.Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Moot struct {
					Models map[string]string `json:"models"`
				} `json:"moot"`
			}
			if err := front.Decode("moot", &got.Moot); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got.Moot.Models, tc.want) {
				t.Errorf("models %v, want %v", got.Moot.Models, tc.want)
			}
			if strings.TrimSpace(body) != "# Topic" {
				t.Errorf("body %q", body)
			}
		})
	}
}
