package moderated

import (
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// The folders of a debate.
const (
	MessagesDir = "messages"
	ScoresDir   = "scores"
)

// state is what debate.md's frontmatter holds.
type state struct {
	Protocol       string        `json:"protocol"`
	DebateID       string        `json:"debate_id"`
	Exchange       int           `json:"current_exchange"` // exchanges complete
	Step           int           `json:"current_step"`     // steps done: the index of the next slot
	Phase          string        `json:"current_phase"`
	RoundCount     int           `json:"round_count"`
	Format         string        `json:"debate_format"`
	Scoring        bool          `json:"scoring_enabled"`
	RoundSummaries bool          `json:"round_summaries_enabled"`
	FactChecker    bool          `json:"fact_checker_enabled"`
	Transcript     bool          `json:"transcript_enabled"`
	OutputFormat   string        `json:"output_format"`
	Criteria       []Criterion   `json:"scoring_criteria"`
	MaxTokens      MaxTokens     `json:"max_tokens"`
	Participants   []Participant `json:"participants"`
	Started        string        `json:"started"`
}

// Participant is one participant of the debate. Its id is fixed when the
// debate is made.
type Participant struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Role     string `json:"role"`
	Position string `json:"position,omitempty"`
}

// id8 is the first eight characters of the participant's id, as file
// names carry it.
func (p Participant) id8() string {
	if len(p.ID) < 8 {
		return p.ID
	}
	return p.ID[:8]
}

// fileRole is the role as message file names spell it, after the design.
func fileRole(role string) string {
	switch role {
	case RoleA, RoleB:
		return "position_advocate"
	case RoleFactChecker:
		return "fact_checker"
	}
	return "moderator"
}

// Message is one message of the debate, as its file holds it.
type Message struct {
	Number      int    `json:"number"`
	Participant string `json:"participant"`
	Name        string `json:"name"`
	Role        string `json:"role"`
	Kind        string `json:"kind"`
	Phase       string `json:"phase"`
	Round       int    `json:"round"`
	Turn        int    `json:"turn"`
	RespondsTo  int    `json:"responds_to,omitempty"`
	Model       string `json:"model"`
	Time        string `json:"time"`
	// Citations are the checks of the quotations of an advocate's
	// message that researched (see research.go).
	Citations []evidence.Check `json:"citations,omitempty"`
	Content   string           `json:"-"`
	file      string
}

// debate is a moderated debate as read from its files.
type debate struct {
	st     state
	front  frontmatter.Object
	motion string
	sched  []slot
	// messages by number; scores by the number of the message scored.
	messages map[int]Message
	scores   map[int]Score
	// gaps holds the scores recorded as missing (Score.Missing), by the
	// number of the message, apart from scores so that no mean counts
	// them.
	gaps map[int]Score
	// sources holds the pages the debate's research read, by URL.
	sources map[string]*evidence.Source
	// stray lists files of messages/ and scores/ that are not this
	// debate's, and unreadable ones, as problems.
	stray []sm.Problem
	tmpl  *templates.Set
	// panel is the judge panel debate.md names (nil: the moderator
	// scores); judges holds every folder under judgments/, by name.
	panel  []sm.Judge
	judges map[string]*judgeFolder
}

func (d *debate) participant(role string) (Participant, bool) {
	for _, p := range d.st.Participants {
		if p.Role == role {
			return p, true
		}
	}
	return Participant{}, false
}

func (d *debate) opponent(role string) string {
	if role == RoleA {
		return RoleB
	}
	return RoleA
}

func (d *debate) name(role string) string {
	if p, ok := d.participant(role); ok {
		return p.Name
	}
	return role
}

func (d *debate) buildSchedule() {
	d.sched = schedule(d.st.RoundCount, d.st.RoundSummaries, d.st.Scoring, d.st.FactChecker)
}

