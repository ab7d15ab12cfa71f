// Package tournament holds the rules of a moot tournament: its plan, kept
// in tournament.md, the motions it is argued on, and how its debates'
// results make a leaderboard. It is pure: the store reads and writes the
// files, the driver runs the debates.
package tournament

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// Motion is one motion of a tournament, with the definitions and scope a
// protocol that takes them (dialectic) is given.
type Motion struct {
	Text        string   `json:"motion" yaml:"motion"`
	Definitions []string `json:"definitions,omitempty" yaml:"definitions,omitempty"`
	Scope       string   `json:"scope,omitempty" yaml:"scope,omitempty"`
}

// MaxMotions bounds a motions file.
const MaxMotions = 1000

// ParseMotions reads a motions file: a JSON or YAML list whose items are
// motions (strings) or objects with "motion", "definitions" (a list of
// "term: meaning", or a map of terms) and "scope"; or else plain text,
// one motion a line, blank lines and lines starting with # left out.
func ParseMotions(data []byte) ([]Motion, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("the file holds no motion")
	}
	var items []any
	var structured bool
	switch {
	case trimmed[0] == '[':
		structured = true
		if err := frontmatter.Unmarshal(trimmed, &items); err != nil {
			return nil, fmt.Errorf("read as JSON: %w", err)
		}
	case bytes.HasPrefix(trimmed, []byte("- ")) || bytes.HasPrefix(trimmed, []byte("---")):
		structured = true
		if err := yaml.Unmarshal(trimmed, &items); err != nil {
			return nil, fmt.Errorf("read as YAML: %w", err)
		}
	}
	var out []Motion
	if !structured {
		for _, line := range strings.Split(string(trimmed), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			out = append(out, Motion{Text: line})
		}
	} else {
		for i, it := range items {
			m, err := motionOf(it)
			if err != nil {
				return nil, fmt.Errorf("motion %d: %w", i+1, err)
			}
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the file holds no motion")
	}
	if len(out) > MaxMotions {
		return nil, fmt.Errorf("the file holds %d motions, more than %d", len(out), MaxMotions)
	}
	seen := map[string]int{}
	for i, m := range out {
		if j, ok := seen[m.Text]; ok {
			return nil, fmt.Errorf("motions %d and %d are the same", j+1, i+1)
		}
		seen[m.Text] = i
	}
	return out, nil
}

// motionOf reads one item of a structured motions file.
func motionOf(it any) (Motion, error) {
	switch v := it.(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return Motion{}, errors.New("the motion is empty")
		}
		return Motion{Text: strings.TrimSpace(v)}, nil
	case map[string]any:
		var m Motion
		for k, val := range v {
			switch k {
			case "motion":
				s, ok := val.(string)
				if !ok || strings.TrimSpace(s) == "" {
					return Motion{}, errors.New("\"motion\" is not a text")
				}
				m.Text = strings.TrimSpace(s)
			case "scope":
				s, ok := val.(string)
				if !ok {
					return Motion{}, errors.New("\"scope\" is not a text")
				}
				m.Scope = strings.TrimSpace(s)
			case "definitions":
				defs, err := definitionsOf(val)
				if err != nil {
					return Motion{}, err
				}
				m.Definitions = defs
			default:
				return Motion{}, fmt.Errorf("unknown key %q (a motion has motion, definitions and scope)", k)
			}
		}
		if m.Text == "" {
			return Motion{}, errors.New("no \"motion\"")
		}
		return m, nil
	}
	return Motion{}, fmt.Errorf("%T is neither a motion nor an object with one", it)
}

// definitionsOf reads definitions: a list of "term: meaning", or a map.
func definitionsOf(v any) ([]string, error) {
	switch d := v.(type) {
	case []any:
		var out []string
		for _, x := range d {
			s, ok := x.(string)
			if !ok || !strings.Contains(s, ":") {
				return nil, fmt.Errorf("definition %v is not \"term: meaning\"", x)
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out, nil
	case map[string]any:
		var out []string
		for term, meaning := range d {
			s, ok := meaning.(string)
			if !ok {
				return nil, fmt.Errorf("the meaning of %q is not a text", term)
			}
			out = append(out, term+": "+strings.TrimSpace(s))
		}
		// A map has no order: the definitions go in term order.
		slices.Sort(out)
		return out, nil
	}
	return nil, errors.New("\"definitions\" is neither a list nor a map")
}
