package prefix_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/moot-dev/moot/bench/prefix"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

// bySystem names a request's role by its system prompt, which each
// role of these protocols keeps for the whole debate: its first words and
// a hash, since two roles may open alike.
func bySystem(req modeltest.Request) string {
	if len(req.Messages) == 0 {
		return "?"
	}
	s := req.Messages[0].Content
	h := fnv.New32a()
	h.Write([]byte(s))
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 24 {
		s = s[:24]
	}
	return fmt.Sprintf("%s #%04x", s, h.Sum32()&0xffff)
}

// TestOtherProtocolsShare runs a moderated, a panel and a refine debate
// with their fakes and measures every call's share. An advocate's
// moderated prompt shows the debate so far, which only grows, before the
// phase and the task; the moderator's hand-overs carry only the statement
// just given (issue 29: they nearly doubled a debate's prompt), so its
// summaries and conclusion repeat little of the hand-over before them, and
// its calls are only printed. A panel persona is asked one task at a time about what was just
// said, and refine's proposer sees only the last round, by design: what
// their prompts repeat is mostly the system prompt, and the test only
// prints it.
func TestOtherProtocolsShare(t *testing.T) {
	apart(t)
	for _, tc := range []struct {
		name string
		p    sm.Protocol
		h    modeltest.Handler
		in   sm.NewInput
		// least is the share every call from a role's third on reaches,
		// 0 where none is held to; held names the roles held to it by
		// the start of their system prompt, "" for every role.
		least float64
		held  string
	}{
		{
			name: "moderated", p: moderated.Protocol{}, h: moderatedtest.Handler(moderatedtest.Options{}),
			in: sm.NewInput{Slug: "d", Motion: "Cars in cities", Now: protocoltest.When,
				Values: map[string][]string{"position-a": {"Cities should ban cars."}, "position-b": {"Cities should keep cars."}}},
			// The debate so far comes before the phase and the task, and
			// the standing instructions of each task are in the system
			// prompt; a rebuttal quotes the argument it answers.
			least: 0.70, held: "You are Advocate",
		},
		{
			name: "panel", p: panel.Protocol{}, h: paneltest.Handler(paneltest.Options{}),
			in: sm.NewInput{Slug: "d", Motion: "Is Bitcoin a good investment?", Now: protocoltest.When,
				Values: map[string][]string{"personas": {"michael,arthur,brian"}, "persona-dir": {"own"}},
				Dirs: map[string]map[string][]byte{"persona-dir": {
					"michael.md": []byte("---\nid: michael\nname: Michael Stone\nidentity: A hard-money investor.\n---\n"),
					"arthur.md":  []byte("---\nid: arthur\nname: Arthur Reyes\nidentity: A derivatives trader.\n---\n"),
					"brian.md":   []byte("---\nid: brian\nname: Brian Cole\nidentity: An exchange founder.\n---\n"),
				}}},
		},
		{
			name: "refine", p: refine.Protocol{}, h: refinetest.Handler(refinetest.Options{}),
			in: sm.NewInput{Slug: "d", Motion: "How many piano tuners work in Chicago?", Now: protocoltest.When},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, tc.h)
			dir := protocoltest.Create(t, tc.p, tc.in)
			if _, err := protocoltest.Advance(t, context.Background(), tc.p, dir, driver.UnitGoal{All: true}, protocoltest.Served(t, srv.URL)); err != nil {
				t.Fatal(err)
			}
			var chats []modeltest.Request
			for _, r := range srv.Requests() {
				if strings.HasSuffix(r.Path, "/chat/completions") {
					chats = append(chats, r)
				}
			}
			rows := prefix.Measure(calls(chats, bySystem))
			var b strings.Builder
			prefix.Print(&b, tc.name, rows, from)
			t.Log("\n" + b.String())
			if tc.least == 0 {
				return
			}
			for _, r := range rows {
				if r.N >= from && r.Share() < tc.least && strings.HasPrefix(r.Role, tc.held) {
					t.Errorf("%s: %s call %d: %.1f%% of the prompt repeats the previous one, want at least %.0f%%", tc.name, r.Role, r.N, 100*r.Share(), 100*tc.least)
				}
			}
		})
	}
}
