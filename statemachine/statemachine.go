// Package statemachine is moot's step model: what every debate protocol is
// made of. It touches no file, clock or network.
//
// A debate is a directory of files. A Protocol reads them (Load) into a
// Debate, which says where it stands (Status), what is wrong with it
// (Check) and what it waits for (Next). What it waits for is a Step: zero
// or more model calls that may run in parallel, and a pure function, Apply,
// that turns their accepted answers into one Commit, the files the step
// writes. One driver runs the steps of every protocol the same way, and a
// step typed in by hand goes through the same Apply, so the rules, the
// repairs, the kept answers and the crash safety of the journal hold for
// every protocol by construction.
package statemachine

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/templates"
)

// StateFile is the file every protocol keeps its state in: a JSON
// frontmatter and a markdown body. A step that changes the state writes it
// last in its commit.
const StateFile = "debate.md"

// ProtocolKey is the key of the state file's frontmatter that names the
// debate's protocol. A debate without it is a dialectic debate, so that
// dialectic's own files need no change.
const ProtocolKey = "protocol"

// Default is the protocol of a debate whose state file names none.
const Default = "dialectic"

// Protocol is one kind of debate: its roles, how a new one is made, and
// how its files are read.
type Protocol interface {
	// Name is the protocol's name, as debate.md and --protocol spell it.
	Name() string
	// Summary describes the protocol in one line, for `moot protocols`.
	Summary() string
	// Roles lists the roles the protocol's calls are made for.
	Roles() []Role
	// Flags lists the flags of `moot new` the protocol takes besides
	// --motion.
	Flags() []Flag
	// New returns the files of a new debate. The state file is among them.
	New(in NewInput) ([]File, error)
	// Load reads a debate from its files. It reads all it will need, as
	// the files are read as one snapshot and may change afterwards.
	Load(files fs.FS) (Debate, error)
}

// Role is a part a model (or a person) plays in a protocol.
type Role struct {
	// Name is the role's name in files, prompts and flags
	// (--NAME-model).
	Name string
	// Description says what the role does, in a few words.
	Description string
	// Aliases are other names of the role's flags, kept for
	// compatibility (dialectic's --prop-model).
	Aliases []string
	// Group, when set, names the roles one flag sets together
	// (dialectic's --debater-model for both debaters).
	Group string
}

// Flag is one flag a protocol's `moot new` takes.
type Flag struct {
	Name        string
	Usage       string
	Placeholder string // an upper-case word, such as TURNS
	Repeated    bool   // given several times, as dialectic's --definition
	Default     string
	// File marks a flag whose value names a file: moot reads it and
	// passes its content in NewInput.Files, so that New stays pure.
	File bool
	// Bool marks a switch that takes no value: given, its value is
	// "true".
	Bool bool
	// Dir marks a flag whose value names a folder: moot reads the
	// regular files directly in it whose names end in Suffix and passes
	// them in NewInput.Dirs, so that New stays pure.
	Dir    bool
	Suffix string
}

// NewInput is what `moot new` was given.
type NewInput struct {
	Slug   string
	Motion string
	// Values holds each protocol flag that was given, by name, with its
	// values in order.
	Values map[string][]string
	// Files holds the content of each File flag that was given, by the
	// flag's name; Values keeps the path as it was given.
	Files map[string][]byte
	// Dirs holds the files of each Dir flag that was given, by the flag's
	// name, then by file name.
	Dirs map[string]map[string][]byte
	Now  time.Time
	// SearchConfigured reports that a search provider is configured
	// (MOOT_SEARCH), so that a protocol whose input asks for research
	// (forum's web_research) may turn it on.
	SearchConfigured bool
}

