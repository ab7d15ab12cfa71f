package statemachine_test

import (
	"strings"
	"testing"
	"testing/fstest"

	sm "github.com/moot-dev/moot/statemachine"
)

func TestJudgeName(t *testing.T) {
	for _, tt := range []struct {
		model string
		taken []string
		want  string
	}{
		{"gpt-4o", nil, "gpt-4o"},
		{"openai/gpt-4o", nil, "gpt-4o"},
		{"meta-llama/Llama-3.1-70B-Instruct", nil, "llama-3.1-70b-instruct"},
		{"qwen2.5:7b", nil, "qwen2.5-7b"},
		{"gpt-4o", []string{"gpt-4o"}, "gpt-4o-2"},
		{"gpt-4o", []string{"gpt-4o", "gpt-4o-2"}, "gpt-4o-3"},
		{"///", nil, "judge"},
		{strings.Repeat("x", 100), nil, strings.Repeat("x", 56)},
	} {
		t.Run(tt.model, func(t *testing.T) {
			got := sm.JudgeName(tt.model, tt.taken)
			if got != tt.want {
				t.Errorf("JudgeName(%q, %v) = %q, want %q", tt.model, tt.taken, got, tt.want)
			}
			if err := sm.CheckJudgeName(got); err != nil {
				t.Errorf("the name made is refused: %v", err)
			}
		})
	}
}

func TestNewPanel(t *testing.T) {
	p, err := sm.NewPanel([]string{"gpt-4o", " openai/gpt-4o ", "llama3"})
	if err != nil {
		t.Fatal(err)
	}
	want := []sm.Judge{{Name: "gpt-4o", Model: "gpt-4o"}, {Name: "gpt-4o-2", Model: "openai/gpt-4o"}, {Name: "llama3", Model: "llama3"}}
	for i := range want {
		if p[i] != want[i] {
			t.Errorf("judge %d = %+v, want %+v", i, p[i], want[i])
		}
	}
	for _, bad := range [][]string{{"one"}, {"a", ""}, nil} {
		if _, err := sm.NewPanel(bad); err == nil {
			t.Errorf("NewPanel(%q) accepted", bad)
		}
	}
}

func TestReadPanel(t *testing.T) {
	for _, tt := range []struct {
		name, state, err string
		judges           int
	}{
		{"none", "{\n\"x\": 1\n}\n", "", 0},
		{"two", "{\n\"judges\": [{\"name\": \"a\", \"model\": \"m\"}, {\"name\": \"b\", \"model\": \"m\"}]\n}\n", "", 2},
		{"one", "{\n\"judges\": [{\"name\": \"a\", \"model\": \"m\"}]\n}\n", "at least two", 0},
		{"same names", "{\n\"judges\": [{\"name\": \"a\", \"model\": \"m\"}, {\"name\": \"a\", \"model\": \"n\"}]\n}\n", "two judges are named", 0},
		{"bad name", "{\n\"judges\": [{\"name\": \"../x\", \"model\": \"m\"}, {\"name\": \"b\", \"model\": \"m\"}]\n}\n", "may hold only", 0},
		{"no model", "{\n\"judges\": [{\"name\": \"a\", \"model\": \" \"}, {\"name\": \"b\", \"model\": \"m\"}]\n}\n", "has no model", 0},
		{"not a list", "{\n\"judges\": \"a,b\"\n}\n", "field \"judges\"", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := sm.ReadPanel([]byte(tt.state))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || len(p) != tt.judges {
				t.Fatalf("ReadPanel = %v, %v; want %d judges", p, err, tt.judges)
			}
		})
	}
}

func TestReadJudgeRecords(t *testing.T) {
	files := fstest.MapFS{
		"judgments/b/judge.json":      {Data: []byte(`{"name": "b", "model": "m", "kind": "rejudge", "from": 0, "created": "x"}`)},
		"judgments/a/judge.json":      {Data: []byte(`{"name": "a", "model": "m", "kind": "panel", "from": 2, "created": "x"}`)},
		"judgments/empty/scores.json": {Data: []byte(`{}`)},
	}
	recs, err := sm.ReadJudgeRecords(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Name != "a" || recs[1].Name != "b" || recs[0].From != 2 {
		t.Fatalf("records %+v, want a and b in name order (a folder without a record is skipped)", recs)
	}
	for name, data := range map[string]string{
		"other name": `{"name": "c", "model": "m", "kind": "panel"}`,
		"kind":       `{"name": "a", "model": "m", "kind": "guess"}`,
		"no model":   `{"name": "a", "model": "", "kind": "panel"}`,
		"not json":   `{`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sm.ReadJudgeRecords(fstest.MapFS{"judgments/a/judge.json": {Data: []byte(data)}})
			if err == nil || !strings.Contains(err.Error(), "judgments/a/judge.json") {
				t.Errorf("err = %v, want one naming judgments/a/judge.json", err)
			}
		})
	}
	if recs, err := sm.ReadJudgeRecords(fstest.MapFS{}); err != nil || recs != nil {
		t.Errorf("a debate without judgments/: %v, %v", recs, err)
	}
}
