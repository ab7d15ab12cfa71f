package judging

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/escape"
	sm "github.com/moot-dev/moot/statemachine"
)

// Worth reports whether the judges of r are worth a section of the
// report: two or more of them, or a graph to measure one against.
func (r Report) Worth() bool { return len(r.Judges) >= 2 }

// Markdown renders r as a section of a markdown report, headed at level
// (2 for "##"). Every text from the debate is escaped.
func (r Report) Markdown(level int) string {
	var b strings.Builder
	h := strings.Repeat("#", level)
	fmt.Fprintf(&b, "%s Judges\n\n", h)
	switch {
	case len(r.Judges) == 0:
		b.WriteString("No judge has scored this debate yet.\n")
		return b.String()
	case len(r.Judges) == 1:
		fmt.Fprintf(&b, "One judge scored this debate, so there is no agreement to measure; `moot rejudge` judges it again with another model.\n\n")
	default:
		fmt.Fprintf(&b, "%s scored %s.", english.Count(len(r.Judges), "judge"), english.Count(r.Items, "item")+" in common")
		if r.Aggregate {
			b.WriteString(" The official scores are the panel's aggregate.")
		}
		if r.Alpha != nil {
			fmt.Fprintf(&b, " **Krippendorff's alpha: %.3f** (interval scale: 1 is full agreement, 0 no more than chance, below 0 systematic disagreement).", *r.Alpha)
		} else {
			b.WriteString(" Krippendorff's alpha is undefined here (too few scores in common, or none that differ).")
		}
		b.WriteString("\n\n")
	}
	graph := r.Strength != nil
	root := slices.ContainsFunc(r.Judges, func(j JudgeReport) bool { return j.RootSideBias != nil })
	b.WriteString("| judge | model | kind | scored | agreement with the others (ρ) | side bias (for the proposition) |")
	if root {
		b.WriteString(" its model's side bias over the root |")
	}
	first := slices.ContainsFunc(r.Judges, func(j JudgeReport) bool { return j.FirstSpeakerBias != nil })
	if first {
		b.WriteString(" first-speaker bias |")
	}
	b.WriteString(" length bias (r) |")
	if graph {
		b.WriteString(" follows the graph (r) |")
	}
	b.WriteString("\n|---|---|---|---:|---|---|")
	if root {
		b.WriteString("---|")
	}
	if first {
		b.WriteString("---|")
	}
	b.WriteString("---|")
	if graph {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, j := range r.Judges {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s |", escape.Markdown(j.Name), escape.Markdown(orDash(j.Model)), j.Kind, j.Scored,
			FormatInterval(j.Agreement, false), FormatInterval(j.SideBias, true))
		if root {
			fmt.Fprintf(&b, " %s |", FormatInterval(j.RootSideBias, true))
		}
		if first {
			fmt.Fprintf(&b, " %s |", FormatInterval(j.FirstSpeakerBias, true))
		}
		fmt.Fprintf(&b, " %s |", FormatInterval(j.LengthBias, false))
		if graph {
			fmt.Fprintf(&b, " %s |", FormatInterval(j.StrengthCorrelation, false))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nEach figure comes with its 95% bootstrap interval; ✱ marks one whose interval excludes zero, a lean that is unlikely to be chance. ")
	fmt.Fprintf(&b, "A side bias is the judge's mean margin for the proposition per %s, on its own score scale (%s to %s)", r.Unit, trim(r.Min), trim(r.Max))
	if root {
		b.WriteString("; over the root, its model's mean margin over every debate of the debates root it judged, each on [0, 1], the interval from a bootstrap over those debates")
	}
	b.WriteString("; a length bias is the correlation of its scores with the length of what it scored.\n")
	if len(r.Pairs) > 0 {
		b.WriteString("\nRank correlation of the judges' scores (Spearman): ")
		parts := make([]string, 0, len(r.Pairs))
		for _, p := range r.Pairs {
			v := "undefined"
			if p.Spearman != nil {
				v = fmt.Sprintf("%.3f", *p.Spearman)
			}
			parts = append(parts, fmt.Sprintf("%s and %s %s (%d in common)", escape.Markdown(p.A), escape.Markdown(p.B), v, p.N))
		}
		b.WriteString(strings.Join(parts, "; ") + ".\n")
	}
	if len(r.Disagreements) > 0 {
		fmt.Fprintf(&b, "\n%s# Where they disagree most\n\n| item | %s | title | spread | scores |\n|---|---:|---|---:|---|\n", h, r.Unit)
		for _, d := range r.Disagreements {
			names := make([]string, 0, len(d.Scores))
			for n := range d.Scores {
				names = append(names, n)
			}
			slices.Sort(names)
			scores := make([]string, len(names))
			for i, n := range names {
				scores[i] = fmt.Sprintf("%s %+.2f", escape.Markdown(n), d.Scores[n])
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %.2f | %s |\n", escape.Markdown(d.ID), d.Unit, escape.Markdown(d.Title), d.Spread, strings.Join(scores, ", "))
		}
	}
	if s := r.Strength; s != nil {
		fmt.Fprintf(&b, "\n%s# Strength from the graph alone\n\n", h)
		b.WriteString("Each argument's strength computed from the attacks and defences alone (DF-QuAD), with the official judge's first score, mapped to [0, 1], as its base: an argument attacked by strong arguments loses strength, one defended by them gains it. ")
		if c := s.Correlation; c != nil {
			fmt.Fprintf(&b, "Its correlation with the official final scores (mapped the same way) is **%.3f**", *c)
			switch {
			case *c >= 0.7:
				b.WriteString(": the final scores largely follow the structure of the debate.")
			case *c >= 0.3:
				b.WriteString(": the final scores follow the structure of the debate only in part; the arguments whose strength and final score differ most are where the judge went its own way.")
			default:
				b.WriteString(": the final scores part from what the structure of the debate says (an argument left unanswered but marked down, say).")
			}
		}
		if len(s.Unevaluated) > 0 {
			fmt.Fprintf(&b, " Not evaluated, being on a cycle of attacks and defences or depending on one: %s.", escape.Markdown(strings.Join(s.Unevaluated, ", ")))
		}
		b.WriteString("\n\n| argument | base | strength | final score |\n|---|---:|---:|---:|\n")
		for _, it := range s.Items {
			st := "not evaluated"
			if it.Strength != nil {
				st = fmt.Sprintf("%.3f", *it.Strength)
			}
			fmt.Fprintf(&b, "| %s | %.3f | %s | %+.2f |\n", escape.Markdown(it.ID), it.Base, st, it.Final)
		}
	}
	return b.String()
}

// FormatInterval writes an interval as "0.20 [0.05, 0.35]", with a sign
// when signed and ✱ when it excludes zero; "n/a" when undefined.
func FormatInterval(i *Interval, signed bool) string {
	if i == nil {
		return "n/a"
	}
	f := "%.2f"
	if signed {
		f = "%+.2f"
	}
	s := fmt.Sprintf(f+" ["+f+", "+f+"]", i.Estimate, i.Low, i.High)
	if i.Excludes(0) {
		s += " ✱"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func trim(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}

// Markdown renders the comparison of the judge models of a root.
func (r RootReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Judges across %s\n\n", english.Count(r.Debates, "debate"))
	if len(r.Models) == 0 {
		b.WriteString("No judge has scored any of them yet.\n")
		return b.String()
	}
	if r.Alpha != nil {
		fmt.Fprintf(&b, "Krippendorff's alpha over the %s two models or more scored: **%.3f**.\n\n", english.Count(r.Items, "item"), *r.Alpha)
	} else {
		b.WriteString("Krippendorff's alpha is undefined: no two models scored the same items.\n\n")
	}
	b.WriteString("Ranked by agreement with the other models (the mean of their scores). Scores are put on [0, 1] for every debate, so a side bias of +0.10 is a tenth of the score range for the proposition.\n\n")
	b.WriteString("| model | debates | items | alpha with the others | agreement (ρ) | side bias | first-speaker bias | length bias (r) |\n|---|---:|---:|---:|---|---|---|---|\n")
	for _, m := range r.Models {
		alpha := "n/a"
		if m.Alpha != nil {
			alpha = fmt.Sprintf("%.3f", *m.Alpha)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s | %s |\n", escape.Markdown(m.Model), m.Debates, m.Items, alpha,
			FormatInterval(m.Agreement, false), FormatInterval(m.SideBias, true), FormatInterval(m.FirstSpeakerBias, true), FormatInterval(m.LengthBias, false))
	}
	if len(r.ByBias) > 0 {
		escaped := make([]string, len(r.ByBias))
		for i, m := range r.ByBias {
			escaped[i] = escape.Markdown(m)
		}
		fmt.Fprintf(&b, "\nFrom the least side bias to the most: %s.\n", strings.Join(escaped, ", "))
	}
	return b.String()
}

// CSV writes a row per item of j (RFC 4180, CRLF line ends, a header):
// its id, unit, side, title and length, its graph strength where the
// items form a graph, the official score, and a column per judge with a
// folder of its own, judge_NAME; a cell is empty where there is no score.
func CSV(j sm.Judgments) ([]byte, error) {
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.UseCRLF = true
	official := officialOf(j)
	var judges []sm.JudgeScores
	for _, js := range j.Judges {
		if js.Kind != sm.KindOfficial {
			judges = append(judges, js)
		}
	}
	header := []string{"id", "unit", "side", "title", "length"}
	if j.Graph {
		header = append(header, "graph_strength")
	}
	header = append(header, "official")
	for _, js := range judges {
		header = append(header, "judge_"+js.Name)
	}
	if err := w.Write(header); err != nil {
		return nil, err
	}
	strength := Strengths(j)
	num := func(m map[string]float64, id string) string {
		if v, ok := m[id]; ok {
			return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
		}
		return ""
	}
	for _, it := range j.Items {
		row := []string{it.ID, strconv.Itoa(it.Unit), it.Side, it.Title, strconv.Itoa(it.Length)}
		if j.Graph {
			row = append(row, num(strength, it.ID))
		}
		if official != nil {
			row = append(row, num(official.Final, it.ID))
		} else {
			row = append(row, "")
		}
		for _, js := range judges {
			row = append(row, num(js.Final, it.ID))
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return out.Bytes(), w.Error()
}
