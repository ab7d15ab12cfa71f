package panel

import (
	"encoding/json"
	"fmt"
	"maps"
	pathpkg "path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/frontmatter"

	sm "github.com/moot-dev/moot/statemachine"
)

// Check lists what is wrong with the files: unreadable files, a message
// whose keys disagree with its place, and a debate.md whose stage, phase
// or cursor is not where the files say the debate stands.
func (d *debate) Check() sm.Findings {
	var f sm.Findings
	f.Problems = append(f.Problems, d.stray...)
	if data, ok := d.files[AspectsFile]; ok {
		if _, errs := parseAspects(data, d.st.Aspects); len(errs) > 0 {
			f.Problemf(AspectsFile, "%s", strings.Join(errs, "; "))
		}
	}
	// Every JSON file holds each key once, at any depth.
	for path, data := range d.files {
		if !strings.HasSuffix(path, ".json") {
			continue
		}
		if !json.Valid(data) {
			f.Problemf(path, "is not valid JSON")
		} else if err := frontmatter.CheckDuplicates(data); err != nil {
			f.Problemf(path, "%v", err)
		}
	}
	for path, m := range d.msgs {
		want := strings.TrimSuffix(path[strings.LastIndex(path, "/")+1:], ".md")
		switch {
		case strings.HasPrefix(path, CruxDir+"/"):
			want = fmt.Sprintf("a%d-%s", m.Aspect, want)
		}
		if m.ID != want {
			f.Problemf(path, "id is %q, but its place makes it %q", m.ID, want)
		}
		p, ok := d.persona(m.Persona)
		if !ok {
			f.Problemf(path, "persona %q is not on the panel", m.Persona)
		} else if m.Name != p.Name {
			f.Problemf(path, "name is %q, but persona %q is named %q", m.Name, p.ID, p.Name)
		}
		if who, ok := d.speakerOf(path); ok && who != m.Persona {
			f.Problemf(path, "persona is %q, but its place makes it %q's", m.Persona, who)
		}
		if kinds := kindsAt(path); !slices.Contains(kinds, m.Kind) {
			f.Problemf(path, "kind is %q, but its place makes it %s", m.Kind, strings.Join(kinds, " or "))
		}
		if m.OK() && m.Content == "" {
			f.Problemf(path, "has status ok but no text")
		}
	}
	now := d.where()
	if d.st.Stage != now.stage || d.st.Phase != now.phase || d.st.Cursor != now.cursor() {
		f.Problemf(sm.StateFile, "says stage %q, phase %q, cursor %+v, but the files stand at stage %q, phase %q, cursor %+v",
			d.st.Stage, d.st.Phase, d.st.Cursor, now.stage, now.phase, now.cursor())
	}
	for k := 1; k <= d.st.Aspects; k++ {
		x, ok := d.detection(k)
		if d.has(detectionPath(k)) && !ok {
			f.Problemf(detectionPath(k), "does not read as a disagreement check")
		}
		if !x.Spawn() {
			for path := range d.files {
				if strings.HasPrefix(path, fmt.Sprintf("%s/a%d/", CruxDir, k)) {
					f.Problemf(path, "aspect %d has no crux room", k)
				}
			}
		}
		if data, ok := d.files[cardPath(k)]; ok && x.Spawn() {
			if c, ok := d.card(k); !ok || !validKind(c.Kind) {
				f.Problemf(cardPath(k), "is not a card with a kind of %s (%d bytes)", strings.Join(cardKinds, ", "), len(data))
			} else {
				for _, msg := range checkCard(c, k, x.Pair) {
					f.Problemf(cardPath(k), "%s", msg)
				}
			}
		}
	}
	return f
}

// checkCard lists what is wrong with c, the card of aspect k whose room
// paired pair: its aspect, its pair, and each of the pair's positions.
func checkCard(c Card, k int, pair []string) []string {
	var out []string
	if c.Aspect != k {
		out = append(out, fmt.Sprintf("aspect is %d, but the card is aspect %d's", c.Aspect, k))
	}
	if !slices.Equal(c.Pair, pair) {
		out = append(out, fmt.Sprintf("pair is %q, but the room paired %q", c.Pair, pair))
	}
	for _, id := range slices.Sorted(maps.Keys(c.Personas)) {
		if !slices.Contains(pair, id) {
			out = append(out, fmt.Sprintf("personas.%s: %q is not of the room's pair", id, id))
		} else if pos := c.Personas[id].Position; !slices.Contains(cardPositions, pos) {
			out = append(out, fmt.Sprintf("personas.%s.position: %q is none of %s", id, pos, strings.Join(cardPositions, ", ")))
		}
	}
	for _, id := range pair {
		if _, ok := c.Personas[id]; !ok {
			out = append(out, fmt.Sprintf("personas.%s: missing", id))
		}
	}
	return out
}

