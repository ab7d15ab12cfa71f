package dialectic_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

func simple(title string, attacks, defends []dialectic.Link) dialectic.Submission {
	return dialectic.Submission{
		Title:   title,
		Claim:   "Claim of " + title + ".",
		Grounds: []dialectic.Ground{{Source: "A source", Content: "Some content.", Relevance: "It matters."}},
		Warrant: "Therefore.",
		Attacks: attacks,
		Defends: defends,
	}
}

// healthy returns a consistent debate after three judged exchanges, at
// exchange 3 awaiting arguments. The judgment of exchange 1 rescored
// prop_000a from 0.3 to 0.1.
func healthy(t *testing.T) dialectic.Raw {
	t.Helper()
	raw := dialectic.Raw{Arguments: map[string][]byte{}}
	add := func(a *dialectic.Argument) {
		data, err := a.Render()
		if err != nil {
			t.Fatal(err)
		}
		raw.Arguments[a.ID+".md"] = data
	}
	for _, side := range dialectic.Sides() {
		for _, id := range dialectic.ArgumentIDs(0, side) {
			add(dialectic.NewArgument(id, side, 0, simple("Opening "+id, nil, nil)))
		}
	}
	add(dialectic.NewArgument("prop_001", dialectic.Prop, 1, simple("Rebuttal one", []dialectic.Link{{TargetID: "opp_000a", Type: "claim_attack", Content: "No."}}, []dialectic.Link{{TargetID: "prop_000b", Type: "reinforce", Content: "Yes."}})))
	add(dialectic.NewArgument("opp_001", dialectic.Opp, 1, simple("Rebuttal one", []dialectic.Link{{TargetID: "prop_000a", Type: "grounds_attack", Content: "No."}}, nil)))
	add(dialectic.NewArgument("prop_002", dialectic.Prop, 2, simple("Rebuttal two", []dialectic.Link{{TargetID: "opp_001", Type: "warrant_attack", Content: "No."}}, nil)))
	add(dialectic.NewArgument("opp_002", dialectic.Opp, 2, simple("Rebuttal two", []dialectic.Link{{TargetID: "prop_001", Type: "backing_attack", Content: "No."}}, []dialectic.Link{{TargetID: "opp_000c", Type: "concede_and_pivot", Content: "Fine."}})))

	s := dialectic.NewScores()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.Apply([]dialectic.Entry{
		{ArgumentID: "prop_000a", Score: 0.3, Reasoning: "r"},
		{ArgumentID: "prop_000b", Score: 0.2, Reasoning: "r"},
		{ArgumentID: "prop_000c", Score: -0.1, Reasoning: "r"},
		{ArgumentID: "opp_000a", Score: -0.2, Reasoning: "r"},
		{ArgumentID: "opp_000b", Score: 0.1, Reasoning: "r"},
		{ArgumentID: "opp_000c", Score: -0.3, Reasoning: "r"},
	}, at)
	prev, diff := 0.3, -0.2
	s.Apply([]dialectic.Entry{
		{ArgumentID: "prop_001", Score: 0.4, Reasoning: "r"},
		{ArgumentID: "opp_001", Score: -0.4, Reasoning: "r"},
		{ArgumentID: "prop_000a", Score: 0.1, Reasoning: "r", TriggeredBy: "opp_001", PreviousScore: &prev, Diff: &diff},
	}, at.Add(time.Hour))
	s.Apply([]dialectic.Entry{
		{ArgumentID: "prop_002", Score: -0.15, Reasoning: "r"},
		{ArgumentID: "opp_002", Score: 0.15, Reasoning: "r"},
	}, at.Add(2*time.Hour))
	var err error
	if raw.Scores, err = s.Render(); err != nil {
		t.Fatal(err)
	}

	h := dialectic.NewHeader("healthy", dialectic.Motion{Text: "This house would check."})
	h.State = dialectic.State{Exchange: 3, Phase: dialectic.AwaitingArguments}
	h.Totals = dialectic.Cumulative(s.Current())
	if raw.Header, err = h.Render(); err != nil {
		t.Fatal(err)
	}
	return raw
}

func clone(raw dialectic.Raw) dialectic.Raw {
	out := dialectic.Raw{Header: raw.Header, Scores: raw.Scores, Arguments: map[string][]byte{}}
	for k, v := range raw.Arguments {
		out.Arguments[k] = v
	}
	return out
}

