package refine

import (
	sm "github.com/moot-dev/moot/statemachine"
)

// This file is refine's side of research: in a debate run with
// --research the proposer and the synthesizer search and read before they
// answer, the quotations of their answers are checked against the pages
// they cite, and the checks, kept in the proposal's or synthesis's file
// ("citations"), are shown beside the text wherever a prompt quotes it
// (the skeptic's, the judge's).

// researching marks c as a call that researches.
func researching(c sm.Call) sm.Call {
	c.Researches()
	return c
}
