package panel

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// The files and folders of a debate.
const (
	AspectsFile = "aspects.json"
	MessagesDir = "messages"
	AspectsDir  = "aspects"
	CruxDir     = "crux"
	CardsDir    = "cards"
	ShiftsFile  = "shifts.json"
	SummaryFile = "summary.json"
)

// Crux holds the settings of a crux room.
type Crux struct {
	MaxTurns   int `json:"max_turns"`
	LateFrom   int `json:"late_from"`
	ExitFrom   int `json:"exit_from"`
	ExitEvery  int `json:"exit_every"`
	Window     int `json:"window"`
	ExitWindow int `json:"exit_window"`
}

// DefaultCrux are the original's room settings.
var DefaultCrux = Crux{MaxTurns: 14, LateFrom: 4, ExitFrom: 3, ExitEvery: 2, Window: 4, ExitWindow: 6}

// Cursor is where the debate stands inside its stage.
type Cursor struct {
	Aspect   int `json:"aspect"`
	Mini     int `json:"mini"`
	RoomTurn int `json:"room_turn"`
}

// state is what debate.md's frontmatter holds.
type state struct {
	Protocol   string   `json:"protocol"`
	DebateID   string   `json:"debate_id"`
	Stage      string   `json:"stage"`
	Phase      string   `json:"phase"`
	Cursor     Cursor   `json:"cursor"`
	Personas   []string `json:"personas"`
	Aspects    int      `json:"aspects"`
	Minirounds int      `json:"minirounds"`
	Crux       Crux     `json:"crux"`
	Started    string   `json:"started"`
}

var stateKeys = []string{"protocol", "debate_id", "stage", "phase", "cursor", "personas", "aspects", "minirounds", "crux", "started"}

// Message is one persona's message: an opening, a take, a reply, a room
// position or turn, a closing. Its file holds these keys as frontmatter
// and the text as body.
type Message struct {
	ID      string `json:"id"`
	Persona string `json:"persona"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Aspect  int    `json:"aspect,omitempty"`
	Mini    *int   `json:"mini,omitempty"`
	Turn    *int   `json:"turn,omitempty"`
	ReplyTo string `json:"reply_to,omitempty"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Model   string `json:"model,omitempty"`
	// Missing, with status missing, is the record of a message whose
	// answers were refused after every repair in a run with --keep-going:
	// which call, each refused answer and what was wrong with it. No text
	// stands in for it.
	Missing *sm.Missing `json:"missing,omitempty"`
	// Citations are the checks of the message's quotations when its
	// persona researched (see research.go).
	Citations []evidence.Check `json:"citations,omitempty"`
	Content   string           `json:"-"`
}

// OK reports whether the message was spoken, not skipped.
func (m Message) OK() bool { return m.Status == statusOK }

const (
	statusOK      = "ok"
	statusSkipped = "skipped"
	statusMissing = "missing"
)

// debate is a panel debate as read from its files.
type debate struct {
	st       state
	front    frontmatter.Object
	topic    string
	personas []Persona
	// files holds every file of the debate's own folders and JSON files
	// by path; msgs the persona messages parsed from them.
	files map[string][]byte
	msgs  map[string]Message
	// stray are files that cannot be read as what their place says.
	stray []sm.Problem
	tmpl  *templates.Set
	// sources holds the pages the debate's research read, by URL.
	sources map[string]*evidence.Source
	// foreseen marks a debate Ahead foresaw: see Next.
	foreseen bool
}

func (d *debate) persona(id string) (Persona, bool) {
	for _, p := range d.personas {
		if p.ID == id {
			return p, true
		}
	}
	return Persona{}, false
}

func (d *debate) name(id string) string {
	if p, ok := d.persona(id); ok {
		return p.Name
	}
	return id
}

func (d *debate) clone() *debate {
	c := *d
	c.files = make(map[string][]byte, len(d.files)+4)
	for k, v := range d.files {
		c.files[k] = v
	}
	c.msgs = make(map[string]Message, len(d.msgs)+4)
	for k, v := range d.msgs {
		c.msgs[k] = v
	}
	return &c
}

// checkState checks the settings of debate.md the flow rests on.
// maxRoomTurns is the most turns a crux room may have, and the bound of
// every other number of the crux settings.
const maxRoomTurns = 40

// within reports whether n is from low to maxRoomTurns.
func within(n, low int) bool { return n >= low && n <= maxRoomTurns }

