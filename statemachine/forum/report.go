package forum

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/escape"
	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Reporter     = (*debate)(nil)
	_ sm.HTMLReporter = (*debate)(nil)
	_ sm.Exporter     = (*debate)(nil)
)

// paragraphs splits model text into paragraphs, each made safe as
// markdown.
func paragraphs(text string) string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, escape.Markdown(p))
		}
	}
	return strings.Join(out, "\n\n")
}

// entry is one call of the transcript, as the report shows it.
type entry struct {
	s slot
	f *callFile
}

func (d *debate) entries() []entry {
	var out []entry
	for _, s := range d.slots {
		if f := d.file(s); f != nil {
			out = append(out, entry{s, f})
		}
	}
	return out
}

// scorePoints lists the running score of each side after each judged
// turn, for the chart.
func (d *debate) scorePoints() (turns []int, bySide map[string][]int) {
	bySide = map[string][]int{For: nil, Against: nil}
	cur := map[string]int{}
	has := map[string]bool{}
	for _, e := range d.entries() {
		if e.s.Kind != kindScore || e.f.meta.Score == nil {
			continue
		}
		cur[e.s.Target], has[e.s.Target] = *e.f.meta.Score, true
		turns = append(turns, e.s.Turn)
		for _, side := range []string{For, Against} {
			v := -1
			if has[side] {
				v = cur[side]
			}
			bySide[side] = append(bySide[side], v)
		}
	}
	return turns, bySide
}

func (d *debate) who(role string) string {
	if role == Judge {
		return d.st.name(Judge) + " (judge)"
	}
	return fmt.Sprintf("%s (%s)", d.st.name(role), sideWord(role))
}

