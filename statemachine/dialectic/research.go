package dialectic

import (
	"fmt"

	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// This file is dialectic's side of research: the URLs an answer cites,
// and the check of each ground that cites one against the page read, which
// the argument file records (frontmatter "grounds", and a Check line under
// each ground of its body, which the judge reads).

// cites lists the URLs the grounds of an answer cite, in order, once each.
func cites(answer []byte, side Side, exchange int, known Known) []string {
	subs, _ := ParseSubmissions(answer, side, exchange, known)
	var out []string
	seen := map[string]bool{}
	for _, s := range subs {
		for _, g := range s.Grounds {
			if u := evidence.URLOf(g.Source); u != "" && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// applyResearched is the argument step of a debate that researches: the
// step of ApplyArguments, each ground that cites a URL checked against
// the page read for it.
func (s *stepDebate) applyResearched(x int, answers map[string]sm.Answer) (*sm.Commit, error) {
	texts := map[Side][]byte{Prop: Unwrap(answers[Prop.Name()].Text), Opp: Unwrap(answers[Opp.Name()].Text)}
	known := s.deb.Known()
	ex, err := CheckExchange(s.deb, x, texts)
	if err != nil {
		if ex != nil {
			return &sm.Commit{Warnings: ex.Warnings, Soft: ex.Soft}, err
		}
		return nil, err
	}
	i := 0
	for _, side := range Sides() {
		a := answers[side.Name()]
		read := map[string]*evidence.Source{}
		for k := range a.Sources {
			read[a.Sources[k].URL] = &a.Sources[k]
		}
		subs, _ := ParseSubmissions(texts[side], side, x, known)
		for _, sub := range subs {
			arg := ex.Arguments[i]
			i++
			if !a.Researched {
				continue
			}
			checks := make([]evidence.Check, len(sub.Grounds))
			any := false
			for k, g := range sub.Grounds {
				u := evidence.URLOf(g.Source)
				if u == "" {
					continue
				}
				any = true
				src := read[u]
				if src == nil {
					src = s.sources[u]
				}
				checks[k] = evidence.CheckGround(g.Content, src)
				checks[k].URL = u
			}
			if any {
				arg.Grounds = checks
				arg.Body = renderBody(sub, checks)
			}
		}
	}
	return CommitArguments(s.deb, ex)
}

// CheckLine says what the check of a ground found, as the argument's body
// and the judge's prompt show it.
func CheckLine(c evidence.Check) string {
	switch c.Result {
	case "":
		return ""
	case evidence.Unreachable:
		if c.Copy != "" {
			return fmt.Sprintf("**Check:** unreachable: the page could not be read (%s)", c.Copy)
		}
		return "**Check:** unreachable: the page was not read"
	}
	return "**Check:** " + c.Line()
}

// VerifiedShare counts the grounds of side's arguments that cite a URL,
// and those of them verified.
func (d *Debate) VerifiedShare(side Side) (verified, checked int) {
	for _, a := range d.Arguments {
		if a.Side != side {
			continue
		}
		for _, c := range a.Grounds {
			if c.Result == "" {
				continue
			}
			checked++
			if c.Result == evidence.Verified {
				verified++
			}
		}
	}
	return verified, checked
}

// checkSources warns of a ground checked against a stored copy the
// debate does not hold (deleted, or never committed).
func (s *stepDebate) checkSources(out *sm.Findings) {
	var f findings
	for _, a := range s.deb.Arguments {
		f.missingSources(a, s.sources)
	}
	out.Warnings = append(out.Warnings, f.Warnings...)
}

// missingSources warns of each ground of a checked against a stored copy
// that sources does not hold.
func (f *findings) missingSources(a *Argument, sources map[string]*evidence.Source) {
	for i, c := range a.Grounds {
		if c.Result == "" || c.Result == evidence.Unreachable || c.URL == "" {
			continue
		}
		name := c.Copy
		if name == "" {
			name = c.URL
		}
		if sources[name] == nil {
			f.warn(ArgumentFile(a.ID), "ground %d was checked against %s, which the debate does not hold", i+1, c.Copy)
		}
	}
}