// Value returns the last value given for flag, or its default.
func (in NewInput) Value(f Flag) string {
	if v := in.Values[f.Name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return f.Default
}

// File is a file of a debate, by its slash-separated path inside the
// debate directory.
type File struct {
	Name string
	Data []byte
}

// Debate is a debate read from its files.
type Debate interface {
	// Status says where the debate stands.
	Status() Status
	// Check lists what is wrong with the files. A debate with problems
	// takes no step.
	Check() Findings
	// Next returns the step the debate waits for, or nil when it is
	// complete.
	Next() (*Step, error)
}

// Status is where a debate stands.
type Status struct {
	// Unit is what `moot run N` counts, in the singular ("exchange").
	Unit string
	// Done is how many units are complete.
	Done int
	// Total is how many units a complete debate has; 0 when the protocol
	// has no end and the caller decides when to stop.
	Total int
	// Closing, when set, names a last unit that is not one of Unit, such
	// as forum's "the verdict" or refine's "the synthesis": it is counted
	// in Done and Total, as `moot run N` counts it, but Progress shows it
	// apart from the turns or rounds.
	Closing string
	// AtMost reports that Total is the most units the debate may take: a
	// stop rule may end it sooner (refine's rounds).
	AtMost bool
	// Complete reports that the debate has reached its end.
	Complete bool
	// Phase names what the debate waits for, in the protocol's words.
	Phase string
	// Next says what the next step does, in a sentence.
	Next string
	// Lines are more of the status, a label and a text each.
	Lines []Line
	// Data holds more of the status for scripts, by the key `moot status
	// --json` gives it, such as running scores.
	Data map[string]any
}

// Progress says how far the debate has come, in words: "3 of 10
// exchanges", "8 of 8 turns and the verdict", "2 of at most 5 rounds,
// then the synthesis". A protocol with no end says "3 exchanges".
func (s Status) Progress() string {
	units, closing := s.Parts()
	return units + closing
}

// Count is Progress without the unit's name, for a line labelled with it:
// "3 of 10", "8 of 8 and the verdict".
func (s Status) Count() string {
	units, closing := s.parts(false)
	return units + closing
}

// Parts is Progress in two: the units ("8 of 8 turns") and what is said
// of the closing unit (" and the verdict", ", then the verdict"), empty
// without one.
func (s Status) Parts() (units, closing string) { return s.parts(true) }

func (s Status) parts(named bool) (string, string) {
	done, total := s.Done, s.Total
	closed := false
	if s.Closing != "" && total > 0 {
		total--
		if done > total {
			done, closed = total, true
		}
	}
	unit := func(n int) string {
		if !named {
			return ""
		}
		return " " + plural(s.Unit, n)
	}
	if total <= 0 && s.Closing == "" {
		return fmt.Sprintf("%d%s", done, unit(done)), ""
	}
	most := ""
	if s.AtMost && !s.Complete {
		most = "at most "
	}
	text := fmt.Sprintf("%d of %s%d%s", done, most, total, unit(total))
	switch {
	case s.Closing == "":
		return text, ""
	case closed:
		return text, " and " + s.Closing
	default:
		return text, ", then " + s.Closing
	}
}

// plural is unit, made plural unless n is 1.
func plural(unit string, n int) string {
	if n == 1 || unit == "" {
		return unit
	}
	return unit + "s"
}

// Line is one labelled line of a status.
type Line struct {
	Label string
	Text  string
}

// Findings is what a check found.
type Findings struct {
	// Problems make the debate unsafe to build on: a step is refused
	// until they are fixed.
	Problems []Problem `json:"problems"`
	// Warnings are irregularities that change no state.
	Warnings []Problem `json:"warnings"`
}

// OK reports whether there are no problems; warnings do not count.
func (f Findings) OK() bool { return len(f.Problems) == 0 }

// Problemf adds a problem of file to f, its message formatted as by
// fmt.Sprintf.
func (f *Findings) Problemf(file, format string, args ...any) {
	f.Problems = append(f.Problems, Problem{File: file, Message: fmt.Sprintf(format, args...)})
}

// Problem is one finding about one file of the debate.
type Problem struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.File == "" {
		return p.Message
	}
	return p.File + ": " + p.Message
}

// Step is what a debate waits for.
type Step struct {
	// Key and a call's ID together name the call within the debate, such
	// as "r03-speak" and "alpha": an answer accepted for the call but not
	// yet committed is kept under that name, so that a run that was
	// interrupted does not pay for it again.
	Key string
	// Unit is the number of the unit the step belongs to.
	Unit int
	// Calls are asked in parallel. A step without calls is applied at
	// once.
	Calls []Call
	// Begins are events that say what the step begins (a round, the
	// synthesis), emitted before its calls are asked, whether or not
	// it is then committed.
	Begins []Event
	// Apply turns the accepted answers, by call ID, into the step's
	// commit. It is pure: the same answers and time give the same commit.
	// It refuses answers that break a rule with a *Refused error.
	Apply func(answers map[string]Answer, now time.Time) (*Commit, error)
}

