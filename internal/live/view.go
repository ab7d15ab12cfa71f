package live

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/motion"
	"github.com/moot-dev/moot/internal/termwidth"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// Snapshot is what a watcher shows of a debate at one moment.
type Snapshot struct {
	Slug     string
	Motion   string
	Protocol string
	Status   sm.Status
	// Entries are the debate's committed contributions in order.
	Entries []Entry
	// Live is the run under way, nil when there is none.
	Live *State
	// Writer names the process writing the debate, when one holds its
	// lock (a writer that keeps no live file, such as process-judge).
	Writer *store.Holder
}

// Entry is one committed contribution: an argument, a turn, a message.
type Entry struct {
	ID    string
	Unit  int
	Role  string
	Title string
	Score *float64
	// For is the role the score counts for in the chart: Role, or the
	// role whose part the score judges.
	For string
}

// Load reads the debate at dir as `moot status` does, without the lock:
// through a snapshot of its files that a commit in progress cannot tear.
// An error may be a moment where the files are not yet readable; the
// caller tries again at the next change.
func Load(dir string, protocols sm.Protocols) (*Snapshot, error) {
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	state, err := d.ReadFile(sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	name, err := driver.ProtocolOf(state)
	if err != nil {
		return nil, err
	}
	p, err := protocols.Lookup(name)
	if err != nil {
		return nil, err
	}
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Slug: filepath.Base(dir), Protocol: p.Name(), Status: deb.Status(), Motion: Motion(state)}
	if sh, ok := deb.(sm.Shower); ok {
		s.Entries = entries(sh.Parts())
	}
	if s.Live, err = Read(d); err != nil {
		s.Live = nil // a live file being replaced: the next change reads it
	}
	s.Writer = d.Writer()
	return s, nil
}

