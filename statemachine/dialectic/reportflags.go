package dialectic

import "github.com/moot-dev/moot/internal/escape"

// flags warns, under the scoreboard, of each judgment whose rescores
// look like a judge that obeyed instructions planted in an argument
// (dialectic's RescoreFlags): the scores above count them.
func (r *Report) flags(w *writer) {
	for _, flag := range r.an.Debate.RescoreFlags() {
		w.p("> **Warning:** %s.", escape.Markdown(flag))
	}
	w.flush(noFigure)
}