func (st state) check() error {
	c := st.Crux
	switch {
	case st.Protocol != Name:
		return fmt.Errorf("field %q: %q, not %q", "protocol", st.Protocol, Name)
	case len(st.Personas) < 2 || len(st.Personas) > maxPersonas:
		return fmt.Errorf("field %q: %d personas, want 2 to %d", "personas", len(st.Personas), maxPersonas)
	case st.Aspects < 1 || st.Aspects > maxAspects:
		return fmt.Errorf("field %q: %d is outside 1 to %d", "aspects", st.Aspects, maxAspects)
	case st.Minirounds < 1 || st.Minirounds > maxMinirounds:
		return fmt.Errorf("field %q: %d is outside 1 to %d", "minirounds", st.Minirounds, maxMinirounds)
	case c.MaxTurns < 2 || c.MaxTurns > maxRoomTurns || !within(c.ExitEvery, 1) || !within(c.ExitFrom, 0) ||
		!within(c.Window, 1) || !within(c.ExitWindow, 1) || !within(c.LateFrom, 0):
		return fmt.Errorf("field %q: want max_turns 2 to %d, exit_every, window and exit_window 1 to %[2]d, exit_from and late_from 0 to %[2]d", "crux", maxRoomTurns)
	}
	seen := map[string]bool{}
	for _, id := range st.Personas {
		if !personaID().MatchString(id) || seen[id] {
			return fmt.Errorf("field %q: %q is not a new persona id", "personas", id)
		}
		seen[id] = true
	}
	return nil
}

func (d *debate) renderState() ([]byte, error) {
	front, err := frontmatter.Merge(d.front, d.st, stateKeys)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, "# Topic\n\n"+d.topic+"\n")
}

// renderMessage writes a message file: its keys as JSON frontmatter, the
// text as body.
func renderMessage(m Message) ([]byte, error) {
	body := m.Content + "\n"
	if !m.OK() {
		body = ""
	}
	return sm.RenderFile(m, body)
}

// messageMemo keeps the message files read, so that a load decodes only
// those that are new. Their records are only read: a Message's Mini,
// Turn, Missing and Citations are shared by every load of the same bytes.
var messageMemo sm.Memo[Message]

func parseMessage(data []byte) (Message, error) {
	var m Message
	_, body, err := frontmatter.ParseInto(data, &m)
	if err != nil {
		return m, err
	}
	m.Content = strings.TrimSpace(body)
	if m.Status != statusOK && m.Status != statusSkipped && m.Status != statusMissing {
		return m, fmt.Errorf("status %q is none of %q, %q and %q", m.Status, statusOK, statusSkipped, statusMissing)
	}
	if (m.Status == statusMissing) != (m.Missing != nil) {
		return m, fmt.Errorf("status %q and the \"missing\" record go together", statusMissing)
	}
	return m, nil
}

// load reads a panel debate: debate.md, its personas and every file of
// its own folders.
func load(files fs.FS, tmpl *templates.Set) (*debate, error) {
	data, err := fs.ReadFile(files, sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d := &debate{files: map[string][]byte{}, msgs: map[string]Message{}, tmpl: tmpl}
	front, body, err := sm.ParseState(data, &d.st, Name, "debate_id", "stage", "phase", "personas", "aspects", "minirounds")
	if err != nil {
		return nil, err
	}
	d.front = front
	if err := d.st.check(); err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d.topic = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "# Topic"))
	for _, id := range d.st.Personas {
		file := PersonasDir + "/" + id + ".md"
		data, err := fs.ReadFile(files, file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w (debate.md names persona %q)", file, err, id)
		}
		p, err := ParsePersona(id+".md", data)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		d.personas = append(d.personas, p)
	}
	for _, f := range []string{AspectsFile, ShiftsFile, SummaryFile} {
		data, err := fs.ReadFile(files, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		d.files[f] = data
	}
	dirs := []string{MessagesDir, CardsDir}
	for k := 1; k <= d.st.Aspects; k++ {
		dirs = append(dirs, fmt.Sprintf("%s/a%d", AspectsDir, k), fmt.Sprintf("%s/a%d", CruxDir, k))
	}
	for _, dir := range dirs {
		if err := d.readDir(files, dir); err != nil {
			return nil, err
		}
	}
	if d.sources, err = evidence.ReadDir(files); err != nil {
		return nil, err
	}
	return d, nil
}

// readDir reads the files of dir; what cannot be read as a file is a
// problem of the debate.
func (d *debate) readDir(files fs.FS, dir string) error {
	entries, err := fs.ReadDir(files, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		p := dir + "/" + e.Name()
		data, err := fs.ReadFile(files, p)
		if err != nil {
			d.stray = append(d.stray, sm.Problem{File: p, Message: "cannot be read: " + err.Error()})
			continue
		}
		d.files[p] = data
		if path.Ext(p) == ".md" && (dir == MessagesDir || strings.HasPrefix(dir, CruxDir+"/")) {
			m, err := messageMemo.Read("", data, func() (Message, error) { return parseMessage(data) })
			if err != nil {
				d.stray = append(d.stray, sm.Problem{File: p, Message: err.Error()})
				continue
			}
			d.msgs[p] = m
		}
	}
	return nil
}