// entries are the public parts of a debate as the chart counts them. A
// score given in a part of its own (forum's judge, refine's skeptic) is
// the score of the part just before it, in the same unit, by another
// role: the chart counts it for that role, unless the part says whom it
// counts for (Part.For).
func entries(parts []sm.Part) []Entry {
	var out []Entry
	for _, part := range parts {
		if part.Private != "" {
			continue
		}
		e := Entry{ID: part.ID, Unit: part.Unit, Role: part.Role, Title: part.Title, Score: part.Score, For: part.For}
		if e.For == "" {
			e.For = e.Role
			if n := len(out); e.Score != nil && n > 0 {
				if prev := out[n-1]; prev.Score == nil && prev.Unit == e.Unit && prev.Role != e.Role {
					e.For = prev.Role
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// Motion reads the motion from a state file's body: the text under its
// "# Motion" heading, as every protocol writes it.
func Motion(state []byte) string {
	_, body, err := frontmatter.Parse(state)
	if err != nil {
		return ""
	}
	if m := strings.TrimSpace(motion.Parse(body).Text); m != "" {
		return m
	}
	// A protocol that heads it otherwise (forum's "# Topic"): the first
	// paragraph under the first heading.
	var out []string
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "#") && len(out) > 0, t == "" && len(out) > 0:
			return strings.Join(out, " ")
		case strings.HasPrefix(t, "#"), t == "":
		default:
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// Width is the width Render fits its lines to when it is told none.
const Width = 80

// Render writes the view of s, fitted to width columns (0 for Width), as
// plain text: every text of the debate is made safe to print (no control
// character reaches the terminal) and cut to its line.
func Render(w io.Writer, s *Snapshot, width int, now time.Time) error {
	if width <= 0 {
		width = Width
	}
	width = max(width, 40)
	var b bytes.Buffer
	line := func(format string, args ...any) {
		b.WriteString(fit(fmt.Sprintf(format, args...), width))
		b.WriteByte('\n')
	}
	line("moot watch · %s (%s)", clean(s.Slug), s.Protocol)
	line("motion   %s", clean(s.Motion))
	st := s.Status
	progress := st.Progress() + " done"
	if st.Complete {
		progress += " · complete"
	} else if st.Phase != "" {
		progress += " · " + strings.ReplaceAll(st.Phase, "_", " ")
	}
	line("state    %s", clean(progress))
	if !st.Complete && st.Next != "" {
		line("next     %s", clean(st.Next))
	}
	for _, l := range st.Lines {
		line("%s %s", termwidth.Pad(clean(l.Label), 8), clean(l.Text))
	}
	switch {
	case s.Live != nil && len(s.Live.Calls) > 0:
		for i, c := range s.Live.Calls {
			label := ""
			if i == 0 {
				label = "asking"
			}
			who := clean(c.Role)
			if c.Model != "" {
				who += " on " + clean(c.Model)
			}
			line("%-8s %s · %s %d · %s", label, who, s.Live.UnitName, s.Live.Unit, seconds(now.Sub(c.Started)))
		}
	case s.Live != nil:
		line("asking   nobody: run %d (%s) is between calls", s.Live.PID, clean(s.Live.Command))
	case s.Writer != nil:
		line("writer   pid %d (%s)", s.Writer.PID, clean(s.Writer.Command))
	default:
		line("asking   nobody: no moot process is running this debate")
	}
	if len(s.Entries) > 0 {
		line("latest")
		from := max(0, len(s.Entries)-6)
		for _, e := range s.Entries[from:] {
			score := ""
			if e.Score != nil {
				score = " " + signed(*e.Score)
			}
			line("  %s %d · %s · %s %q%s", st.Unit, e.Unit, clean(e.Role), clean(e.ID), clean(e.Title), score)
		}
	}
	chart(&b, s, width)
	_, err := w.Write(b.Bytes())
	return err
}

// chart draws the scores of s, a row per role per unit (the last units
// that fit), as bars that grow right from the middle for a score above 0
// and left for one below.
func chart(b *bytes.Buffer, s *Snapshot, width int) {
	type key struct {
		unit int
		role string
	}
	sums := map[key]float64{}
	var roles []string
	var units []int
	peak := 0.0
	for _, e := range s.Entries {
		if e.Score == nil || math.IsNaN(*e.Score) || math.IsInf(*e.Score, 0) {
			continue
		}
		role := cmp.Or(e.For, e.Role)
		k := key{e.Unit, role}
		sums[k] += *e.Score
		if !slices.Contains(roles, role) {
			roles = append(roles, role)
		}
		if !slices.Contains(units, e.Unit) {
			units = append(units, e.Unit)
		}
	}
	if len(sums) == 0 {
		return
	}
	for _, v := range sums {
		peak = max(peak, math.Abs(v))
	}
	if peak == 0 {
		peak = 1
	}
	slices.Sort(units)
	const shown = 8
	if len(units) > shown {
		units = units[len(units)-shown:]
	}
	nameW := 0
	for _, r := range roles {
		nameW = max(nameW, termwidth.Width(clean(r)))
	}
	nameW = min(nameW, 14)
	half := max(4, min(20, (width-nameW-22)/2))
	b.WriteString(fit(fmt.Sprintf("scores by %s", clean(s.Status.Unit)), width) + "\n")
	totals := map[string]float64{}
	for _, u := range units {
		for _, r := range roles {
			v, ok := sums[key{u, r}]
			if !ok {
				continue
			}
			totals[r] += v
			n := int(math.Round(math.Abs(v) / peak * float64(half)))
			left, right := strings.Repeat(" ", half), strings.Repeat(" ", half)
			if v < 0 {
				left = strings.Repeat(" ", half-n) + strings.Repeat("█", n)
			} else {
				right = strings.Repeat("█", n) + strings.Repeat(" ", half-n)
			}
			row := fmt.Sprintf("  %4d %s %s│%s %s", u, termwidth.Pad(termwidth.Fit(clean(r), nameW), nameW), left, right, signed(v))
			b.WriteString(fit(row, width) + "\n")
		}
	}
	var parts []string
	for _, r := range roles {
		all := 0.0
		for k, v := range sums {
			if k.role == r {
				all += v
			}
		}
		parts = append(parts, clean(r)+" "+signed(all))
	}
	b.WriteString(fit("  total  "+strings.Join(parts, " · "), width) + "\n")
}

func signed(v float64) string {
	if v == 0 {
		return "0.00"
	}
	return fmt.Sprintf("%+.2f", v)
}

func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.0f s", d.Seconds())
}

// clean makes s safe to print on one line of a terminal: white space
// folded to single spaces, and every control character, bidi control and
// invalid byte shown as U+FFFD, so that no text of a debate can move the
// cursor, change colours or reorder the line.
func clean(s string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			space = true
			continue
		case r == utf8.RuneError && size <= 1, unsafe(r):
			r = utf8.RuneError
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// fit cuts s to width columns of a terminal, marking a cut with "…": a
// wide character (CJK, emoji) takes two.
func fit(s string, width int) string { return termwidth.Fit(s, width) }
