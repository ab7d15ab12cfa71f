package refine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fencetest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
	"github.com/moot-dev/moot/templates"
)

type stateFront struct {
	Round int          `json:"current_round"`
	Phase string       `json:"current_phase"`
	Stop  *refine.Stop `json:"stop"`
}

func readState(t *testing.T, fs map[string]string) stateFront {
	t.Helper()
	text := fs["debate.md"]
	end := strings.Index(text, "\n}\n")
	var st stateFront
	if err := json.Unmarshal([]byte(text[:end+2]), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func readCritique(t *testing.T, fs map[string]string, r int) map[string]any {
	t.Helper()
	text, ok := fs[filepath.ToSlash(filepath.Join("rounds", "r0"+string(rune('0'+r))+"-critique.md"))]
	if !ok {
		t.Fatalf("no critique of round %d", r)
	}
	end := strings.Index(text, "\n}\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(text[:end+2]), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStopRule: the request counts and stop reasons of Done-when and §8
// 1-3, with a critique whose prose always says "not yet Ready for
// Synthesis ✅" and carries 🔴, which only the structured facts decide.
func TestStopRule(t *testing.T) {
	tests := []struct {
		name      string
		o         refinetest.Options
		rounds    int
		chats     int
		reason    string
		decisions []bool // stop, per round
	}{
		{"always critical, never ready", refinetest.Options{}, 5, 12, refine.ReasonMaxRounds, []bool{false, false, false, false, true}},
		{"ready in round 1", refinetest.Options{ReadyAt: 1}, 1, 4, refine.ReasonReady, []bool{true}},
		{"no critical from round 2", refinetest.Options{Critical: func(r int) int { return map[int]int{1: 1}[r] }}, 3, 8, refine.ReasonNoCritical, []bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs, reqs := runAll(t, nil, tt.o, map[string]float64{})
			if n := len(chats(reqs, "")); n != tt.chats {
				t.Errorf("%d chat calls, want %d", n, tt.chats)
			}
			if n := len(chats(reqs, "proposer")); n != tt.rounds {
				t.Errorf("%d proposals, want %d", n, tt.rounds)
			}
			st := readState(t, fs)
			if st.Phase != "complete" || st.Stop == nil || st.Stop.Reason != tt.reason || st.Stop.Round != tt.rounds {
				t.Errorf("state %+v stop %+v, want complete, stopped at round %d for %s", st, st.Stop, tt.rounds, tt.reason)
			}
			for r, stop := range tt.decisions {
				c := readCritique(t, fs, r+1)
				dec := c["decision"].(map[string]any)
				if dec["stop"] != stop {
					t.Errorf("round %d decision %v, want stop=%t", r+1, dec, stop)
				}
				if why, _ := dec["why"].(string); why == "" {
					t.Errorf("round %d decision has no reason: %v", r+1, dec)
				}
			}
			if _, ok := fs["rounds/r"+pad(tt.rounds+1)+"-proposal.md"]; ok {
				t.Error("a round after the stop was written")
			}
		})
	}
}

// TestReadyBelowEarlyStop: a skeptic that says ready with a score below
// the early-stop score is read as not ready, at once and without a
// repair, and the round's file keeps a note that says so; the debate goes
// on and ends by its other rules. It used to be refused, and asked again
// on every run, so that the debate could never end.
func TestReadyBelowEarlyStop(t *testing.T) {
	dir, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1, ReadyScore: 5}, map[string]float64{})
	if n := len(chats(reqs, "skeptic")); n != 5 {
		t.Errorf("%d skeptic requests, want 5 (one a round, none sent back)", n)
	}
	st := readState(t, fs)
	if st.Phase != "complete" || st.Stop == nil || st.Stop.Reason != refine.ReasonMaxRounds {
		t.Errorf("state %+v stop %+v, want complete, stopped for %s", st, st.Stop, refine.ReasonMaxRounds)
	}
	c := readCritique(t, fs, 1)
	if c["ready"] != false || c["skeptic_score"] != 5.0 {
		t.Errorf("round 1 critique ready %v score %v, want not ready, score 5", c["ready"], c["skeptic_score"])
	}
	if note, _ := c["note"].(string); !strings.Contains(note, "said ready, but its score 5 is below the early-stop score 8: read as not ready") {
		t.Errorf("round 1 critique note %q, want it to say the ready signal was read as not ready", note)
	}
	if _, ok := readCritique(t, fs, 2)["note"]; ok {
		t.Errorf("round 2 critique has a note, but its answer was taken as written")
	}
	// moot show r01-critique says so too, and moot check finds nothing.
	deb := protocoltest.Read(t, refine.Protocol{}, dir)
	if text, ok := deb.(sm.Shower).Show("r01-critique"); !ok || !strings.Contains(text, "note: the skeptic said ready, but its score 5") {
		t.Errorf("show r01-critique:\n%s\nwant the note", text)
	}
	if p := deb.Check().Problems; len(p) > 0 {
		t.Errorf("check: %v", p)
	}
}

func pad(n int) string {
	if n < 10 {
		return "0" + string(rune('0'+n))
	}
	return "1" + string(rune('0'+n-10))
}

// TestRetrieval: scripted vectors put four templates above the threshold
// and three are kept, best first, each copied into the debate; with all
// below, none is kept and the generic scaffold is in the prompt.
func TestRetrieval(t *testing.T) {
	t.Run("four above", func(t *testing.T) {
		scores := map[string]float64{"Fermi estimate": 0.9, "Causal chain": 0.7, "Pre-mortem": 0.8, "Trade-off analysis": 0.66, "Reasoning by analogy": 0.6}
		_, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1}, scores)
		if n := len(embeds(reqs)); n != 1 {
			t.Errorf("%d embedding requests, want 1 (templates and question in one)", n)
		}
		var r refine.Retrieval
		if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
			t.Fatal(err)
		}
		want := []string{"fermi-estimate", "pre-mortem", "causal-chain"}
		if strings.Join(r.Kept, ",") != strings.Join(want, ",") || r.Method != "embeddings" {
			t.Errorf("kept %v by %s, want %v by embeddings", r.Kept, r.Method, want)
		}
		if r.Candidates[3].ID != "tradeoff-analysis" || r.Candidates[3].Kept || r.Candidates[3].Score < 0.65 {
			t.Errorf("the fourth above the threshold: %+v", r.Candidates[3])
		}
		if len(r.Candidates) != len(templates.Folder("refine", "reasoning")) {
			t.Errorf("%d candidates, want the library's %d", len(r.Candidates), len(templates.Folder("refine", "reasoning")))
		}
		for _, id := range want {
			if fs["reasoning/"+id+".md"] != string(templates.Folder("refine", "reasoning")[id+".md"]) {
				t.Errorf("reasoning/%s.md is not a copy of the template", id)
			}
		}
		p := prompt(chats(reqs, "proposer")[0])
		// A cosine of 0.9 is the original's (1 + 0.9) / 2 = 95%.
		if !strings.Contains(p, "### Template 1: Fermi estimate") || !strings.Contains(p, "**Match Score:** 95%") || strings.Contains(p, "No Strong Template Match") {
			t.Errorf("round-1 prompt lacks the kept templates in order:\n%s", p)
		}
	})
	t.Run("all below", func(t *testing.T) {
		_, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1}, map[string]float64{})
		var r refine.Retrieval
		if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Kept) != 0 {
			t.Errorf("kept %v, want none", r.Kept)
		}
		p := prompt(chats(reqs, "proposer")[0])
		if !strings.Contains(p, "No Strong Template Match") || strings.Contains(p, "Match Score") {
			t.Errorf("round-1 prompt lacks the generic scaffold:\n%s", p)
		}
	})
	t.Run("no embeddings", func(t *testing.T) {
		_, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1}, nil)
		var r refine.Retrieval
		if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
			t.Fatal(err)
		}
		if r.Method != "lexical" || r.Unavailable == "" {
			t.Errorf("retrieval %s (%q), want lexical with the reason", r.Method, r.Unavailable)
		}
		if !strings.Contains(strings.Join(r.Kept, ","), "fermi-estimate") {
			t.Errorf("kept %v: want the Fermi estimate among them for a how-many question", r.Kept)
		}
		if n := len(chats(reqs, "")); n != 4 {
			t.Errorf("%d chat calls, want 4", n)
		}
	})
	t.Run("off", func(t *testing.T) {
		_, fs, reqs := runAll(t, map[string]string{"rag": "off"}, refinetest.Options{ReadyAt: 1}, map[string]float64{})
		if len(embeds(reqs)) != 0 || !strings.Contains(fs["retrieval.json"], `"method": "off"`) {
			t.Errorf("rag off embedded or recorded %s", fs["retrieval.json"])
		}
	})
}