func editArgument(t *testing.T, raw dialectic.Raw, name string, f func(a *dialectic.Argument)) {
	t.Helper()
	a, err := dialectic.ParseArgument(raw.Arguments[name])
	if err != nil {
		t.Fatal(err)
	}
	f(a)
	if raw.Arguments[name], err = a.Render(); err != nil {
		t.Fatal(err)
	}
}

func editScores(t *testing.T, raw *dialectic.Raw, f func(s *dialectic.Scores)) {
	t.Helper()
	s, err := dialectic.ParseScores(raw.Scores)
	if err != nil {
		t.Fatal(err)
	}
	f(s)
	if raw.Scores, err = s.Render(); err != nil {
		t.Fatal(err)
	}
}

func record(t *testing.T, s *dialectic.Scores, id string) *dialectic.Record {
	t.Helper()
	r, ok := s.Get(id)
	if !ok {
		t.Fatalf("no record for %s", id)
	}
	return r
}

func editHeader(t *testing.T, raw *dialectic.Raw, f func(h *dialectic.Header)) {
	t.Helper()
	h, err := dialectic.ParseHeader(raw.Header)
	if err != nil {
		t.Fatal(err)
	}
	f(h)
	if raw.Header, err = h.Render(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckHealthy(t *testing.T) {
	raw := healthy(t)
	if f := dialectic.Check(raw); len(f.Problems)+len(f.Warnings) != 0 {
		t.Fatalf("healthy debate has findings:\n%v", f)
	}
	d, err := dialectic.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range d.Arguments {
		ids = append(ids, a.ID)
	}
	if got := strings.Join(ids, " "); got != "prop_000a prop_000b prop_000c opp_000a opp_000b opp_000c prop_001 opp_001 prop_002 opp_002" {
		t.Errorf("Load order %q", got)
	}
	k := d.Known()
	if a := k["opp_002"]; a.Side != dialectic.Opp || a.Exchange != 2 || strings.Join(a.Targets, " ") != "prop_001 opp_000c" {
		t.Errorf("Known[opp_002] = %+v", a)
	}
	if x := d.Exchange(1); len(x) != 2 || x[0].ID != "prop_001" || x[1].ID != "opp_001" {
		t.Errorf("Exchange(1) = %v", x)
	}
	if got := dialectic.Cumulative(d.Scores.Current()); got != d.Header.Totals {
		t.Errorf("totals %+v, recomputed %+v", d.Header.Totals, got)
	}
}

// TestCheckHealthyMidExchange checks the two other points of an exchange:
// arguments accepted but not judged, and nothing yet.
func TestCheckHealthyMidExchange(t *testing.T) {
	raw := healthy(t)
	add := func(a *dialectic.Argument) {
		data, _ := a.Render()
		raw.Arguments[a.ID+".md"] = data
	}
	add(dialectic.NewArgument("prop_003", dialectic.Prop, 3, simple("Three", nil, nil)))
	add(dialectic.NewArgument("opp_003", dialectic.Opp, 3, simple("Three", []dialectic.Link{{TargetID: "prop_002", Type: "claim_attack", Content: "x"}}, nil)))
	editHeader(t, &raw, func(h *dialectic.Header) { h.State.Phase = dialectic.AwaitingJudgment })
	if f := dialectic.Check(raw); len(f.Problems)+len(f.Warnings) != 0 {
		t.Fatalf("awaiting judgment: %v", f)
	}

	fresh := dialectic.Raw{Scores: []byte("{}\n"), Arguments: map[string][]byte{}}
	fresh.Header, _ = dialectic.NewHeader("new", dialectic.Motion{Text: "M."}).Render()
	if f := dialectic.Check(fresh); len(f.Problems)+len(f.Warnings) != 0 {
		t.Fatalf("new debate: %v", f)
	}
}

func TestCheckProblems(t *testing.T) {
	newArg := func(raw dialectic.Raw, a *dialectic.Argument) {
		data, err := a.Render()
		if err != nil {
			t.Fatal(err)
		}
		raw.Arguments[a.ID+".md"] = data
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T, raw *dialectic.Raw)
		file   string
		msg    string
		// warn: the finding is a warning, and there is no problem.
		warn bool
		// only: the finding is the only one.
		only bool
	}{
		{
			name: "id and file name differ",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_000a.md", func(a *dialectic.Argument) { a.ID = "prop_000b" })
			},
			file: "arguments/prop_000a.md", msg: `field "id" is prop_000b but the file is named prop_000a.md`, only: true,
		},
		{
			name: "id not canonical",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_001.md", func(a *dialectic.Argument) { a.ID = "prop_01" })
			},
			file: "arguments/prop_001.md", msg: `field "id"`,
		},
		{
			name: "side and id differ",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_001.md", func(a *dialectic.Argument) { a.Side = dialectic.Opp })
			},
			file: "arguments/prop_001.md", msg: `field "side" is "opp" but the id prop_001 says "prop"`, only: true,
		},
		{
			name: "exchange and id differ",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "opp_001.md", func(a *dialectic.Argument) { a.Exchange = 2 })
			},
			file: "arguments/opp_001.md", msg: `field "exchange" is 2 but the id opp_001 says 1`, only: true,
		},
		{
			name:   "argument file of a past exchange missing",
			break_: func(t *testing.T, raw *dialectic.Raw) { delete(raw.Arguments, "opp_000b.md") },
			file:   "arguments/opp_000b.md", msg: "is missing: exchange 0 is past its arguments",
		},
		{
			name:   "argument file of the judged exchange missing",
			break_: func(t *testing.T, raw *dialectic.Raw) { delete(raw.Arguments, "prop_002.md") },
			file:   "arguments/prop_002.md", msg: "is missing",
		},
		{
			name: "argument beyond the state",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				newArg(*raw, dialectic.NewArgument("prop_003", dialectic.Prop, 3, simple("Early", nil, nil)))
			},
			file: "arguments/prop_003.md", msg: "is from exchange 3, which the debate has not reached",
		},
		{
			name: "argument far beyond the state",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				newArg(*raw, dialectic.NewArgument("opp_009", dialectic.Opp, 9, simple("Early", nil, nil)))
			},
			file: "arguments/opp_009.md", msg: "is from exchange 9",
		},
		{
			name: "attack on own side",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_002.md", func(a *dialectic.Argument) {
					a.Attacks = append(a.Attacks, dialectic.Target{TargetID: "prop_000c", Type: "claim_attack"})
				})
			},
			file: "arguments/prop_002.md", msg: "attacks[1]: target prop_000c is on the wrong side (a proposition argument)",
		},
		{
			name: "defence of the opponent",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "opp_002.md", func(a *dialectic.Argument) {
					a.Defends = []dialectic.Target{{TargetID: "prop_000a", Type: "clarify"}}
				})
			},
			file: "arguments/opp_002.md", msg: "defends[0]: target prop_000a is on the wrong side",
		},
		{
			name: "attack on a later exchange",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_000a.md", func(a *dialectic.Argument) {
					a.Attacks = []dialectic.Target{{TargetID: "opp_001", Type: "claim_attack"}}
				})
			},
			file: "arguments/prop_000a.md", msg: "attacks[0]: target opp_001 is not from an earlier exchange",
		},
		{
			name: "attack on the same exchange",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "opp_002.md", func(a *dialectic.Argument) {
					a.Attacks = []dialectic.Target{{TargetID: "prop_002", Type: "claim_attack"}}
				})
			},
			file: "arguments/opp_002.md", msg: "target prop_002 is not from an earlier exchange",
		},
		{
			name: "unknown target",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "opp_002.md", func(a *dialectic.Argument) {
					a.Attacks = []dialectic.Target{{TargetID: "prop_007", Type: "claim_attack"}}
				})
			},
			file: "arguments/opp_002.md", msg: "attacks[0]: target prop_007 does not exist",
		},
		{
			name: "target that is a path",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "opp_002.md", func(a *dialectic.Argument) {
					a.Defends = []dialectic.Target{{TargetID: "../debate", Type: "clarify"}}
				})
			},
			file: "arguments/opp_002.md", msg: "defends[0]: target ../debate does not exist",
		},
		{
			name: "bad attack type",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_001.md", func(a *dialectic.Argument) { a.Attacks[0].Type = "punch" })
			},
			file: "arguments/prop_001.md", msg: `attacks[0]: type "punch" is not one of claim_attack`,
		},
		{
			name: "attack type used for a defence",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editArgument(t, *raw, "prop_001.md", func(a *dialectic.Argument) { a.Defends[0].Type = "claim_attack" })
			},
			file: "arguments/prop_001.md", msg: `defends[0]: type "claim_attack" is not one of reinforce`,
		},
		{
			name: "argument file that does not parse",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				raw.Arguments["opp_001.md"] = []byte("## Claim\n\nNo frontmatter.\n")
			},
			file: "arguments/opp_001.md", msg: "no JSON frontmatter",
		},
		{
			// The file exists: it is not also missing, nor unscored, nor
			// a target that does not exist for prop_002.
			name: "argument frontmatter with a JSON syntax error",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				data := string(raw.Arguments["opp_001.md"])
				raw.Arguments["opp_001.md"] = []byte(strings.Replace(data, `"title":`, `"title"`, 1))
			},
			file: "arguments/opp_001.md", msg: "invalid JSON", only: true,
		},
		{
			name: "opening argument frontmatter with a JSON syntax error",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				data := string(raw.Arguments["prop_000b.md"])
				raw.Arguments["prop_000b.md"] = []byte(strings.Replace(data, `"title":`, `"title"`, 1))
			},
			file: "arguments/prop_000b.md", msg: "invalid JSON", only: true,
		},
		{
			name: "judgment not zero-sum",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					r := record(t, s, "prop_002")
					r.History[0].Score, r.CurrentScore = 0.15, 0.15
				})
				retotal(t, raw)
			},
			// No current score or total depends on it: a warning.
			file: "scores.json", msg: "the judgment of exchange 2 sums to 0.3, not 0", warn: true, only: true,
		},
		{
			// dialectic records an earlier argument a judge lists again
			// under "scores" as one more entry without triggered_by, and
			// checked that the judgment, that entry included, sums to 0.
			name: "earlier argument scored again by a judgment",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					r := record(t, s, "opp_002")
					r.History[0].Score, r.CurrentScore = 0.25, 0.25
					s.Apply([]dialectic.Entry{{ArgumentID: "opp_001", Score: -0.1, Reasoning: "r"}}, time.Date(2026, 1, 1, 2, 0, 0, 1000, time.UTC))
				})
				retotal(t, raw)
			},
			file: "scores.json", msg: `opp_001.history[1]: a second score given under "scores", not as a rescore (the score before it is -0.4)`, warn: true, only: true,
		},
		{
			name: "current_score not the last history score",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) { record(t, s, "opp_001").CurrentScore = -0.35 })
			},
			file: "scores.json", msg: "opp_001: current_score -0.35 is not the last score in its history (-0.4)",
		},
		{
			name: "current_score is the first score, not the rescore",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) { record(t, s, "prop_000a").CurrentScore = 0.3 })
			},
			file: "scores.json", msg: "prop_000a: current_score 0.3 is not the last score",
		},
		{
			name: "previous_score wrong",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					p := 0.25
					record(t, s, "prop_000a").History[1].PreviousScore = &p
				})
			},
			file: "scores.json", msg: "prop_000a.history[1]: previous_score 0.25 is not the score before it (0.3)", warn: true,
		},
		{
			name: "previous_score missing on a rescore",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) { record(t, s, "prop_000a").History[1].PreviousScore = nil })
			},
			file: "scores.json", msg: "prop_000a.history[1]: a rescore without previous_score (the score before it is 0.3)", warn: true, only: true,
		},
		{
			name: "diff wrong",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					d := 0.2
					record(t, s, "prop_000a").History[1].Diff = &d
				})
			},
			file: "scores.json", msg: "prop_000a.history[1]: diff 0.2 is not -0.2", warn: true, only: true,
		},
		{
			name: "rescore by more than 0.5",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					r := record(t, s, "prop_000a")
					d := -0.6
					r.History[1].Score, r.History[1].Diff, r.CurrentScore = -0.3, &d, -0.3
				})
				retotal(t, raw)
			},
			file: "scores.json", msg: "prop_000a.history[1]: a rescore moved the score by -0.6, more than 0.5", warn: true, only: true,
		},
		{
			// dialectic writes the judge's old_score as previous_score and
			// computes diff from it.
			name: "previous_score is the judge's old_score, as dialectic wrote it",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					p, d := 0.25, -0.15
					e := &record(t, s, "prop_000a").History[1]
					e.PreviousScore, e.Diff = &p, &d
				})
			},
			file: "scores.json", msg: "prop_000a.history[1]: previous_score 0.25 is not the score before it (0.3)", warn: true, only: true,
		},
		{
			// dialectic writes neither when the judge gave no old_score.
			name: "rescore with neither previous_score nor diff",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					e := &record(t, s, "prop_000a").History[1]
					e.PreviousScore, e.Diff = nil, nil
				})
			},
			file: "scores.json", msg: "prop_000a.history[1]: a rescore without previous_score", warn: true, only: true,
		},
		{
			name: "rescore without diff",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) { record(t, s, "prop_000a").History[1].Diff = nil })
			},
			file: "scores.json", msg: "prop_000a.history[1]: a rescore without diff", warn: true, only: true,
		},
		{
			name: "first score marked as a rescore",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) { record(t, s, "opp_000b").History[0].TriggeredBy = "opp_001" })
			},
			file: "scores.json", msg: "opp_000b.history[0]: the first score of an argument is marked as a rescore", warn: true, only: true,
		},
		{
			name: "score outside [-1, 1]",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					r := record(t, s, "opp_002")
					r.History[0].Score, r.CurrentScore = 1.15, 1.15
				})
			},
			file: "scores.json", msg: "opp_002.history[0]: score 1.15 is outside [-1, 1]",
		},
		{
			name: "empty history",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) { record(t, s, "opp_002").History = nil })
			},
			file: "scores.json", msg: "opp_002 has an empty history",
		},
		{
			name: "cumulative total that lies",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editHeader(t, raw, func(h *dialectic.Header) { h.Totals.Proposition.Total += 0.5 })
			},
			file: "debate.md", msg: "cumulative_scores.proposition is 0.95 over 5 arguments, but scores.json gives 0.45 over 5",
		},
		{
			name: "cumulative count that lies",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editHeader(t, raw, func(h *dialectic.Header) { h.Totals.Opposition.Count = 4 })
			},
			file: "debate.md", msg: "cumulative_scores.opposition is -0.65 over 4 arguments, but scores.json gives -0.65 over 5",
		},
		{
			name:   "scored argument without a file",
			break_: func(t *testing.T, raw *dialectic.Raw) { delete(raw.Arguments, "prop_000c.md") },
			file:   "scores.json", msg: "prop_000c is scored but has no argument file",
		},
		{
			name: "judged argument without a score",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				var top frontmatter.Object
				if err := json.Unmarshal(raw.Scores, &top); err != nil {
					t.Fatal(err)
				}
				var kept []frontmatter.Field
				for _, f := range top.Fields {
					if f.Key != "opp_000c" {
						kept = append(kept, f)
					}
				}
				top.Fields = kept
				raw.Scores, _ = json.Marshal(top)
			},
			file: "scores.json", msg: "opp_000c has no score, but exchange 0 has been judged",
		},
		{
			name: "score for an exchange not yet judged",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				newArg(*raw, dialectic.NewArgument("prop_003", dialectic.Prop, 3, simple("Three", nil, nil)))
				newArg(*raw, dialectic.NewArgument("opp_003", dialectic.Opp, 3, simple("Three", nil, nil)))
				editHeader(t, raw, func(h *dialectic.Header) { h.State.Phase = dialectic.AwaitingJudgment })
				editScores(t, raw, func(s *dialectic.Scores) {
					s.Apply([]dialectic.Entry{{ArgumentID: "prop_003", Score: 0, Reasoning: "r"}, {ArgumentID: "opp_003", Score: 0, Reasoning: "r"}}, time.Now())
				})
			},
			file: "scores.json", msg: "prop_003 is scored, but exchange 3 has not been judged yet",
		},
		{
			name: "scores.json keyed by something that is not an id",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				editScores(t, raw, func(s *dialectic.Scores) {
					s.Apply([]dialectic.Entry{{ArgumentID: "../escape", Score: 0, Reasoning: "r"}}, time.Now())
				})
			},
			file: "scores.json", msg: `"../escape" is not an argument id`,
		},
		{
			name:   "scores.json missing",
			break_: func(t *testing.T, raw *dialectic.Raw) { raw.Scores = nil },
			file:   "scores.json", msg: "is missing",
		},
		{
			name:   "scores.json that does not parse",
			break_: func(t *testing.T, raw *dialectic.Raw) { raw.Scores = []byte(`{"prop_000a": {"history": []}}`) },
			file:   "scores.json", msg: `prop_000a: field "current_score" is missing`,
		},
		{
			name:   "debate.md that does not parse",
			break_: func(t *testing.T, raw *dialectic.Raw) { raw.Header = []byte("# Motion\n\nNo state.\n") },
			file:   "debate.md", msg: "no JSON frontmatter",
		},
		{
			name: "debate.md with a bad phase",
			break_: func(t *testing.T, raw *dialectic.Raw) {
				raw.Header = []byte(strings.Replace(string(raw.Header), "awaiting_arguments", "done", 1))
			},
			file: "debate.md", msg: `field "current_phase"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := clone(healthy(t))
			tc.break_(t, &raw)
			f := dialectic.Check(raw)
			found := f.Problems
			if tc.warn {
				found = f.Warnings
				if len(f.Problems) > 0 {
					t.Errorf("want only a warning, got problems:\n%s", problems(f.Problems))
				}
			}
			if tc.only && len(f.Problems)+len(f.Warnings) != 1 {
				t.Errorf("want one finding, got problems:\n%swarnings:\n%s", problems(f.Problems), problems(f.Warnings))
			}
			for _, p := range found {
				if p.File == tc.file && strings.Contains(p.Message, tc.msg) {
					return
				}
			}
			t.Errorf("no finding in %s saying %q; got problems:\n%swarnings:\n%s", tc.file, tc.msg, problems(f.Problems), problems(f.Warnings))
		})
	}
}

// retotal makes debate.md's totals those of scores.json again.
func retotal(t *testing.T, raw *dialectic.Raw) {
	t.Helper()
	s, err := dialectic.ParseScores(raw.Scores)
	if err != nil {
		t.Fatal(err)
	}
	editHeader(t, raw, func(h *dialectic.Header) { h.Totals = dialectic.Cumulative(s.Current()) })
}

func problems(ps []dialectic.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(raw *dialectic.Raw)
		file   string
	}{
		{"debate.md", func(raw *dialectic.Raw) { raw.Header = []byte("{\n}\n") }, "debate.md"},
		{"scores.json", func(raw *dialectic.Raw) { raw.Scores = []byte("[]") }, "scores.json"},
		{"argument", func(raw *dialectic.Raw) { raw.Arguments["opp_001.md"] = []byte("x") }, "arguments/opp_001.md"},
		{"argument under another name", func(raw *dialectic.Raw) {
			raw.Arguments["prop_009.md"] = raw.Arguments["prop_001.md"]
		}, "arguments/prop_009.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := clone(healthy(t))
			tc.break_(&raw)
			_, err := dialectic.Load(raw)
			var de *dialectic.Error
			if !errors.As(err, &de) || de.File != tc.file {
				t.Fatalf("error %v, want a *debate.Error for %s", err, tc.file)
			}
			if !strings.HasPrefix(err.Error(), tc.file+": ") {
				t.Errorf("message %q does not start with the file", err)
			}
		})
	}
}

func TestDebateAdd(t *testing.T) {
	d, err := dialectic.Load(healthy(t))
	if err != nil {
		t.Fatal(err)
	}
	d.Add(dialectic.NewArgument("opp_003", dialectic.Opp, 3, simple("New opp", nil, nil)), dialectic.NewArgument("prop_003", dialectic.Prop, 3, simple("New prop", nil, nil)))
	replaced := dialectic.NewArgument("prop_001", dialectic.Prop, 1, simple("Replaced", nil, nil))
	d.Add(replaced)
	if a, ok := d.Argument("prop_001"); !ok || a != replaced {
		t.Errorf("Argument(prop_001) = %v", a)
	}
	var ids []string
	for _, a := range d.Arguments {
		ids = append(ids, a.ID)
	}
	if got := strings.Join(ids, " "); !strings.HasSuffix(got, "prop_002 opp_002 prop_003 opp_003") || len(ids) != 12 {
		t.Errorf("arguments after Add: %q", got)
	}
}