// Call is one request to a model for a step.
type Call struct {
	// ID names the call within its step.
	ID string
	// Role is the role the call is made for.
	Role string
	// Kind names what the call asks of its role when the role is asked
	// more than one kind of thing, such as forum's "plan" or panel's
	// "take"; "" when the role says it all. With Role it keys a
	// protocol's script for moot's built-in model (Scripted).
	Kind string
	// Model, when set, is the model that answers in place of the role's:
	// a judge of a panel, or of a re-judging. The role's other settings
	// (temperature, answer length) hold.
	Model string
	// Messages is the conversation so far, the new request last.
	Messages []Message
	// Marks are where the parts of Messages that the role's calls share
	// end, earliest first: where this prompt stops repeating the role's
	// previous prompt, and where the part that the role's next prompt
	// will repeat ends. A run that marks prompts for caching (moot run
	// --cache-marks) sends the last of them as cache breakpoints; none
	// leaves the call unmarked. They never change what the model reads.
	Marks []Mark
	// Schema, when not nil, asks for a JSON answer of that JSON-schema
	// shape, named SchemaName; nil asks for text.
	Schema     map[string]any
	SchemaName string
	// Validate checks an answer before it is kept; nil accepts any
	// answer that is not empty. Its errors are sent back to the model.
	Validate func(answer []byte) Report
	// Repair is the message that sends errors back to the model; nil
	// uses a plain list of them.
	Repair func(errs []string) (Message, error)
	// Skippable calls are recorded as skipped when every repair has
	// failed, instead of refusing the step.
	Skippable bool
	// Missable calls are ones the debate can do without, such as a
	// judge's score: in a run with --keep-going, a missable call whose
	// answers were refused after every repair is answered with
	// Answer.Missing, and the step records the gap instead of stopping
	// the run. Without --keep-going the run stops, as for any call.
	Missable bool
	// Repairs, when above 0, caps how many times this call's answer is
	// sent back: at most Repairs times, fewer if the user's --repairs is
	// lower. 0 leaves it to --repairs alone.
	Repairs int
	// MaxTokens is the call's default answer length; a setting of the
	// user's replaces it. 0 leaves it to the server.
	MaxTokens int
	// Embed, when not empty, makes the call a request for the
	// embeddings of these texts instead of a chat: its answer is the JSON
	// of an Embeddings. Messages, Schema, Validate and Repair are unused.
	Embed []string
	// Temperature is the call's default sampling temperature; a setting
	// of the user's replaces it. nil leaves it to the server.
	Temperature *float64
	// Research marks a call whose role argues: in a debate run with
	// research on, it is offered the tools search and read, and its
	// answer comes with the pages it read (Answer.Sources).
	Research bool
	// Cites, when set, lists the URLs an answer cites, which are read
	// (if the research has not read them) so that Apply can check the
	// answer's quotes against them.
	Cites func(answer []byte) []string
	// Choices help a person who answers the call by hand (moot run
	// --human): the values a field of the answer may take, listed in the
	// answer form, by the field's path, its names from the top joined by
	// dots ("attacks.target_id"). They are hints: Validate decides.
	Choices map[string][]string
	// Rows fill in the person's form: a list whose items have the field
	// at a path ("scores.argument_id") starts with an item per value,
	// that field filled in with it, such as a line per argument to score.
	Rows map[string][]string
}

// Scripted is a protocol that ships a script for moot's built-in model
// (--model builtin, moot demo): its answer to each call, found by the
// call's Role and Kind, never by the wording of its prompts, so that a
// template reworded by a user or a release still gets its answer.
type Scripted interface {
	Script(call ScriptCall) (string, error)
}

// ScriptCall is a call as a protocol's script reads it.
type ScriptCall struct {
	Role, Kind string
	// Messages are the call's messages as sent.
	Messages []Message
	// Repair reports that an answer to them was sent back for repair:
	// the script then answers by the rules.
	Repair bool
}

// Mark is the end of a part of a call's prompt that a provider's prompt
// cache may keep: the first Offset bytes of the content of message
// Message, and every message before it.
type Mark struct {
	Message, Offset int
}

// ConversationMarks are the marks of a prompt that repeats the role's
// previous prompt whole and adds its answer and a new request (forum's
// conversations): the end of the previous request, the third message from
// the end (the system prompt's end in the role's first prompt), then the
// end of the new request, all of which the role's next prompt repeats.
func ConversationMarks(msgs []Message) []Mark {
	var out []Mark
	prev := len(msgs) - 3
	if prev < 0 {
		prev = 0
	}
	for _, i := range []int{prev, len(msgs) - 1} {
		if i >= 0 && i < len(msgs) && msgs[i].Content != "" && (len(out) == 0 || out[len(out)-1].Message < i) {
			out = append(out, Mark{Message: i, Offset: len(msgs[i].Content)})
		}
	}
	return out
}

