package statemachine

// MaxUnits is the most units (exchanges, turns, rounds or stages) a run
// may be asked for, and the largest unit number a debate file may name: a
// file that claims more is treated as broken rather than trusted.
const MaxUnits = 99999

// Tallied is a Protocol of two sides whose debates run in exchanges, each
// argued and then judged, and keep a running total of each side's
// scores, as dialectic's do: `moot run` and `moot step` tell a run of one
// in those terms (the exchange argued or judged, each side's total and how
// many of its arguments are scored) rather than in units done. Its sides'
// roles are those of Sided, and its debates are TallyDebates.
type Tallied interface {
	Sided
	// FormatScore writes a score as the protocol writes it, such as
	// "+0.30".
	FormatScore(score float64) string
	// EndHint says how a debate gets an end, for `moot run --all` on one
	// that has none.
	EndHint() string
}

// TallyDebate is a debate of a Tallied protocol. Its Status counts the
// exchanges judged as Done, and the exchange it stands at is Done.
type TallyDebate interface {
	Debate
	// ID is the debate's id, as its state file keeps it.
	ID() string
	// Tally returns each side's running total.
	Tally() Tally
	// Argued reports that the exchange the debate stands at is argued
	// and waits for its judgment.
	Argued() bool
}

// Tally is the running total of both sides of a TallyDebate.
type Tally struct {
	Proposition SideTally `json:"proposition"`
	Opposition  SideTally `json:"opposition"`
}

// SideTally is one side's running total, and how many of its arguments
// are scored.
type SideTally struct {
	Total float64 `json:"total"`
	Count int     `json:"count"`
}