// Report writes README.md: the cast, the running scores as a table and a
// chart, the transcript with every private plan and thought folded away
// and marked private, each score as a chip, and the verdict.
func (d *debate) Report() ([]sm.File, error) {
	var b strings.Builder
	st := d.st
	fmt.Fprintf(&b, "# %s\n\n", escape.Markdown(d.topic))
	if st.Premise != "" {
		fmt.Fprintf(&b, "**Premise:** %s\n\n", escape.Markdown(st.Premise))
	}
	status := d.Status()
	if status.Complete {
		fmt.Fprintf(&b, "A forum debate of %d turns: %s done.\n\n", st.Turns, status.Progress())
	} else {
		// Under way: the turns are done, the verdict is to come.
		units, closing := status.Parts()
		fmt.Fprintf(&b, "A forum debate of %d turns: %s done%s.\n\n", st.Turns, units, closing)
	}
	b.WriteString("| role | name | side | type |\n|---|---|---|---|\n")
	for i, role := range []string{st.a(), st.b(), Judge} {
		p := st.persona(role)
		if p == nil {
			continue
		}
		label := []string{"A (opens)", "B", "judge"}[i]
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label, escape.Markdown(p.Name), sideOf(role), escape.Markdown(p.Type))
	}
	if st.Judge == nil {
		b.WriteString("\nThe debate has no judge: no scores and no verdict.\n")
	}
	if gaps := d.gapLines(); len(gaps) > 0 {
		fmt.Fprintf(&b, "\n**Missing:** %s recorded as missing after every repair; no value was invented for them, and a turn without its score keeps the score before it (`moot run --retry-missing` asks again):\n\n",
			english.Count(len(gaps), "call"))
		for _, g := range gaps {
			fmt.Fprintf(&b, "- %s\n", escape.Markdown(g))
		}
	}
	turns, bySide := d.scorePoints()
	if len(turns) > 0 {
		b.WriteString("\n## Running scores\n\n| after turn |")
		for _, t := range turns {
			fmt.Fprintf(&b, " %d |", t)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(turns)) + "\n")
		for _, side := range []string{st.a(), st.b()} {
			fmt.Fprintf(&b, "| %s |", escape.Markdown(st.name(side)))
			for _, v := range bySide[side] {
				if v < 0 {
					b.WriteString(" - |")
				} else {
					fmt.Fprintf(&b, " %d |", v)
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n```mermaid\nxychart-beta\n    title \"Running scores\"\n    x-axis \"after turn\" [")
		for i, t := range turns {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "\"%d\"", t)
		}
		b.WriteString("]\n    y-axis \"running score\" 0 --> 10\n")
		for _, side := range []string{st.a(), st.b()} {
			b.WriteString("    line [")
			// A chart line has a value at every turn: before a speaker's
			// first score it holds that score (the table shows "-"), so
			// that no line starts at a 0 nobody gave.
			first := -1
			for _, v := range bySide[side] {
				if v >= 0 {
					first = v
					break
				}
			}
			for i, v := range bySide[side] {
				if i > 0 {
					b.WriteString(", ")
				}
				if v < 0 {
					v = max(first, 0)
				}
				fmt.Fprint(&b, v)
			}
			b.WriteString("]\n")
		}
		fmt.Fprintf(&b, "```\n\nLines: %s first, %s second.\n", escape.Mermaid(st.name(st.a())), escape.Mermaid(st.name(st.b())))
	}
	b.WriteString("\n## Transcript\n")
	turn := 0
	for _, e := range d.entries() {
		m := e.f.meta
		if e.s.Turn != turn && e.s.Turn <= st.Turns && e.s.Kind != kindPlan {
			turn = e.s.Turn
			sp := d.slotSpeaker(turn)
			closing := ""
			if e.s.Final {
				closing = ", closing"
			}
			fmt.Fprintf(&b, "\n### Turn %d: %s%s\n", turn, escape.Markdown(d.who(sp)), closing)
		}
		if e.s.Kind == kindDeliberation {
			b.WriteString("\n## Verdict\n")
		}
		switch e.s.Kind {
		case kindPlan, kindThink, kindEvaluate, kindDeliberation, kindConfirmation:
			what := map[string]string{kindPlan: "plan", kindThink: "thoughts", kindEvaluate: "evaluation", kindDeliberation: "deliberation", kindConfirmation: "confirmation"}[e.s.Kind]
			body := paragraphs(e.f.body)
			if m.Skipped != "" {
				body = "(named neither debater: " + escape.Markdown(m.Skipped) + ")"
			}
			fmt.Fprintf(&b, "\n<details><summary>%s's %s (private to %s)</summary>\n\n%s\n\n</details>\n",
				html.EscapeString(st.name(e.s.Role)), what, html.EscapeString(st.name(e.s.Role)), body)
		case kindSpeech:
			fmt.Fprintf(&b, "\n**%s:**\n\n%s\n", escape.Markdown(st.name(e.s.Role)), paragraphs(e.f.body))
			if line := citationLine(m.Citations); line != "" {
				fmt.Fprintf(&b, "\n%s\n", line)
			}
		case kindScore:
			if m.Score != nil {
				fmt.Fprintf(&b, "\n`%s → %s: %d/10` %s\n", escape.Fold(st.name(Judge)), escape.Fold(st.name(e.s.Target)), *m.Score, escape.Markdown(m.Reasoning))
			} else if m.Missing != nil {
				fmt.Fprintf(&b, "\n`%s → %s: missing` %s\n", escape.Fold(st.name(Judge)), escape.Fold(st.name(e.s.Target)), escape.Markdown(missingBody(m.Missing)))
			}
		case kindAnnouncement:
			if v := st.Verdict; v != nil {
				fmt.Fprintf(&b, "\n**Winner: %s** · %s %d · %s %d", escape.Markdown(d.who(v.Winner)),
					escape.Markdown(st.name(For)), v.Scores[For], escape.Markdown(st.name(Against)), v.Scores[Against])
				if v.PremiseUpheld != nil {
					fmt.Fprintf(&b, " · premise %s", map[bool]string{true: "UPHELD", false: "REJECTED"}[*v.PremiseUpheld])
				}
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "\n%s\n", paragraphs(e.f.body))
		}
	}
	b.WriteString(d.citationShares())
	return []sm.File{{Name: "README.md", Data: []byte(b.String())}}, nil
}

// sideOf names the side of role for a table, "-" for the judge.
func sideOf(role string) string {
	if role == Judge {
		return "-"
	}
	return sideWord(role)
}

// slotSpeaker returns the debater who speaks in turn t.
func (d *debate) slotSpeaker(t int) string {
	if t%2 == 0 {
		return d.st.b()
	}
	return d.st.a()
}

// csvColumns are the columns of the original's batch results.csv.
var csvColumns = []string{"run_num", "agent_for", "model_for", "agent_against", "model_against", "judge",
	"model_judge", "first_speaker", "premise", "premise_upheld", "winner", "winner_side", "score_for",
	"score_against", "transcript_filename"}

// Formats offers csv: the row of the original's batch results.csv.
func (Protocol) Formats() []sm.Format {
	return []sm.Format{{Name: "csv", Usage: "the row of the original's batch results.csv for this debate", Ext: "csv"}}
}

// Formats offers the protocol's formats.
func (d *debate) Formats() []sm.Format { return Protocol{}.Formats() }

// Export writes the debate in the format called name.
func (d *debate) Export(name string) ([]byte, error) {
	if name != "csv" {
		return nil, fmt.Errorf("forum exports no format %q (it has csv)", name)
	}
	row := d.csvRow()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	cols := csvColumns
	if gaps := d.Gaps(); len(gaps) > 0 {
		// Only a debate with gaps has the column, so that the rows of
		// every other debate stay the original's.
		cols = append(slices.Clip(cols), "missing_calls")
		row["missing_calls"] = strings.Join(gaps, " ")
	}
	values := make([]string, len(cols))
	for i, c := range cols {
		values[i] = row[c]
	}
	if err := w.WriteAll([][]string{cols, values}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// csvRow is the debate's row of the original's results.csv, by column:
// the models are those that answered each role's last call, else the
// personas' own; the verdict's columns are empty until there is one.
func (d *debate) csvRow() map[string]string {
	st := d.st
	model := func(role string) string {
		// The model that answered the role's last call, else the
		// persona's own.
		m := ""
		for _, e := range d.entries() {
			if e.s.Role == role && e.f.meta.Model != "" {
				m = e.f.meta.Model
			}
		}
		if m == "" {
			if p := st.persona(role); p != nil {
				m = p.Model
			}
		}
		return m
	}
	row := map[string]string{
		"run_num": "1", "agent_for": st.For.Name, "model_for": model(For),
		"agent_against": st.Against.Name, "model_against": model(Against),
		"first_speaker": st.name(st.FirstSpeaker), "premise": st.Premise,
		"transcript_filename": "README.md",
	}
	if st.Judge != nil {
		row["judge"], row["model_judge"] = st.Judge.Name, model(Judge)
	}
	if v := st.Verdict; v != nil {
		row["winner"], row["winner_side"] = v.WinnerName, v.Winner
		row["score_for"], row["score_against"] = fmt.Sprint(v.Scores[For]), fmt.Sprint(v.Scores[Against])
		if v.PremiseUpheld != nil {
			row["premise_upheld"] = map[bool]string{true: "TRUE", false: "FALSE"}[*v.PremiseUpheld]
		}
	}
	return row
}
