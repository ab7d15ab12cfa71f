package statemachine

// Unending is a Protocol whose debates may be made without an end (a
// Status whose Total is 0), as dialectic's are without --exchanges: `moot
// run --all` refuses such a debate, in the protocol's words.
type Unending interface {
	// NoEnd is the refusal of --all for a debate without an end, an
	// *InputError whose hint says how a debate is made with one.
	NoEnd() error
}