// Embeddings is the answer of a call that asks for embeddings: a vector
// per text, in the order of Call.Embed, or why the endpoint gave none
// (Unavailable), in which case the step may rank its texts otherwise.
type Embeddings struct {
	Model       string      `json:"model"`
	Vectors     [][]float64 `json:"vectors,omitempty"`
	Unavailable string      `json:"unavailable,omitempty"`
}

// Message is one message of a conversation.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// Report is what the validation of one answer found.
type Report struct {
	Errors   []string
	Warnings []string
}

// OK reports whether the answer may be kept.
func (r Report) OK() bool { return len(r.Errors) == 0 }

// Answer is the accepted answer of a call.
type Answer struct {
	Text []byte
	// Model is the model that answered; empty for an answer handed in by
	// hand.
	Model string
	// Skipped, when not empty, says why a skippable call has no answer.
	Skipped string
	// Missing, when not nil, says that a missable call has no answer in a
	// run with --keep-going: Text is then empty, and Apply records the
	// gap, inventing no value.
	Missing *Missing
	// Attempts is how many times the model was asked for the answer,
	// repairs included: 1 for an answer accepted at once, 0 for one handed
	// in by hand.
	Attempts int
	// Elapsed is the model time the answer took, repairs included; 0 for
	// an answer handed in by hand.
	Elapsed time.Duration
	// Researched is set for the answer of a Research call in a debate run
	// with research on: Apply then checks what it cites against Sources,
	// the pages read for it (those it cites included). The driver stores
	// each of them as evidence.Name(URL) with the step's commit.
	Researched bool
	Sources    []evidence.Source
}

// Missing is the record of a missable call that got no acceptable answer
// after its repairs, in a run with --keep-going: which call, on which
// model, and what was wrong with each answer. No value stands in for the
// answer.
type Missing struct {
	// Call names the call: its step's key and its ID, as "r03-speak/alpha".
	Call string `json:"call"`
	Role string `json:"role"`
	// Model is the model that answered; Answers are its answers in
	// order, each with the problems it was refused for.
	Model   string          `json:"model"`
	Answers []MissingAnswer `json:"answers"`
	// Note says, in words, that no value was invented for the call.
	Note string `json:"note"`
}

// MissingAnswer is one refused answer of a missing call.
type MissingAnswer struct {
	Answer   string   `json:"answer"`
	Problems []string `json:"problems"`
}

// MissingNote is the Note of every Missing.
const MissingNote = "no value was invented: the debate went on without this answer (moot run --keep-going); moot run --retry-missing asks for it again"

// Filler is a Debate that can ask again for the missing calls its files
// record, for `moot run --retry-missing`.
type Filler interface {
	// Gaps lists the missing calls, in the order they were made, each
	// by the call its Missing names.
	Gaps() []string
	// Fill returns the step that asks again for the missing call named
	// gap, as it was asked (its conversation as it stood then). Its
	// commit writes the answer where the gap was recorded.
	Fill(gap string) (*Step, error)
}

// Commit is what a step writes.
type Commit struct {
	// Files are written as one commit, in order, the state file last.
	Files []File
	// Events say what the step did, for progress output.
	Events []Event
	// Warnings are notices about the answers that did not refuse them.
	Warnings []string
	// Soft holds the warnings of Warnings that only say a text is longer
	// or shorter than advised.
	Soft []string
}

// Event is one thing a step did.
type Event struct {
	Kind    string // such as "argued" or "scored"
	Role    string
	ID      string
	Title   string
	Score   *float64
	Message string
	// Data holds more about the event for scripts, by the key the JSON
	// event stream gives it.
	Data map[string]any
	// Ends marks the event that completes a unit; the driver adds to it
	// what the unit's model calls cost.
	Ends bool
}

// Refused is the error of a step that broke a rule or came at the wrong
// time. Nothing is written.
type Refused struct {
	Reasons []string
	// Role is set when a role's answer broke a rule: the first such role,
	// in the order of the step's calls. RoleReasons are then that role's
	// problems alone, without its name in front.
	Role        string
	RoleReasons []string
	// Answer is set when an answer broke a rule, as opposed to a step that
	// came at the wrong time.
	Answer bool
}

