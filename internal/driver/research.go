package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/research"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// This file is research in a run: the calls of roles that argue (Call.
// Research) in a debate whose settings turn research on are offered the
// tools search and read, the pages read come with their answers, and the
// step's commit stores them under sources/. A debate without research
// takes none of these paths, so its prompts and files are as they were.

// EventResearch is a tool call a role made, with what came of it.
const EventResearch = "research"

// ResearchTools are what a researching run searches and reads with.
type ResearchTools struct {
	Provider research.Provider
	Reader   *research.Reader
}

// researchState is the research of one run.
type researchState struct {
	// missing, when set, is why this run cannot research.
	missing error
	tools   *ResearchTools
	limits  research.Limits
	mu      sync.Mutex
	// noTools holds the models whose endpoint refused tools: they run
	// without research, which is said once.
	noTools map[string]bool
}

// maxCites caps the pages read to check an answer's citations, beyond
// those its research read.
const maxCites = 20

// startResearch readies the research of a run whose settings turn it on.
func (r *runner) startResearch() error {
	if r.settings.Research == nil {
		return nil
	}
	if r.opts.Research == nil {
		// A run that asks no role that researches (a re-judging) needs
		// no tools; one that does fails at its first such call.
		r.research = &researchState{missing: errors.New("the debate researches (debate.md's research setting) but this command has no research tools"),
			noTools: map[string]bool{}}
		return nil
	}
	tools, err := r.opts.Research()
	if err != nil {
		return fmt.Errorf("research: %w", err)
	}
	if tools == nil || tools.Reader == nil {
		return errors.New("research: no reader")
	}
	rd := *tools.Reader
	if rd.Now == nil {
		rd.Now = r.opts.Now
	}
	tools = &ResearchTools{Provider: tools.Provider, Reader: &rd}
	r.research = &researchState{tools: tools, limits: r.settings.Research.Normal(), noTools: map[string]bool{}}
	return nil
}

// researches reports whether call c of a model researches in this run.
func (r *runner) researches(c sm.Call, modelName string) bool {
	if r.research == nil || !c.Research || len(c.Embed) > 0 {
		return false
	}
	r.research.mu.Lock()
	defer r.research.mu.Unlock()
	return !r.research.noTools[modelName]
}

// researchName is where the research of a kept answer waits with it: its
// transcript and the pages it read, so that a resumed run searches and
// reads nothing again for an answer it already accepted.
func researchName(step *sm.Step, c sm.Call) string {
	return "answers/" + step.Key + "-" + c.ID + ".research.json"
}

// keptResearch is what researchName holds.
type keptResearch struct {
	// Researched is false for an answer asked without tools (its
	// endpoint took none).
	Researched bool            `json:"researched"`
	Log        []string        `json:"log,omitempty"`
	Messages   []model.Message `json:"messages,omitempty"`
	Sources    []keptSource    `json:"sources,omitempty"`
}

type keptSource struct {
	evidence.Source
	Text string `json:"text"`
}

// withInstructions adds what a researching role is told of its tools to
// the first message of its conversation.
func withInstructions(msgs []model.Message) []model.Message {
	out := append([]model.Message(nil), msgs...)
	if len(out) > 0 {
		out[0].Content = strings.TrimRight(out[0].Content, "\n") + "\n\n" + research.Instructions
	}
	return out
}

// session starts the research of call c, or returns nil when c does not
// research, and an error when it should and cannot.
func (r *runner) session(c sm.Call, modelName string) (*research.Session, error) {
	if !r.researches(c, modelName) {
		return nil, nil
	}
	if r.research.missing != nil {
		return nil, r.research.missing
	}
	return research.NewSession(r.research.tools.Provider, r.research.tools.Reader, r.research.limits), nil
}

// withoutInstructions undoes withInstructions, for a model asked again
// without tools.
func withoutInstructions(msgs []model.Message) []model.Message {
	out := append([]model.Message(nil), msgs...)
	if len(out) > 0 {
		out[0].Content = strings.TrimSuffix(out[0].Content, "\n\n"+research.Instructions)
	}
	return out
}

// roundCounter is a Completer that calls next before every request but
// the first: once per tool round.
type roundCounter struct {
	model.Completer
	next   func()
	rounds int
}

func (rc *roundCounter) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if rc.rounds > 0 {
		rc.next()
	}
	rc.rounds++
	return rc.Completer.Complete(ctx, req)
}

