package statemachine

// StatusLayout is a Debate that lays out `moot status` in a form of its
// own, as dialectic's has always been laid out: its own first lines (its
// id and whole motion, say) in place of moot's debate and protocol lines,
// where it stands in its own words in place of moot's count of units, the
// command that takes its next step by hand beside the one that runs it
// with models, its own lines, and its own object for `moot status
// --json`. moot adds what it knows from outside the debate's files (who
// wrote its text, the people, the models' calls and cost, its writer).
type StatusLayout interface {
	// StatusLayout lays out the status of the debate in the folder dir,
	// with moot's facts about it.
	StatusLayout(dir string, moot StatusFacts) Layout
}

// Layout is a debate's status as a StatusLayout lays it out.
type Layout struct {
	// Head are the lines printed first.
	Head []StatusLine
	// Where says where the debate stands, printed after what moot says
	// of who wrote the debate's text and before the debate's Next.
	Where StatusLine
	// ByHand is the command line that takes the next step by hand, "" for
	// none; moot prints it under the one that runs the step with models.
	ByHand string
	// Lines are printed after the next step.
	Lines []StatusLine
	// JSON is what `moot status --json` prints.
	JSON any
}

// StatusLine is one labelled line of a Layout. Its text is wrapped to the
// width of a terminal when Wrap is set, each further line under an empty
// label; a line whose label is empty goes on the text of the line above.
type StatusLine struct {
	Label string
	Text  string
	Wrap  bool
}

// StatusFacts are what moot knows of a debate from outside its files, for
// a StatusLayout's object.
type StatusFacts struct {
	// Pending reports that an interrupted step is recorded, which the
	// next command that writes completes.
	Pending bool
	// Usage is the total of the debate's usage log.
	Usage any
	// Cost is the bill of the usage log, nil for none.
	Cost map[string]any
	// Writer is the process writing the debate now, nil for none.
	Writer any
	// Scripted says who wrote the text that moot's built-in model wrote,
	// "" when it wrote none.
	Scripted string
}
