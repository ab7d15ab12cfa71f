package statemachine

// PartIDs is a Protocol whose parts have ids of a form of its own, as
// dialectic's arguments have (prop_001): `moot show` says what is wrong
// with an id before it reads a debate, and which id a person most likely
// meant by one the debate does not hold.
type PartIDs interface {
	// CheckPartID says what is wrong with id as the id of a part; nil
	// when nothing is.
	CheckPartID(id string) error
	// PartIDsMeant returns the ids that id, as a person may type it
	// ("Prop-1"), most likely means, the likeliest first ("prop_001").
	PartIDsMeant(id string) []string
}

// ShowLayout is a Debate that lays out `moot show` in a form of its own,
// as dialectic's has always been laid out: a table of its parts under a
// header, and one part with its scores and their history. moot prints
// what it returns as it is, in place of what it prints of a Shower.
type ShowLayout interface {
	// PartList lays out the list of the debate's parts.
	PartList() PartList
	// ShowPart lays out the part called id, for a person (text) and for
	// `moot show --json`; ok is false when the debate has no such part.
	ShowPart(id string) (text string, json any, ok bool)
	// PartNoun names a part in the protocol's words, in the singular
	// ("argument").
	PartNoun() string
}

// PartList is the list of a debate's parts, as a ShowLayout lays it out.
type PartList struct {
	// Text is the list for a person; "" when the debate has no parts.
	Text string
	// JSON is the list for `moot show --json`.
	JSON any
	// None is what moot says, as a note, of a debate without parts.
	None string
}