// speakerOf returns the persona whose message the file at path must be,
// from its place: the id in its name, or the room's turn order.
func (d *debate) speakerOf(path string) (string, bool) {
	dir, base := pathpkg.Split(strings.TrimSuffix(path, ".md"))
	if strings.HasPrefix(dir, CruxDir+"/") {
		if id, ok := strings.CutPrefix(base, "pos-"); ok {
			return id, true
		}
		var k, t int
		if _, err := fmt.Sscanf(dir+base, CruxDir+"/a%d/t%d", &k, &t); err == nil {
			if pair := d.room(k).Pair; len(pair) == 2 && t >= 0 {
				return speaker(pair, t), true
			}
		}
		return "", false
	}
	for _, prefix := range []string{"open-", "close-"} {
		if id, ok := strings.CutPrefix(base, prefix); ok {
			return id, true
		}
	}
	if m := takeFile().FindStringSubmatch(base); m != nil {
		return m[1], true
	}
	return "", false
}

// kindsAt returns the kinds a message may be at path, from its place.
func kindsAt(path string) []string {
	dir, base := pathpkg.Split(strings.TrimSuffix(path, ".md"))
	switch {
	case strings.HasPrefix(dir, CruxDir+"/") && strings.HasPrefix(base, "pos-"):
		return []string{kindPosition}
	case strings.HasPrefix(dir, CruxDir+"/"):
		return []string{kindTurn}
	case strings.HasPrefix(base, "open-"):
		return []string{kindOpening}
	case strings.HasPrefix(base, "close-"):
		return []string{kindClosing}
	}
	return []string{kindTake, kindReact, kindReply}
}

// takeFile matches the name of a take in a miniround, aK-mM-PERSONA; it is
// compiled on first use, not at the start of every command.
var takeFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^a[0-9]+-m[0-9]+-(.+)$`) })

func validKind(k string) bool {
	for _, x := range cardKinds {
		if x == k {
			return true
		}
	}
	return false
}

// Status says where the debate stands: stages done of the opening, each
// aspect and the closing.
func (d *debate) Status() sm.Status {
	p := d.where()
	total := d.st.Aspects + 2
	st := sm.Status{Unit: "stage", Done: min(p.unit-1, total), Total: total, Phase: p.phase, Complete: p.phase == phaseComplete}
	st.Next = d.describe(p)
	names := make([]string, len(d.st.Personas))
	for i, id := range d.st.Personas {
		names[i] = d.name(id)
	}
	cards := 0
	for k := 1; k <= d.st.Aspects; k++ {
		if d.has(cardPath(k)) {
			cards++
		}
	}
	st.Lines = []sm.Line{
		{Label: "stage", Text: p.stage},
		{Label: "panel", Text: strings.Join(names, ", ")},
		{Label: "cards", Text: fmt.Sprint(cards)},
	}
	st.Data = map[string]any{"stage": p.stage, "cursor": p.cursor(), "personas": d.st.Personas, "cards": cards}
	if gaps := d.missingMessages(); len(gaps) > 0 {
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: strings.Join(gaps, ", ") + ": recorded as missing by --keep-going, no value invented"})
		st.Data["missing"] = gaps
	}
	return st
}

// missingMessages lists the files of the messages recorded as missing,
// sorted.
func (d *debate) missingMessages() []string {
	var out []string
	for f, m := range d.msgs {
		if m.Status == statusMissing {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func (d *debate) describe(p pos) string {
	switch p.phase {
	case phaseComplete:
		return "nothing: the debate is complete"
	case phaseAspects:
		return "the topic is taken apart into aspects"
	case phaseOpenings:
		return "every persona opens"
	case phaseDetection:
		return fmt.Sprintf("aspect %d is checked for a disagreement", p.aspect)
	case phasePositions:
		return fmt.Sprintf("the crux room of aspect %d: both state their positions", p.aspect)
	case phaseTurn:
		x := d.room(p.aspect)
		return fmt.Sprintf("the crux room of aspect %d: %s speaks (turn %d)", p.aspect, d.name(speaker(x.Pair, p.turn)), p.turn)
	case phaseExit:
		return fmt.Sprintf("the crux room of aspect %d: has the crux surfaced after turn %d?", p.aspect, p.turn)
	case phaseConvergence:
		return fmt.Sprintf("the crux room of aspect %d: its core disagreement is named", p.aspect)
	case phaseCard:
		return fmt.Sprintf("the crux room of aspect %d: its crux card is written", p.aspect)
	case phaseSummary:
		return fmt.Sprintf("aspect %d is summarized", p.aspect)
	case phaseClosings:
		return "every persona closes"
	case phaseWrapup:
		return "shifts are detected and the debate summarized"
	}
	return fmt.Sprintf("aspect %d, miniround %d: %d personas speak", p.aspect, p.mini, len(d.members(p.aspect, p.mini)))
}

var _ sm.Leader = (*debate)(nil)

// Leader counts the crux cards so far: a panel has no sides to lead.
func (d *debate) Leader() string {
	cards := 0
	for k := 1; k <= d.st.Aspects; k++ {
		if d.has(cardPath(k)) {
			cards++
		}
	}
	if cards == 1 {
		return "1 crux card"
	}
	return fmt.Sprintf("%d crux cards", cards)
}