func (r *Refused) Error() string {
	if len(r.Reasons) == 1 {
		return "step refused: " + r.Reasons[0]
	}
	return fmt.Sprintf("step refused: %d problems:\n  %s", len(r.Reasons), strings.Join(r.Reasons, "\n  "))
}

// Protocols is the set of protocols a moot binary knows.
type Protocols []Protocol

// Lookup returns the protocol called name; "" names the default.
func (ps Protocols) Lookup(name string) (Protocol, error) {
	if name == "" {
		name = Default
	}
	for _, p := range ps {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, &UnknownProtocolError{Name: name, Known: ps.Names()}
}

// Names lists the protocols' names in order.
func (ps Protocols) Names() []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name()
	}
	return names
}

// UnknownProtocolError is the error of a protocol name no protocol has.
type UnknownProtocolError struct {
	Name  string
	Known []string
}

func (e *UnknownProtocolError) Error() string {
	return fmt.Sprintf("no protocol %q (moot knows %s)", e.Name, strings.Join(e.Known, ", "))
}

// Reporter is a Debate that writes its own report: the files `moot
// report` writes, README.md among them. They are derived from the debate's
// files and never read back as state.
type Reporter interface {
	Report() ([]File, error)
}

// FilesChecker is a Protocol that checks a debate's files itself, those
// that Load could not read included: a file it cannot parse is a problem
// that names the file, where Load would fail, as dialectic's check does.
// `moot check` asks it in place of Load and Check.
type FilesChecker interface {
	// CheckFiles checks the debate in files. Read says in a few words
	// what it read, for check's last line ("12 argument files"); "" leaves
	// it to the protocol's name. An error is one of reading, not of the
	// files' content.
	CheckFiles(files fs.FS) (f Findings, read string, err error)
}

// SetupChecker is a Protocol that checks its own setup (its prompt
// templates, say) before a run pays for any call.
type SetupChecker interface {
	CheckSetup() error
}

// HTMLReporter is a Reporter whose report also comes as one self-contained
// HTML page, for `moot report --html`.
type HTMLReporter interface {
	ReportHTML() ([]byte, error)
}

// Addenda are what moot adds to a debate's report from outside the
// debate's own files.
type Addenda struct {
	// Note is a sentence the report must not be read without (that moot's
	// built-in model wrote the debate's text), "" for none.
	Note string
	// Sections are moot's own sections in markdown, in order, each ending
	// in a line break: the judges compared, the cost, who took part.
	Sections []string
	// Narrative is the file a Narrated debate keeps its model-written
	// analysis in, as CheckNarrative accepted it; nil for none.
	Narrative []byte
}

// AddendaReporter is a Reporter that places moot's addenda in its report
// itself. moot puts the note of any other report under its first line and
// its sections at its end.
type AddendaReporter interface {
	ReportWith(Addenda) ([]File, error)
	// ReportHTMLWith is ReportWith's report as one self-contained HTML
	// page.
	ReportHTMLWith(Addenda) ([]byte, error)
}

// Narrated is a Debate whose report can carry an analysis that a model
// wrote, for `moot report --narrative`. The analysis is kept in a file of
// the debate, so that later reports carry it without asking again.
type Narrated interface {
	// NarrativeFile names the file that keeps the analysis.
	NarrativeFile() string
	// NarratorModel names the model the debate would have write the
	// analysis (its judge's, say); "" for moot's default.
	NarratorModel() string
	// NarrativePrompt is what the model is asked; an error says why there
	// is nothing to analyse yet.
	NarrativePrompt() (string, error)
	// Narrative reads the answer of model to the prompt and returns the
	// file that keeps it, and a warning when it is kept in spite of a
	// flaw; an error refuses it.
	Narrative(answer, model string) (data []byte, warning string, err error)
	// CheckNarrative reads a kept file: an error says what is wrong with
	// it.
	CheckNarrative(data []byte) error
}

// Exporter is a Debate that exports itself in formats of its own, for
// `moot export --format NAME`.
type Exporter interface {
	// Formats lists the formats, the first being the default.
	Formats() []Format
	// Export returns the debate in the format called name.
	Export(name string) ([]byte, error)
}

// Format is one format of an Exporter.
type Format struct {
	Name  string // as --format spells it, such as "csv"
	Usage string // what it holds, in a few words
	Ext   string // the usual file name extension, without the dot
}

// Commander is a Protocol with commands of its own, such as a command that
// lists a protocol's built-in personas. moot adds them to its own.
type Commander interface {
	Commands() []Command
}