// TestVisibility: only the round-1 proposer prompt has templates; the
// round-2 prompt has the round-1 proposal and critique and the points to
// answer; the synthesizer sees every round in order; the judge only the
// question and the final answer.
func TestVisibility(t *testing.T) {
	_, _, reqs := runAll(t, nil, refinetest.Options{}, map[string]float64{"Fermi estimate": 0.9})
	props := chats(reqs, "proposer")
	for i, p := range props {
		has := strings.Contains(prompt(p), "Match Score")
		if has != (i == 0) {
			t.Errorf("round %d proposer prompt has templates: %t", i+1, has)
		}
	}
	p2 := prompt(props[1])
	for _, want := range []string{"<<proposal-r1>>", "<<critique-r1>>", "R1.1 (critical"} {
		if !strings.Contains(p2, want) {
			t.Errorf("round-2 proposer prompt lacks %q", want)
		}
	}
	for _, s := range chats(reqs, "skeptic") {
		if strings.Contains(prompt(s), "Match Score") {
			t.Error("a skeptic saw the templates")
		}
	}
	syn := prompt(chats(reqs, "synthesizer")[0])
	last := -1
	for r := 1; r <= 5; r++ {
		for _, m := range []string{"<<proposal-r", "<<critique-r"} {
			i := strings.Index(syn, m+string(rune('0'+r))+">>")
			if i < last {
				t.Errorf("synthesizer prompt lacks %s%d>> or has it out of order", m, r)
			}
			last = i
		}
	}
	judge := prompt(chats(reqs, "judge")[0])
	if !strings.Contains(judge, question) || !strings.Contains(judge, "<<synthesis>>") || strings.Contains(judge, "<<proposal") || strings.Contains(judge, "<<critique") {
		t.Errorf("judge prompt:\n%s", judge)
	}
}

