package statemachine

import "github.com/moot-dev/moot/internal/evidence"

// Researches marks c as a call that researches (in a debate run with
// --research), whose answer cites the pages it quotes by their URLs, as
// evidence.Cited finds them.
func (c *Call) Researches() {
	c.Research = true
	c.Cites = func(a []byte) []string { return evidence.Cited(string(a)) }
}

// Citations checks the quotations of a, whose text is text, against the
// pages it read and held, the pages the debate holds by URL; nil for an
// answer that did not research.
func Citations(a Answer, text string, held map[string]*evidence.Source) []evidence.Check {
	if !a.Researched {
		return nil
	}
	return evidence.CheckAnswer(text, a.Sources, held)
}