// ask asks req of the model, with the tools of sess when it is not nil,
// and returns the answer and the messages the tool rounds added. Before
// each request after the first (a tool round, or the request again
// without tools), it calls newRound: what was streamed until then is not
// the answer.
func (r *runner) ask(ctx context.Context, step *sm.Step, c sm.Call, sess *research.Session, req model.Request, newRound func()) (model.Response, []model.Message, error) {
	if sess == nil {
		resp, err := r.opts.Client.Complete(ctx, req)
		return resp, nil, err
	}
	if !r.researches(c, req.Model) {
		// The endpoint refused tools earlier in this call (a repair).
		req.Messages = withoutInstructions(req.Messages)
		resp, err := r.opts.Client.Complete(ctx, req)
		return resp, nil, err
	}
	req.Tools = research.Tools()
	run := func(ctx context.Context, tc model.ToolCall) string {
		out := sess.Run(ctx, tc)
		first, _, _ := strings.Cut(out, "\n")
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventResearch, Exchange: step.Unit, Role: c.Role,
			Message: fmt.Sprintf("%s(%s): %s", tc.Name, oneLineArgs(tc.Arguments), first)})
		return out
	}
	resp, added, err := model.CompleteWithTools(ctx, &roundCounter{Completer: r.opts.Client, next: newRound}, req, run, r.research.limits.Rounds)
	if errors.Is(err, model.ErrNoTools) {
		r.research.mu.Lock()
		said := r.research.noTools[req.Model]
		r.research.noTools[req.Model] = true
		r.research.mu.Unlock()
		if !said {
			r.opts.Warn(fmt.Sprintf("model %s takes no tools (function calling): it runs without research", req.Model))
		}
		req.Tools, req.Messages = nil, withoutInstructions(req.Messages)
		newRound()
		resp, err = r.opts.Client.Complete(ctx, req)
		return resp, nil, err
	}
	return resp, added, err
}

func oneLineArgs(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// citeAndKeep reads the pages an accepted answer cites that neither its
// research nor an earlier step read, and keeps the research with the
// answer. It returns the answer's sources.
func (r *runner) citeAndKeep(ctx context.Context, step *sm.Step, c sm.Call, modelName string, sess *research.Session, transcript []model.Message, text []byte) []evidence.Source {
	researched := sess != nil && r.researches(c, modelName)
	kept := keptResearch{Researched: researched}
	if sess != nil {
		kept.Log, kept.Messages = sess.Log, transcript
		if c.Cites != nil && researched {
			read := map[string]bool{}
			for _, s := range sess.Sources {
				read[s.URL] = true
			}
			n := 0
			for _, u := range c.Cites(text) {
				if read[u] || n >= maxCites {
					continue
				}
				read[u] = true
				if _, err := r.d.ReadFile(evidence.Name(u)); err == nil {
					continue
				}
				n++
				sess.Sources = append(sess.Sources, r.research.tools.Reader.Read(ctx, u))
			}
		}
		for _, s := range sess.Sources {
			kept.Sources = append(kept.Sources, keptSource{Source: s, Text: s.Text})
		}
	}
	if data, err := json.Marshal(kept); err == nil {
		r.keep(researchName(step, c), c.Role, data)
	}
	return sourcesOf(kept)
}

func sourcesOf(k keptResearch) []evidence.Source {
	var out []evidence.Source
	for _, s := range k.Sources {
		src := s.Source
		src.Text = s.Text
		out = append(out, src)
	}
	return out
}

// reuseResearch gives a kept answer the research kept with it.
func (r *runner) reuseResearch(step *sm.Step, c sm.Call, a sm.Answer) sm.Answer {
	if r.research == nil || !c.Research {
		return a
	}
	raw, err := r.d.ReadPrivate(researchName(step, c))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.opts.Warn(fmt.Sprintf("cannot read the research kept with an answer: %v", err))
		}
		return a
	}
	var k keptResearch
	if err := json.Unmarshal(raw, &k); err != nil {
		r.opts.Warn(fmt.Sprintf("cannot read the research kept with an answer: %v", err))
		return a
	}
	a.Researched, a.Sources = k.Researched, sourcesOf(k)
	return a
}

// sourceFiles places the pages the answers read, in the order of the
// step's calls, and returns the stored copies the debate does not hold
// yet. A page's first copy is kept at evidence.Name; a version whose text
// differs from the copy held (a page that changed between two reads) is
// kept beside it at evidence.VersionName, so that every version a debater
// read is kept. Each answer's Source.Copy is set to the copy of the
// version it read, which its checks name.
func (r *runner) sourceFiles(step *sm.Step, answers map[string]sm.Answer) ([]store.File, error) {
	var out []store.File
	// held holds the copies stored or placed in this step, by path: the
	// version as the stored file reads, nil for one that does not parse.
	held := map[string]*evidence.Source{}
	lookup := func(name string) (*evidence.Source, bool) {
		if s, ok := held[name]; ok {
			return s, true
		}
		data, err := r.d.ReadFile(name)
		if err != nil {
			return nil, false
		}
		var s *evidence.Source
		if p, err := evidence.Parse(data); err == nil {
			s = &p
		}
		held[name] = s
		return s, true
	}
	for _, c := range step.Calls {
		srcs := answers[c.ID].Sources
		for k := range srcs {
			s := &srcs[k]
			data, err := s.Render()
			if err != nil {
				return nil, fmt.Errorf("render the copy of %s: %w", s.URL, err)
			}
			data = []byte(r.opts.Mask(string(data)))
			stored, err := evidence.Parse(data)
			if err != nil {
				return nil, fmt.Errorf("read back the copy of %s: %w", s.URL, err)
			}
			name := evidence.Name(s.URL)
			if first, ok := lookup(name); ok && (first == nil || !first.Same(stored)) {
				name = evidence.VersionName(s.URL, stored.Text)
			}
			s.Copy = name
			if _, ok := lookup(name); ok {
				continue
			}
			held[name] = &stored
			out = append(out, store.File{Name: name, Data: data})
		}
	}
	return out, nil
}