// Command is one command a protocol adds to moot. It reads no debate and
// touches no file: it writes what it has to say to w.
type Command struct {
	Name      string
	Usage     string // one line, for `moot help`
	ArgsUsage string // such as "[NAME]"
	Run       func(args []string, w io.Writer) error
}

// FormatLister is a Protocol whose debates are Exporters: it lists the
// formats they export without a debate at hand, for `moot export --help`.
type FormatLister interface {
	Formats() []Format
}

// FolderMaker is a Protocol whose new debates start with folders that may
// be empty, as dialectic's start with arguments/.
type FolderMaker interface {
	Folders() []string
}

// MotionGiver is a Protocol whose own flags may give a new debate its
// motion when --motion is absent, as forum's --cast gives its topic.
type MotionGiver interface {
	// MotionOf returns the motion in's flags give, "" when they give
	// none; an error is about in, as New's are.
	MotionOf(in NewInput) (string, error)
}

// InputError is an error of New about what `moot new` was given. Every
// error of New is about its input, as New is pure; an InputError also
// names the flag at fault and may give a hint.
type InputError struct {
	Flag string // without the dashes; "" when no one flag is at fault
	Err  error
	Hint string
}

func (e *InputError) Error() string {
	if e.Flag == "" {
		return e.Err.Error()
	}
	return "--" + e.Flag + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// Shower is a Debate whose parts `moot show` lists, a line each, and shows
// one at a time, such as forum's calls or moderated's messages.
type Shower interface {
	// Parts lists the debate's committed parts in order.
	Parts() []Part
	// Show returns the part called id in full, as text for a person to
	// read; ok is false when the debate has no such part.
	Show(id string) (text string, ok bool)
}

// Part is one part of a debate, as `moot show` lists it.
type Part struct {
	ID    string `json:"id"`
	Unit  int    `json:"unit"`
	Role  string `json:"role"`
	Title string `json:"title"`
	// Private names the role the part is private to; "" when it is
	// public.
	Private string `json:"private,omitempty"`
	// Score is the part's score, when it has one.
	Score *float64 `json:"score,omitempty"`
	// For, when set, names the role the part's score counts for, as a
	// dialectic argument's counts for its side. Empty, a reader that
	// charts scores by role decides: a score given in a part of its own
	// (forum's judge) counts for the part before it.
	For string `json:"-"`
}

// JudgeContexter is a Protocol whose judge may read a debate in more than
// one way, as dialectic's does (moot run --judge-context): what it judges
// and what that answers in full and the rest as an index, or every
// argument in full. The context a run is given is stored in the state
// file's settings, so that later runs keep it.
type JudgeContexter interface {
	// ParseJudgeContext checks a context's name as a person writes it;
	// "" names the default. It returns the name as the protocol spells
	// it.
	ParseJudgeContext(name string) (string, error)
	// WithJudgeContext returns the protocol whose judge reads the debate
	// in the context named name, one ParseJudgeContext returned.
	WithJudgeContext(name string) Protocol
}

// Templated is a Protocol whose prompts come from templates a user may
// replace (a debate's templates/ folder, moot run --templates).
type Templated interface {
	// WithTemplates returns the protocol that writes its prompts from t.
	WithTemplates(t *templates.Set) Protocol
}

// Leader is a Debate that says in a few words who leads it, or how it came
// out once complete, for the lists of every debate under a root (`moot
// list`, `moot serve`): "proposition by 0.30", "Maren (for) won, 7 to 6",
// "score 6/10".
type Leader interface {
	Leader() string
}

// Demoed is a Protocol with a demo debate of its own, which `moot demo`
// makes and runs with moot's built-in model. A protocol without one is
// demonstrated on a motion of moot's with its defaults.
type Demoed interface {
	Demo() Demo
}

// Demo is the debate `moot demo` makes of a protocol.
type Demo struct {
	// Args are the arguments of `moot new` after the debate's name, such
	// as "--motion" and its text.
	Args []string
	// Parts names the folder that holds the debate's parts, such as
	// "arguments/", and PartsAre says what is in it, for the demo's
	// summary; "" leaves the line out.
	Parts, PartsAre string
	// End are the arguments of `moot new` that give a debate an end, for
	// the demo's closing lines, which make a debate with a real model and
	// run it to its end (--all): set by a protocol whose debates have none
	// unless asked (an Unending one), such as dialectic's "--exchanges",
	// "3"; nil when its debates end by themselves.
	End []string
}