// checkState checks the settings of debate.md that the schedule and the
// prompts rest on.
func (d *debate) checkState() error {
	st := d.st
	switch {
	case st.Protocol != Name:
		return fmt.Errorf("field %q: %q, not %q", "protocol", st.Protocol, Name)
	case st.RoundCount < 1 || st.RoundCount > maxRounds:
		return fmt.Errorf("field %q: %d is outside 1 to %d", "round_count", st.RoundCount, maxRounds)
	case !validFormat(st.Format):
		return fmt.Errorf("field %q: %q is none of %s", "debate_format", st.Format, strings.Join(formats, ", "))
	case st.OutputFormat != "" && !validOutputFormat(st.OutputFormat):
		return fmt.Errorf("field %q: %q is none of %s", "output_format", st.OutputFormat, strings.Join(outputFormats, ", "))
	case len(st.Criteria) == 0:
		return fmt.Errorf("field %q: the rubric has no criteria", "scoring_criteria")
	case !tokenLimit(st.MaxTokens.Opening) || !tokenLimit(st.MaxTokens.Argument) || !tokenLimit(st.MaxTokens.Closing):
		return fmt.Errorf("field %q: each limit must be from 0 to %d", "max_tokens", maxTokenLimit)
	}
	seen := map[string]bool{}
	for i, c := range st.Criteria {
		if !criterionName().MatchString(c.Name) || seen[c.Name] {
			return fmt.Errorf("field %q: criterion %d: name %q is not a new lower-case name", "scoring_criteria", i+1, c.Name)
		}
		seen[c.Name] = true
		if !(c.Weight > 0 && c.Weight <= 100) {
			return fmt.Errorf("field %q: %s: weight %v is not above 0 and at most 100", "scoring_criteria", c.Name, c.Weight)
		}
	}
	roles := []string{RoleModerator, RoleA, RoleB}
	if st.FactChecker {
		roles = append(roles, RoleFactChecker)
	}
	ids := map[string]bool{}
	for _, r := range roles {
		p, ok := d.participant(r)
		if !ok {
			return fmt.Errorf("field %q: no participant has role %q", "participants", r)
		}
		if len(p.ID) < 8 || ids[p.id8()] {
			return fmt.Errorf("field %q: %s's id %q is too short or shares its first 8 characters", "participants", r, p.ID)
		}
		ids[p.id8()] = true
		if strings.TrimSpace(p.Name) == "" {
			return fmt.Errorf("field %q: %s has no name", "participants", r)
		}
		if (r == RoleA || r == RoleB) && strings.TrimSpace(p.Position) == "" {
			return fmt.Errorf("field %q: %s has no position", "participants", r)
		}
	}
	return nil
}

// stateKeys are the keys of debate.md moot writes, in order; any other
// key is kept where it is.
var stateKeys = []string{"protocol", "debate_id", "current_exchange", "current_step", "current_phase", "round_count",
	"debate_format", "scoring_enabled", "round_summaries_enabled", "fact_checker_enabled", "transcript_enabled", "output_format",
	"scoring_criteria", "max_tokens", "participants", "started"}

func (d *debate) renderState() ([]byte, error) {
	front, err := frontmatter.Merge(d.front, d.st, stateKeys)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, "# Motion\n\n"+d.motion+"\n")
}

var messageName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{3,})_([a-z_]+)_([0-9a-f]{8})\.([a-z]+)$`) })
var scoreName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{3,})_([0-9a-f]{8})\.([a-z]+)$`) })

func load(files fs.FS, tmpl *templates.Set) (*debate, error) {
	data, err := fs.ReadFile(files, sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d := &debate{messages: map[int]Message{}, scores: map[int]Score{}, tmpl: tmpl}
	front, body, err := sm.ParseState(data, &d.st, Name, "debate_id", "current_exchange", "current_step", "current_phase", "round_count", "participants")
	if err != nil {
		return nil, err
	}
	d.front = front
	if err := d.checkState(); err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d.motion = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "# Motion"))
	d.buildSchedule()
	if err := d.readMessages(files); err != nil {
		return nil, err
	}
	if err := d.readScores(files); err != nil {
		return nil, err
	}
	if err := d.readJudges(files); err != nil {
		return nil, err
	}
	if d.sources, err = evidence.ReadDir(files); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *debate) readMessages(files fs.FS) error {
	names, err := sm.FileNames(files, MessagesDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		file := MessagesDir + "/" + n
		m := messageName().FindStringSubmatch(n)
		if m == nil || m[4] != d.out() {
			d.stray = append(d.stray, sm.Problem{File: file, Message: "is not a message file (want NNN_role_id8." + d.out() + ")"})
			continue
		}
		data, err := fs.ReadFile(files, file)
		if err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		msg, err := messageMemo.Read(d.out(), data, func() (Message, error) {
			var msg Message
			_, body, err := decodeRecordInto(d.out(), data, contentKey, &msg)
			msg.Content = body
			return msg, err
		})
		if err != nil {
			d.stray = append(d.stray, sm.Problem{File: file, Message: err.Error()})
			continue
		}
		num, _ := strconv.Atoi(m[1])
		if msg.Number != num {
			d.stray = append(d.stray, sm.Problem{File: file, Message: fmt.Sprintf("number is %d, but the file name says %d", msg.Number, num)})
			continue
		}
		if _, dup := d.messages[num]; dup {
			d.stray = append(d.stray, sm.Problem{File: file, Message: fmt.Sprintf("a second file of message %d", num)})
			continue
		}
		msg.file = file
		d.messages[num] = msg
	}
	return nil
}

