package statemachine

// Sided is a Protocol whose debates have two sides that models take, so
// that a tournament can pair models on them, each side on its own model.
type Sided interface {
	// SideRoles returns the role that argues for the motion and the one
	// that argues against it.
	SideRoles() (proposition, opposition string)
}

// The results of an Outcome.
const (
	WinProposition = "proposition"
	WinOpposition  = "opposition"
	Draw           = "draw"
)

// Outcome is how a debate came out.
type Outcome struct {
	// Winner is WinProposition, WinOpposition or Draw; "" while the debate
	// has no result.
	Winner string `json:"winner"`
	// Proposition and Opposition are the sides' scores in the protocol's
	// own terms (dialectic's totals, forum's running scores).
	Proposition float64 `json:"proposition"`
	Opposition  float64 `json:"opposition"`
	// First is the side that spoke first; "" when the sides speak
	// together, as in dialectic.
	First string `json:"first,omitempty"`
	// Columns are more of the result, by column name, for a tournament's
	// export.
	Columns map[string]string `json:"columns,omitempty"`
}

// Outcomer is a Debate with an outcome once it is complete.
type Outcomer interface {
	Outcome() Outcome
}
