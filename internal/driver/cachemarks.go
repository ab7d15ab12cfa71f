package driver

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/model"
	sm "github.com/moot-dev/moot/statemachine"
)

// CacheMarks says which calls of a debate carry cache marks: breakpoints
// at the end of the stable prefix of each role's prompt (sm.Call.Marks),
// which providers that bill cache reads only where a request marks them
// (Anthropic and Gemini models through OpenRouter) need in order to cache
// anything. Providers that cache by themselves (OpenAI, DeepSeek) need
// none.
type CacheMarks string

const (
	// CacheAuto, the default, marks the calls to the models whose id
	// says they need marks (see MarksByDefault).
	CacheAuto CacheMarks = "auto"
	// CacheOn marks every call, for an endpoint the user knows honours
	// cache_control.
	CacheOn CacheMarks = "on"
	// CacheOff marks none.
	CacheOff CacheMarks = "off"
)

// CacheMarksField is the field of debate.md's moot settings that keeps
// the cache marks of a debate; absent means CacheAuto.
const CacheMarksField = "cache_marks"

// ParseCacheMarks reads cache marks as a person or a settings file writes
// them; "" is the default, CacheAuto.
func ParseCacheMarks(s string) (CacheMarks, error) {
	switch CacheMarks(strings.TrimSpace(s)) {
	case "", CacheAuto:
		return CacheAuto, nil
	case CacheOn:
		return CacheOn, nil
	case CacheOff:
		return CacheOff, nil
	}
	return "", fmt.Errorf("%q is not a cache marks setting (auto, on or off)", truncate(s, 40))
}

// truncate cuts s to at most n bytes, on a character's boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// markedPrefixes are the model ids, as OpenRouter names them, of the
// providers that cache only what a request marks and bill its reads at a
// tenth of the input price or so: Anthropic's Claude and Google's Gemini.
var markedPrefixes = []string{"anthropic/", "google/gemini"}

// MarksByDefault reports whether CacheAuto marks the calls to the model
// called id.
func MarksByDefault(id string) bool {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, p := range markedPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// For reports whether a call to the model called id carries marks.
func (c CacheMarks) For(id string) bool {
	switch c {
	case CacheOn:
		return true
	case CacheOff:
		return false
	}
	return MarksByDefault(id)
}

// breakpoints are the cache breakpoints of call c: the last
// model.MaxBreakpoints of its marks that fall inside its messages, in
// order.
func breakpoints(c sm.Call) []model.Breakpoint {
	var out []model.Breakpoint
	for _, m := range c.Marks {
		if m.Message < 0 || m.Message >= len(c.Messages) || m.Offset <= 0 || m.Offset > len(c.Messages[m.Message].Content) {
			continue
		}
		out = append(out, model.Breakpoint{Message: m.Message, Offset: m.Offset})
	}
	return out[max(0, len(out)-model.MaxBreakpoints):]
}