// TestJudgeRepair: a prose judge answer and a score of 12 are sent back
// and repaired into 7, never defaulted or clamped; the first answer is
// kept under .moot/failed/.
func TestJudgeRepair(t *testing.T) {
	for name, first := range map[string]string{
		"prose":  "Score: 8\nJustification: a fine answer.\nWould-benefit-from-finetune: false",
		"twelve": `{"score": 12, "criteria": {"correctness": 10, "completeness": 10, "clarity": 10, "depth": 10}, "justification": "x", "would_benefit_from_finetune": false}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1, Judge: first}, map[string]float64{})
			var s refine.Score
			if err := json.Unmarshal([]byte(fs["score.json"]), &s); err != nil {
				t.Fatal(err)
			}
			if s.Score != 7 || s.Parse != "repaired" || s.Attempts != 2 || s.WeightedScore != 7 {
				t.Errorf("score.json %+v, want 7 repaired after 2 attempts", s)
			}
			if n := len(chats(reqs, "judge")); n != 2 {
				t.Errorf("%d judge requests, want 2", n)
			}
			failed, err := filepath.Glob(filepath.Join(dir, ".moot", "failed", "*judge*"))
			if err != nil || len(failed) != 1 {
				t.Fatalf("failed answers kept: %v %v", failed, err)
			}
			data, _ := os.ReadFile(failed[0])
			var kept struct {
				Attempts []struct{ Answer string } `json:"attempts"`
			}
			if err := json.Unmarshal(data, &kept); err != nil || len(kept.Attempts) != 1 || kept.Attempts[0].Answer != first {
				t.Errorf("kept %s, want the first answer", data)
			}
		})
	}
}

// TestUnitCounting: §8 9. run 2 on a fresh debate ends at round 3
// awaiting its proposal; run 9 then ends complete, and the trace has every
// key of the design.
func TestUnitCounting(t *testing.T) {
	srv := server(t, refinetest.Options{}, map[string]float64{"Fermi estimate": 0.9})
	dir := newDebate(t, nil)
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Done: 2}); err != nil {
		t.Fatal(err)
	}
	st := readState(t, files(t, dir))
	if st.Round != 3 || st.Phase != "awaiting_proposal" {
		t.Fatalf("after run 2: round %d %s, want 3 awaiting_proposal", st.Round, st.Phase)
	}
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Done: 9}); err != nil {
		t.Fatal(err)
	}
	if st := readState(t, files(t, dir)); st.Phase != "complete" {
		t.Fatalf("after run 9: %s", st.Phase)
	}
	deb := protocoltest.Load(t, refine.Protocol{}, dir)
	if f := deb.Check(); !f.OK() {
		t.Fatalf("check: %v", f.Problems)
	}
	data, err := deb.(interface{ Export(string) ([]byte, error) }).Export("trace")
	if err != nil {
		t.Fatal(err)
	}
	var trace map[string]any
	if err := json.Unmarshal(data, &trace); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "timestamp", "query", "templates_used", "rounds", "final_answer", "total_rounds", "early_stopped", "quality_score", "auto_score", "models", "timing"} {
		if _, ok := trace[k]; !ok {
			t.Errorf("trace lacks %q", k)
		}
	}
	if trace["total_rounds"] != 5.0 || trace["early_stopped"] != false || trace["auto_score"] != 7.0 || len(trace["rounds"].([]any)) != 5 {
		t.Errorf("trace: %v rounds, early %v, score %v", trace["total_rounds"], trace["early_stopped"], trace["auto_score"])
	}
	if m := trace["models"].(map[string]any); m["proposer"] != "fake" || m["embedding"] != "fake" {
		t.Errorf("trace models %v", m)
	}
}

// TestReasoningDir: a debate's own templates add to the library and
// replace a built-in one of the same name.
func TestReasoningDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	own := "# Napkin maths\n\n## When to use\n\nQuick counts.\n\n## Steps\n\n1. Guess.\n"
	fermi := "# Fermi estimate\n\n## When to use\n\nMine.\n\n## Steps\n\n1. Mine.\n"
	_, err := refine.Protocol{}.New(newInput(map[string][]byte{"Bad name.md": []byte(own)}))
	if err == nil {
		t.Error("a template with a bad file name was accepted")
	}
	d, err := driver.CreateDebate(dir, refine.Protocol{}, newInput(map[string][]byte{"napkin.md": []byte(own), "fermi-estimate.md": []byte(fermi)}))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	srv := server(t, refinetest.Options{ReadyAt: 1}, map[string]float64{"Napkin maths": 0.95, "Fermi estimate": 0.9})
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	fs := filesOf(t, dir)
	var r refine.Retrieval
	if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Kept, ",") != "napkin,fermi-estimate" || r.Candidates[1].Source != "reasoning/fermi-estimate.md" {
		t.Errorf("kept %v, candidates %+v", r.Kept, r.Candidates[:2])
	}
	if fs["reasoning/fermi-estimate.md"] != fermi {
		t.Error("the debate's own Fermi template was replaced")
	}
}

func filesOf(t *testing.T, dir string) map[string]string { return files(t, dir) }

func newInput(folder map[string][]byte) sm.NewInput {
	return sm.NewInput{Slug: "d", Motion: question, Now: when, Dirs: map[string]map[string][]byte{"reasoning-dir": folder}}
}

// TestEmbeddingsCache: a run killed after the endpoint's vectors were
// cached under .moot/ but before the retrieval's answer was kept resumes
// from the cache: no text is embedded twice, and the debate ends as one
// never killed. The state is made as such a kill leaves it: the files of
// moot new, with the cache of a run that got the vectors.
func TestEmbeddingsCache(t *testing.T) {
	scores := map[string]float64{"Fermi estimate": 0.9, "Pre-mortem": 0.7}
	ref, want, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1}, scores)
	if n := len(embeds(reqs)); n != 1 {
		t.Fatalf("the reference run made %d embedding requests, want 1", n)
	}
	cache, err := os.ReadFile(filepath.Join(ref, ".moot", driver.EmbeddingsCache))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(cache), "\n"), "\n")
	texts := len(embeds(reqs)[0].Input)
	if len(lines) != texts {
		t.Fatalf("the cache holds %d vectors for %d texts", len(lines), texts)
	}
	for _, tc := range []struct {
		name  string
		cache string
		want  []int // the number of texts of each embedding request
	}{
		{"every vector cached", string(cache), nil},
		{"one vector missing", strings.Join(lines[:texts-1], "") + "\n", []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newDebate(t, nil)
			if err := os.MkdirAll(filepath.Join(dir, ".moot"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".moot", driver.EmbeddingsCache), []byte(tc.cache), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := server(t, refinetest.Options{ReadyAt: 1}, scores)
			if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range embeds(srv.Requests()) {
				got = append(got, len(r.Input))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("embedding requests of %v texts, want %v", got, tc.want)
			}
			if d := fixture.Diff(stable(want), stable(files(t, dir))); len(d) > 0 {
				t.Errorf("the debate differs from one whose vectors were all asked for:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// TestJudgesSeeDebatersFenced: proposals and a synthesis that plant an
// order and copies of the fence lines reach the skeptic and the judge only
// inside the fence, with the copies broken, and their instructions say
// what the fence means.
func TestJudgesSeeDebatersFenced(t *testing.T) {
	fake := refinetest.Handler(refinetest.Options{})
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		r := fake(req)
		switch refinetest.Kind(req) {
		case "proposer":
			r.Content += "\n" + fencetest.Hostile
		case "synthesizer":
			r.Content = strings.Replace(r.Content, "The final answer.", "The final answer.\n"+fencetest.Hostile, 1)
		}
		return r
	})
	dir := newDebate(t, map[string]string{"min-rounds": "2", "max-rounds": "2"})
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, req := range chats(srv.Requests(), "") {
		kind := refinetest.Kind(req)
		if kind != "skeptic" && kind != "judge" {
			continue
		}
		what := fmt.Sprintf("%s request %d", kind, i+1)
		fencetest.Ruled(t, what, req.Messages[0].Content)
		for _, msg := range req.Messages[1:] {
			if strings.Contains(msg.Content, fencetest.Order) {
				seen[kind]++
				fencetest.Inside(t, what, msg.Content)
			}
		}
	}
	if seen["skeptic"] == 0 || seen["judge"] == 0 {
		t.Fatalf("the planted text reached %d skeptic and %d judge requests, want both", seen["skeptic"], seen["judge"])
	}
}

// TestRetrievalScale: a template is kept, as in the original, when
// (1 + cosine) / 2 reaches the threshold, and the proposer is shown that
// value as its Match Score; --retrieval-threshold moves the bar and is
// kept in debate.md.
func TestRetrievalScale(t *testing.T) {
	// Cosines 0.35 and 0.32 are 0.675 and 0.66 on the original's scale:
	// kept at 0.65, though below it as raw cosines; 0.28 is 0.64.
	scores := map[string]float64{"Fermi estimate": 0.35, "Causal chain": 0.32, "Pre-mortem": 0.28}
	t.Run("default", func(t *testing.T) {
		_, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 1}, scores)
		var r refine.Retrieval
		if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(r.Kept, ","); got != "fermi-estimate,causal-chain" {
			t.Errorf("kept %q, want fermi-estimate,causal-chain", got)
		}
		if r.Threshold != 0.65 || r.Score != "(1 + cosine) / 2" || r.Candidates[0].Score != 0.675 || r.Candidates[2].Score != 0.64 {
			t.Errorf("retrieval threshold %v, scale %q, scores %+v", r.Threshold, r.Score, r.Candidates[:3])
		}
		p := prompt(chats(reqs, "proposer")[0])
		if !strings.Contains(p, "**Match Score:** 68%") || !strings.Contains(p, "**Match Score:** 66%") {
			t.Errorf("round-1 prompt lacks the original's Match Scores 68%% and 66%%:\n%s", p)
		}
		if !strings.Contains(fs["debate.md"], `"score": "half_cosine"`) {
			t.Errorf("debate.md does not keep the scale:\n%s", fs["debate.md"])
		}
	})
	t.Run("flag", func(t *testing.T) {
		_, fs, _ := runAll(t, map[string]string{"retrieval-threshold": "0.67"}, refinetest.Options{ReadyAt: 1}, scores)
		var r refine.Retrieval
		if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(r.Kept, ","); got != "fermi-estimate" || r.Threshold != 0.67 {
			t.Errorf("kept %q at %v, want fermi-estimate at 0.67", got, r.Threshold)
		}
		if !strings.Contains(fs["debate.md"], `"threshold": 0.67`) {
			t.Errorf("debate.md does not keep the threshold:\n%s", fs["debate.md"])
		}
	})
	for _, bad := range []string{"1.5", "-0.1", "high", "NaN"} {
		t.Run("refuses "+bad, func(t *testing.T) {
			_, err := refine.Protocol{}.New(sm.NewInput{Slug: "d", Motion: question, Values: map[string][]string{"retrieval-threshold": {bad}}, Now: when})
			if err == nil || !strings.Contains(err.Error(), "--retrieval-threshold") {
				t.Errorf("--retrieval-threshold %s: error %v, want one naming the flag", bad, err)
			}
		})
	}
}

// TestTemperatures: each role is sent the original's temperature, kept
// in debate.md at new, and a --ROLE-temperature replaces one role's.
func TestTemperatures(t *testing.T) {
	want := map[string]float64{"proposer": 0.7, "skeptic": 0.8, "synthesizer": 0.5, "judge": 0.3}
	check := func(t *testing.T, reqs []modeltest.Request, want map[string]float64) {
		t.Helper()
		seen := map[string]bool{}
		for _, r := range chats(reqs, "") {
			k := refinetest.Kind(r)
			seen[k] = true
			if r.Temperature == nil || *r.Temperature != want[k] {
				t.Errorf("%s call: temperature %v, want %g", k, r.Temperature, want[k])
			}
		}
		if len(seen) != 4 {
			t.Errorf("kinds of call seen: %v, want the four roles that chat", seen)
		}
	}
	_, fs, reqs := runAll(t, nil, refinetest.Options{ReadyAt: 2}, map[string]float64{})
	check(t, reqs, want)
	if !strings.Contains(fs["debate.md"], `"temperatures": {`) || !strings.Contains(fs["debate.md"], `"skeptic": 0.8`) {
		t.Errorf("debate.md does not keep the temperatures:\n%s", fs["debate.md"])
	}

	srv := server(t, refinetest.Options{ReadyAt: 2}, map[string]float64{})
	dir := newDebate(t, nil)
	o := protocoltest.Served(t, srv.URL)
	o.Overrides = driver.Overrides{Temperature: map[string]float64{"skeptic": 0.1}}
	if _, err := protocoltest.Advance(t, context.Background(), refine.Protocol{}, dir, driver.UnitGoal{All: true}, o); err != nil {
		t.Fatal(err)
	}
	want["skeptic"] = 0.1
	check(t, srv.Requests(), want)
}

// TestOriginalTemplates: templates in the original's shape (YAML
// frontmatter with a name and a description, no "# Name" heading, a
// "## When to Use" section or none) are read as they are: named by their
// frontmatter, or by their file name when it names nothing, and offered
// to the proposer under that name.
func TestOriginalTemplates(t *testing.T) {
	withWhen := "---\nname: \"Ladder of causes\"\ndomain: general\nkeywords: [cause, effect]\ndescription: \"Walk from an effect back to its causes.\"\n---\n\n## When to Use\n- Something failed and nobody knows why\n\n## Steps\n\n### Step 1: Name the effect\n- Say what happened\n"
	noWhen := "---\ndomain: research\ndescription: \"Weigh the studies one by one before concluding.\"\n---\n\n## Steps\n\n### Step 1: Gather\n- List the studies\n"
	dir := filepath.Join(t.TempDir(), "d")
	d, err := driver.CreateDebate(dir, refine.Protocol{}, newInput(map[string][]byte{"ladder.md": []byte(withWhen), "study-weighing.md": []byte(noWhen)}))
	if err != nil {
		t.Fatalf("the original's templates were refused: %v", err)
	}
	d.Close()
	srv := server(t, refinetest.Options{ReadyAt: 1}, map[string]float64{"Ladder of causes": 0.95, "Study weighing": 0.9})
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	fs := filesOf(t, dir)
	var r refine.Retrieval
	if err := json.Unmarshal([]byte(fs["retrieval.json"]), &r); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Kept[:2], ",") != "ladder,study-weighing" || r.Candidates[0].Name != "Ladder of causes" || r.Candidates[1].Name != "Study weighing" {
		t.Errorf("kept %v, candidates %+v", r.Kept, r.Candidates[:2])
	}
	p := prompt(chats(srv.Requests(), "proposer")[0])
	if !strings.Contains(p, "### Template 1: Ladder of causes") || !strings.Contains(p, "### Template 2: Study weighing") {
		t.Errorf("the proposer is not offered the templates by name:\n%s", p)
	}
	var doc string
	for _, e := range embeds(srv.Requests()) {
		for _, m := range e.Input {
			if strings.HasPrefix(m, "Name: Study weighing") {
				doc = m
			}
		}
	}
	if !strings.Contains(doc, "When to use: Weigh the studies one by one") {
		t.Errorf("the template without a When to Use section is not described by its frontmatter: %q", doc)
	}
}
