package panel

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Shower = (*debate)(nil)

// takeName and roomName match the files of takes and of crux rooms.
var (
	takeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^a(\d+)-m(\d+)-`) })
	roomName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^` + CruxDir + `/a(\d+)/(pos-.*|t(\d+))$`)
	})
)

// partPlace orders the persona messages as they were spoken: the
// openings, then each aspect's takes by miniround, its room's positions
// and turns, then the closings. It returns the message's stage (the unit
// of `moot run`), its place within the stage and its id for `moot show`.
func partPlace(d *debate, p string) (stage, place int, id string) {
	name := strings.TrimSuffix(p, path.Ext(p))
	base := path.Base(name)
	switch {
	case strings.HasPrefix(name, MessagesDir+"/open-"):
		return 1, 0, base
	case strings.HasPrefix(name, MessagesDir+"/close-"):
		return d.st.Aspects + 2, 0, base
	}
	if m := takeName().FindStringSubmatch(base); m != nil && path.Dir(name) == MessagesDir {
		k, _ := strconv.Atoi(m[1])
		mini, _ := strconv.Atoi(m[2])
		return k + 1, mini, base
	}
	if m := roomName().FindStringSubmatch(name); m != nil {
		k, _ := strconv.Atoi(m[1])
		place := 1000
		if m[3] != "" {
			t, _ := strconv.Atoi(m[3])
			place = 2000 + t
		}
		return k + 1, place, fmt.Sprintf("a%d-%s", k, m[2])
	}
	return d.st.Aspects + 3, 0, name
}

type placedPart struct {
	sm.Part
	stage, place int
	file         string
}

func (d *debate) placedParts() []placedPart {
	out := make([]placedPart, 0, len(d.msgs))
	for p, m := range d.msgs {
		stage, place, id := partPlace(d, p)
		title := fmt.Sprintf("%s: %s", m.Name, m.Kind)
		if m.Status != statusOK {
			title += " (" + m.Status + ")"
		}
		out = append(out, placedPart{Part: sm.Part{ID: id, Unit: stage, Role: m.Persona, Title: title}, stage: stage, place: place, file: p})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.stage != b.stage {
			return a.stage < b.stage
		}
		if a.place != b.place {
			return a.place < b.place
		}
		return a.file < b.file
	})
	return out
}

// Parts lists the persona messages in the order they were spoken.
func (d *debate) Parts() []sm.Part {
	placed := d.placedParts()
	out := make([]sm.Part, len(placed))
	for i, p := range placed {
		out[i] = p.Part
	}
	return out
}

// Show returns the message called id ("open-mara", "a1-m0-theo",
// "a1-t03"): who said it, where, and what.
func (d *debate) Show(id string) (string, bool) {
	for _, p := range d.placedParts() {
		if p.ID != id && p.file != id {
			continue
		}
		m := d.msgs[p.file]
		var b strings.Builder
		fmt.Fprintf(&b, "%s · %s · %s\n", p.ID, m.Name, m.Kind)
		fmt.Fprintf(&b, "file: %s · model: %s\n", p.file, m.Model)
		if m.ReplyTo != "" {
			fmt.Fprintf(&b, "replies to: %s\n", m.ReplyTo)
		}
		if m.Status != statusOK {
			fmt.Fprintf(&b, "%s: %s\n", m.Status, m.Reason)
		}
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(m.Content, "\n"))
		return b.String(), true
	}
	return "", false
}