// messageMemo and scoreMemo keep the message and score files read, so
// that a load decodes only those that are new. Their records are only
// read: a Message's Citations, a Score's Names, Marks and Missing are
// shared by every load of the same bytes.
var (
	messageMemo sm.Memo[Message]
	scoreMemo   sm.Memo[Score]
)

func (d *debate) readScores(files fs.FS) error {
	scores, stray, err := d.readScoreDir(files, ScoresDir)
	if err != nil {
		return err
	}
	d.scores, d.gaps = map[int]Score{}, map[int]Score{}
	for n, sc := range scores {
		if sc.Missing != nil {
			d.gaps[n] = sc
		} else {
			d.scores[n] = sc
		}
	}
	d.stray = append(d.stray, stray...)
	return nil
}

// readScoreDir reads the score files of dir, scores/ or a judge's
// scores, by the number of the message scored; files that are not this
// debate's score files, or do not read, are problems.
func (d *debate) readScoreDir(files fs.FS, dir string) (map[int]Score, []sm.Problem, error) {
	names, err := sm.FileNames(files, dir)
	if err != nil {
		return nil, nil, err
	}
	scores := map[int]Score{}
	var stray []sm.Problem
	for _, n := range names {
		file := dir + "/" + n
		m := scoreName().FindStringSubmatch(n)
		if m == nil || m[3] != d.out() {
			stray = append(stray, sm.Problem{File: file, Message: "is not a score file (want NNN_id8." + d.out() + ")"})
			continue
		}
		data, err := fs.ReadFile(files, file)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", file, err)
		}
		sc, err := scoreMemo.Read(d.out(), data, func() (Score, error) { return parseScoreFile(d.out(), data) })
		if err != nil {
			stray = append(stray, sm.Problem{File: file, Message: err.Error()})
			continue
		}
		num, _ := strconv.Atoi(m[1])
		if sc.Message != num {
			stray = append(stray, sm.Problem{File: file, Message: fmt.Sprintf("message is %d, but the file name says %d", sc.Message, num)})
			continue
		}
		if prev, dup := scores[num]; dup {
			stray = append(stray, sm.Problem{File: file, Message: fmt.Sprintf("a second score of message %d, besides %s", num, prev.file)})
			continue
		}
		sc.file = file
		scores[num] = sc
	}
	return scores, stray, nil
}

// messageFile names the file of the message of slot s.
func (d *debate) messageFile(s slot) string {
	p, _ := d.participant(s.Role)
	return fmt.Sprintf("%s/%03d_%s_%s.%s", MessagesDir, s.Number, fileRole(s.Role), p.id8(), d.out())
}

// scoreFile names the file of the score of the message of slot s.
func (d *debate) scoreFile(s slot) string {
	p, _ := d.participant(s.Role)
	return fmt.Sprintf("%s/%03d_%s.%s", ScoresDir, s.Number, p.id8(), d.out())
}

// contentKey is the key of a message's content in a JSON message file.
const contentKey = "content"

// renderMessage writes a message file in output format f: its keys and
// its content.
func renderMessage(f string, m Message) ([]byte, error) {
	front, err := sm.FrontOf(m)
	if err != nil {
		return nil, err
	}
	return encodeRecord(f, front, contentKey, m.Content)
}

// doneUnits is how many exchanges are complete once step steps are done.
func (d *debate) doneUnits(step int) int {
	if step >= len(d.sched) {
		return d.st.RoundCount + 2
	}
	return d.sched[step].Exchange
}

func (d *debate) phaseAt(step int) string {
	if step >= len(d.sched) {
		return phaseComplete
	}
	return d.sched[step].Phase
}

// slotOf returns the slot of message number n.
func (d *debate) slotOf(n int) (slot, bool) {
	for _, s := range d.sched {
		if s.Number == n {
			return s, true
		}
	}
	return slot{}, false
}
