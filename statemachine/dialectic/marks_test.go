package dialectic_test

import (
	"fmt"
	"testing"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/templates"
)

// TestMarksEndWhatTheNextPromptRepeats checks the cache marks of every
// role's prompts over three exchanges: each mark ends a prefix that the
// role's next prompt repeats byte for byte, and the last mark of a prompt
// is the first of the role's next one, so that what one call asks the
// provider to cache the next call reads. The focused judge marks its
// index of earlier arguments, which only grows, as a debater marks the
// arguments it shows.
func TestMarksEndWhatTheNextPromptRepeats(t *testing.T) {
	// The judge under --judge-context full, which shows every argument in
	// full, marks them as a debater does.
	const fullJudge = dialectic.Role("judge, full context")
	d := example(t)
	arg := func(x int) []byte {
		return []byte(fmt.Sprintf(`{"title": "A Rebuttal Of Exchange %d", "claim": "c", "grounds": [{"source": "s", "content": "g", "relevance": "r"}], "warrant": "w"}`, x))
	}
	prompts := map[dialectic.Role][]dialectic.Prompt{}
	debaters := func() {
		for _, side := range dialectic.Sides() {
			p, err := dialectic.Debater(templates.Default(), load(t, d), side)
			if err != nil {
				t.Fatal(err)
			}
			prompts[p.Role] = append(prompts[p.Role], p)
		}
	}
	judge := func() {
		p, err := dialectic.JudgePrompt(templates.Default(), load(t, d))
		if err != nil {
			t.Fatal(err)
		}
		prompts[dialectic.Judge] = append(prompts[dialectic.Judge], p)
		deb := load(t, d)
		setJudgeContext(t, deb, "full")
		if p, err = dialectic.JudgePrompt(templates.Default(), deb); err != nil {
			t.Fatal(err)
		}
		prompts[fullJudge] = append(prompts[fullJudge], p)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for x := 2; x <= 4; x++ {
		debaters()
		if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(x, arg(x), arg(x))); err != nil {
			t.Fatal(err)
		}
		judge()
		judgment := fmt.Sprintf(`{"scores": [{"argument_id": "prop_%03d", "score": 0.1, "reasoning": "r"}, {"argument_id": "opp_%03d", "score": -0.1, "reasoning": "r"}], "rescores": []}`, x, x)
		if _, err := driver.HandStep(d, dialectic.Protocol{}, true, dialectic.HandJudgment([]byte(judgment), at)); err != nil {
			t.Fatal(err)
		}
	}
	prefix := func(p dialectic.Prompt, m sm.Mark) string {
		s := ""
		for i := range m.Message {
			s += p.Messages[i].Role + "\x00" + p.Messages[i].Content + "\x00"
		}
		return s + p.Messages[m.Message].Content[:m.Offset]
	}
	for role, ps := range prompts {
		t.Run(string(role), func(t *testing.T) {
			for i, p := range ps {
				if len(p.Marks) != 2 {
					t.Fatalf("prompt %d has marks %v, want 2", i, p.Marks)
				}
				if i == 0 {
					continue
				}
				prev := ps[i-1]
				if last := prev.Marks[len(prev.Marks)-1]; last != p.Marks[0] {
					t.Errorf("prompt %d's first mark %v is not its previous prompt's last %v", i, p.Marks[0], last)
				}
				for _, m := range prev.Marks {
					if prefix(prev, m) != prefix(p, m) {
						t.Errorf("prompt %d does not repeat its previous prompt up to the mark %v", i, m)
					}
				}
				// A debater's or the full judge's marks take in the last
				// exchange's bodies, the focused judge's its index lines.
				took := len("A Rebuttal")
				if role == dialectic.Judge {
					took = len("\n- opp_001 (opposition): c")
				}
				if p.Marks[1].Offset < p.Marks[0].Offset+took {
					t.Errorf("prompt %d's marks %v do not take in the last exchange's arguments", i, p.Marks)
				}
			}
		})
	}
}
