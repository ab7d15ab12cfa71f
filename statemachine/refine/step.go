package refine

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// openPoint is a point not yet resolved, with its latest status.
type openPoint struct {
	Point
	Status string
}

// openBefore lists the points of rounds before r that the latest critique
// before r did not mark resolved, in the order they were raised.
func (d *debate) openBefore(r int) []openPoint {
	var order []string
	points := map[string]openPoint{}
	for i := 1; i < r; i++ {
		c := d.critiqueOf(i)
		if c == nil {
			continue
		}
		for _, rt := range c.Previous {
			if p, ok := points[rt.ID]; ok {
				p.Status = rt.Status
				points[rt.ID] = p
			}
		}
		for _, p := range c.Points {
			order = append(order, p.ID)
			points[p.ID] = openPoint{Point: p}
		}
	}
	var out []openPoint
	for _, id := range order {
		if p := points[id]; p.Status != "resolved" {
			out = append(out, p)
		}
	}
	return out
}

// pointView is a point as a prompt shows it.
type pointView struct{ ID, Severity, Text, Status string }

// roundView is a round as a prompt shows it.
type roundView struct {
	Round              int
	Proposal, Critique string
}

// templateView is a kept template as the round-1 prompt shows it.
type templateView struct {
	Index          int
	Name, When     string
	Percent        string
	Content        string
	ID, Source     string
	Score          float64
	LexicalRanking bool
}

type promptData struct {
	Question                    string
	Round, MinRounds, MaxRounds int
	EarlyStop                   int
	Templates                   []templateView
	Prev                        *roundView
	Open                        []pointView
	History                     []roundView
	Proposal, Answer            string
	Errors                      []string
}

func (d *debate) data(r int) promptData {
	return promptData{Question: d.question, Round: r, MinRounds: d.st.MinRounds, MaxRounds: d.st.MaxRounds, EarlyStop: d.st.EarlyStop}
}

// renderCritique is a critique as the proposer and the synthesizer read
// it: its text, then its points and ratings.
func renderCritique(c *critique) string {
	var b strings.Builder
	b.WriteString(c.Text)
	if len(c.Previous) > 0 {
		b.WriteString("\n\nEarlier points:\n")
		for _, p := range c.Previous {
			fmt.Fprintf(&b, "- %s: %s", p.ID, strings.ReplaceAll(p.Status, "_", " "))
			if p.Note != "" {
				fmt.Fprintf(&b, ". %s", p.Note)
			}
			b.WriteString("\n")
		}
	}
	if len(c.Points) > 0 {
		b.WriteString("\n\nNew points:\n")
		for _, p := range c.Points {
			fmt.Fprintf(&b, "- %s (%s): %s\n", p.ID, p.Severity, p.Text)
		}
	}
	fmt.Fprintf(&b, "\nSkeptic's score: %d/10", c.Score)
	return strings.TrimSpace(b.String())
}

func (d *debate) history(upTo int) []roundView {
	var out []roundView
	for r := 1; r <= upTo; r++ {
		p, c := d.proposalOf(r), d.critiqueOf(r)
		if p == nil || c == nil {
			break
		}
		out = append(out, roundView{Round: r, Proposal: evidence.Annotate(p.Text, p.Citations), Critique: renderCritique(c)})
	}
	return out
}

func (d *debate) keptTemplates() []templateView {
	if d.retrieval == nil {
		return nil
	}
	score := map[string]float64{}
	for _, c := range d.retrieval.Candidates {
		score[c.ID] = c.Score
	}
	var out []templateView
	for i, id := range d.retrieval.Kept {
		t, ok := d.own[id]
		if !ok {
			continue
		}
		out = append(out, templateView{Index: i + 1, Name: t.Name, When: t.When, Content: t.Body, ID: id, Source: t.Source,
			Score: score[id], Percent: fmt.Sprintf("%.0f", score[id]*100), LexicalRanking: d.retrieval.Method == "lexical"})
	}
	return out
}

func (d *debate) render(system, user string, pd promptData) ([]sm.Message, error) {
	sys, err := d.tmpl.Render(system, pd)
	if err != nil {
		return nil, err
	}
	usr, err := d.tmpl.Render(user, pd)
	if err != nil {
		return nil, err
	}
	return []sm.Message{{Role: "system", Content: sys}, {Role: "user", Content: usr}}, nil
}

func (d *debate) repair(errs []string) (sm.Message, error) {
	text, err := d.tmpl.Render("repair.md", promptData{Errors: errs})
	return sm.Message{Role: "user", Content: text}, err
}

func notEmpty(a []byte) sm.Report {
	if strings.TrimSpace(string(a)) == "" {
		return sm.Report{Errors: []string{"the answer is empty"}}
	}
	return sm.Report{}
}

// proposalProblems lists what is wrong with round r's proposal: empty, or
// one of the open points is not named by its id.
func proposalProblems(text []byte, open []openPoint) []string {
	if strings.TrimSpace(string(text)) == "" {
		return []string{"the answer is empty"}
	}
	var errs []string
	for _, p := range open {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(p.ID) + `\b`).Match(text) {
			errs = append(errs, fmt.Sprintf("point %s (%s) is not answered: start its paragraph with its id", p.ID, p.Severity))
		}
	}
	return errs
}

func (d *debate) proposalCall(r int) (sm.Call, error) {
	pd := d.data(r)
	open := d.openBefore(r)
	if r == 1 {
		pd.Templates = d.keptTemplates()
	} else {
		p, c := d.proposalOf(r-1), d.critiqueOf(r-1)
		if p == nil || c == nil {
			return sm.Call{}, fmt.Errorf("round %d has no proposal or critique", r-1)
		}
		pd.Prev = &roundView{Round: r - 1, Proposal: evidence.Annotate(p.Text, p.Citations), Critique: renderCritique(c)}
		for _, o := range open {
			pd.Open = append(pd.Open, pointView{ID: o.ID, Severity: o.Severity, Text: o.Text, Status: statusWords(o.Status)})
		}
		if len(pd.Open) == 0 {
			// Nothing open: the prompt asks for a revision all the same.
			pd.Open = []pointView{{ID: "(none)", Severity: "none", Text: "no point is open; improve the answer where the critique suggests"}}
			open = nil
		}
	}
	msgs, err := d.render("proposer-system.md", "proposer.md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	return researching(sm.Call{ID: RoleProposer, Role: RoleProposer, Messages: msgs, Temperature: d.temperature(RoleProposer),
		Validate: func(a []byte) sm.Report { return sm.Report{Errors: proposalProblems(a, open)} },
		Repair:   d.repair}), nil
}

// temperature is the temperature debate.md gives role, nil when it gives
// none (a debate made before moot sent them).
func (d *debate) temperature(role string) *float64 {
	t, ok := d.st.Temperatures[role]
	if !ok {
		return nil
	}
	return &t
}

func statusWords(s string) string { return strings.ReplaceAll(s, "_", " ") }

func (d *debate) critiqueCall(r int) (sm.Call, error) {
	pd := d.data(r)
	p := d.proposalOf(r)
	if p == nil {
		return sm.Call{}, fmt.Errorf("round %d has no proposal", r)
	}
	pd.Proposal = evidence.Annotate(p.Text, p.Citations)
	pd.History = d.history(r - 1)
	open := d.openBefore(r)
	for _, o := range open {
		pd.Open = append(pd.Open, pointView{ID: o.ID, Severity: o.Severity, Text: o.Text, Status: statusWords(o.Status)})
	}
	msgs, err := d.render("skeptic-system.md", "skeptic.md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	early := d.st.EarlyStop
	return sm.Call{ID: RoleSkeptic, Role: RoleSkeptic, Messages: msgs, Temperature: d.temperature(RoleSkeptic), Schema: skepticSchema(open), SchemaName: "critique",
		Validate: func(a []byte) sm.Report {
			_, errs := parseCritique(a, r, early, open)
			return sm.Report{Errors: errs}
		},
		Repair: d.repair}, nil
}

func (d *debate) synthesisCall() (sm.Call, error) {
	pd := d.data(d.st.Round)
	pd.History = d.history(d.roundsDone())
	msgs, err := d.render("synthesizer-system.md", "synthesizer.md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	return researching(sm.Call{ID: RoleSynthesizer, Role: RoleSynthesizer, Messages: msgs, Temperature: d.temperature(RoleSynthesizer), Validate: notEmpty, Repair: d.repair}), nil
}

func (d *debate) scoreCall() (sm.Call, error) {
	if d.synthesis == nil {
		return sm.Call{}, fmt.Errorf("%s is missing", SynthesisFile)
	}
	pd := promptData{Question: d.question, Answer: evidence.Annotate(d.synthesis.Text, d.synthesis.Citations)}
	msgs, err := d.render("judge-system.md", "judge.md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	return sm.Call{ID: RoleJudge, Role: RoleJudge, Messages: msgs, Temperature: d.temperature(RoleJudge), Schema: judgeSchema(), SchemaName: "score",
		Validate: func(a []byte) sm.Report {
			_, errs := ParseScore(a)
			return sm.Report{Errors: errs}
		},
		Repair: d.repair}, nil
}

// unit is the unit of the step the debate waits for.
func (d *debate) unit() int {
	switch d.st.Phase {
	case phaseSynthesis, phaseScore, phaseComplete:
		if d.st.Stop != nil {
			return d.st.Stop.Round + 1
		}
	}
	return d.st.Round
}

// Next returns the step the debate waits for.
func (d *debate) Next() (*sm.Step, error) {
	r := d.st.Round
	step := &sm.Step{Unit: d.unit()}
	var c sm.Call
	var err error
	switch d.st.Phase {
	case phaseComplete:
		return nil, nil
	case phaseRetrieval:
		step.Key = "retrieval"
		cs, _ := d.candidates()
		if d.st.RAG.Enabled && len(cs) > 0 && d.st.RAG.TopK > 0 {
			texts := []string{d.question}
			for _, t := range cs {
				texts = append(texts, t.document())
			}
			step.Calls = []sm.Call{{ID: RoleEmbedder, Role: RoleEmbedder, Embed: texts}}
		}
		step.Apply = func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return d.applyRetrieval(cs, answers, now)
		}
		return step, nil
	case phaseProposal:
		step.Key = fmt.Sprintf("r%02d-proposal", r)
		step.Begins = []sm.Event{{Kind: "round_start", Message: fmt.Sprintf("round %d begins", r), Data: map[string]any{"round": r}}}
		c, err = d.proposalCall(r)
	case phaseCritique:
		step.Key = fmt.Sprintf("r%02d-critique", r)
		c, err = d.critiqueCall(r)
	case phaseSynthesis:
		step.Key = "synthesis"
		step.Begins = []sm.Event{{Kind: "synthesis_start", Role: RoleSynthesizer, Message: "the synthesis begins"}}
		c, err = d.synthesisCall()
	case phaseScore:
		if len(d.panel) > 0 {
			return d.panelStep(step)
		}
		step.Key = "score"
		c, err = d.scoreCall()
		// The debate ends without a score (moot run --keep-going).
		c.Missable = true
	}
	if err != nil {
		return nil, err
	}
	step.Calls = []sm.Call{c}
	phase := d.st.Phase
	step.Apply = func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
		if d.st.Phase != phase || d.st.Round != r {
			return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is at %s of round %d, not %s of round %d", d.st.Phase, d.st.Round, phase, r)}}
		}
		return d.apply(c, answers[c.ID], now)
	}
	return step, nil
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

func refused(role string, errs []string) error {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = role + ": " + e
	}
	return &sm.Refused{Reasons: out, Role: role, RoleReasons: errs, Answer: true}
}

func (d *debate) applyRetrieval(cs []Template, answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
	var r Retrieval
	c := &sm.Commit{}
	switch ans, asked := answers[RoleEmbedder]; {
	case !d.st.RAG.Enabled || d.st.RAG.TopK == 0:
		r = Retrieval{Method: "off", Query: d.question, Candidates: []Candidate{}, Kept: []string{}}
	case !asked:
		r = retrieve(d.question, cs, nil, d.st.RAG.TopK, d.st.RAG.Threshold, d.st.RAG.Score)
	default:
		var e sm.Embeddings
		if err := json.Unmarshal(ans.Text, &e); err != nil {
			return nil, refused(RoleEmbedder, []string{"the embeddings do not read: " + err.Error()})
		}
		if e.Unavailable != "" {
			r = retrieve(d.question, cs, nil, d.st.RAG.TopK, d.st.RAG.Threshold, d.st.RAG.Score)
			r.Unavailable = e.Unavailable
			c.Warnings = append(c.Warnings, "the endpoint gives no embeddings: the templates were ranked by their words (BM25)")
		} else {
			if len(e.Vectors) != len(cs)+1 {
				return nil, refused(RoleEmbedder, []string{fmt.Sprintf("%d vectors for %d texts", len(e.Vectors), len(cs)+1)})
			}
			r = retrieve(d.question, cs, e.Vectors, d.st.RAG.TopK, d.st.RAG.Threshold, d.st.RAG.Score)
		}
		r.Model = e.Model
		r.ElapsedMS = ms(ans.Elapsed)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	byID := map[string]Template{}
	for _, t := range cs {
		byID[t.ID] = t
	}
	next := d.clone()
	next.retrieval = &r
	for _, id := range r.Kept {
		t := byID[id]
		name := path.Join(ReasoningDir, id+".md")
		c.Files = append(c.Files, sm.File{Name: name, Data: []byte(t.Body + "\n")})
		t.Source = name
		next.own[id] = t
	}
	c.Files = append(c.Files, sm.File{Name: RetrievalFile, Data: append(data, '\n')})
	msg := "no template matched: the generic scaffold is used"
	if len(r.Kept) > 0 {
		msg = "kept " + strings.Join(r.Kept, ", ")
	}
	c.Events = append(c.Events, sm.Event{Kind: "retrieved", Role: RoleEmbedder, Message: fmt.Sprintf("retrieval (%s): %s", r.Method, msg),
		Data: map[string]any{"method": r.Method, "kept": r.Kept}})
	next.st.Phase = phaseProposal
	state, err := next.renderState()
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	return c, nil
}

// clone returns a copy of d that a step may change.
func (d *debate) clone() *debate {
	c := *d
	c.own = make(map[string]Template, len(d.own))
	for k, v := range d.own {
		c.own[k] = v
	}
	c.rounds = make(map[int]*round, len(d.rounds)+1)
	for k, v := range d.rounds {
		r := *v
		c.rounds[k] = &r
	}
	return &c
}

func (d *debate) apply(call sm.Call, ans sm.Answer, now time.Time) (*sm.Commit, error) {
	if ans.Missing != nil {
		if d.st.Phase != phaseScore {
			return nil, refused(call.Role, []string{"only the judge's score can be missing"})
		}
		return d.applyMissingScore(ans, now)
	}
	if rep := call.Validate(ans.Text); !rep.OK() {
		return nil, refused(call.Role, rep.Errors)
	}
	r := d.st.Round
	next := d.clone()
	c := &sm.Commit{}
	at := now.UTC().Format(sm.TimeLayout)
	text := strings.TrimSpace(string(ans.Text))
	var file string
	var data []byte
	var err error
	switch d.st.Phase {
	case phaseProposal:
		p := &proposal{Round: r, Model: ans.Model, ElapsedMS: ms(ans.Elapsed), Time: at, Text: text, Citations: sm.Citations(ans, text, d.sources)}
		if r == 1 && d.retrieval != nil {
			p.Templates = append([]string{}, d.retrieval.Kept...)
		}
		file = proposalFile(r)
		if data, err = sm.RenderFile(p, text); err != nil {
			return nil, err
		}
		rd := next.rounds[r]
		if rd == nil {
			rd = &round{N: r}
			next.rounds[r] = rd
		}
		rd.Proposal = p
		next.st.Phase = phaseCritique
		c.Events = append(c.Events, sm.Event{Kind: "proposed", Role: RoleProposer, ID: fmt.Sprintf("r%02d", r),
			Message: fmt.Sprintf("round %d: the proposer answered", r), Data: map[string]any{"round": r, "file": file}})
	case phaseCritique:
		cr, errs := parseCritique(ans.Text, r, d.st.EarlyStop, d.openBefore(r))
		if len(errs) > 0 {
			return nil, refused(RoleSkeptic, errs)
		}
		cr.Model, cr.Elapsed, cr.Time = ans.Model, ms(ans.Elapsed), at
		cr.Decision = Decide(Facts{Ready: cr.Ready, Critical: cr.Critical, Major: cr.Major, Minor: cr.Minor, Score: cr.Score}, r, d.st.MinRounds, d.st.MaxRounds)
		file = critiqueFile(r)
		if data, err = sm.RenderFile(cr, cr.Text); err != nil {
			return nil, err
		}
		next.rounds[r].Critique = cr
		if cr.Decision.Stop {
			next.st.Stop = &Stop{Round: r, Reason: cr.Decision.Reason}
			next.st.Phase = phaseSynthesis
		} else {
			next.st.Round = r + 1
			next.st.Phase = phaseProposal
		}
		verdict := "continue: " + cr.Decision.Why
		if cr.Decision.Stop {
			verdict = "stop (" + cr.Decision.Reason + "): " + cr.Decision.Why
		}
		c.Events = append(c.Events, sm.Event{Kind: "critiqued", Role: RoleSkeptic, ID: fmt.Sprintf("r%02d", r), Ends: true,
			Message: fmt.Sprintf("round %d: the skeptic found %d critical, %d major, %d minor (score %d); %s", r, cr.Critical, cr.Major, cr.Minor, cr.Score, verdict),
			Data: map[string]any{"round": r, "ready": cr.Ready, "critical_count": cr.Critical, "major_count": cr.Major, "minor_count": cr.Minor,
				"skeptic_score": cr.Score, "decision": cr.Decision}})
	case phaseSynthesis:
		s := &synthesis{Model: ans.Model, Rounds: d.roundsDone(), ElapsedMS: ms(ans.Elapsed), Time: at, Text: text, Citations: sm.Citations(ans, text, d.sources)}
		file = SynthesisFile
		if data, err = sm.RenderFile(s, text); err != nil {
			return nil, err
		}
		next.synthesis = s
		next.st.Phase = phaseScore
		c.Events = append(c.Events, sm.Event{Kind: "synthesized", Role: RoleSynthesizer, Message: "the synthesizer wrote the final answer", Data: map[string]any{"file": file}})
	case phaseScore:
		s, errs := ParseScore(ans.Text)
		if len(errs) > 0 {
			return nil, refused(RoleJudge, errs)
		}
		s.Model, s.Attempts, s.ElapsedMS, s.Time = ans.Model, ans.Attempts, ms(ans.Elapsed), at
		s.Parse = "json"
		if ans.Attempts > 1 {
			s.Parse = "repaired"
		}
		file = ScoreFile
		raw, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		data = append(raw, '\n')
		next.score = s
		next.st.Phase = phaseComplete
		sc := float64(s.Score)
		c.Events = append(c.Events, sm.Event{Kind: "scored", Role: RoleJudge, Score: &sc, Ends: true,
			Message: fmt.Sprintf("the judge scored the answer %d/10", s.Score), Data: map[string]any{"score": s.Score, "weighted_score": s.WeightedScore}})
	default:
		return nil, &sm.Refused{Reasons: []string{"the debate waits for no answer"}}
	}
	c.Files = append(c.Files, sm.File{Name: file, Data: data})
	state, err := next.renderState()
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	return c, nil
}

// Status says where the debate stands.
func (d *debate) Status() sm.Status {
	total := d.st.MaxRounds + 1
	if d.st.Stop != nil {
		total = d.st.Stop.Round + 1
	}
	done := d.roundsDone()
	if d.st.Phase == phaseComplete {
		done = total
	}
	st := sm.Status{Unit: "round", Done: done, Total: total, Closing: "the synthesis", AtMost: d.st.Stop == nil,
		Phase: d.st.Phase, Complete: d.st.Phase == phaseComplete, Next: d.describe()}
	st.Lines = []sm.Line{{Label: "round", Text: fmt.Sprintf("%d (min %d, max %d)", d.st.Round, d.st.MinRounds, d.st.MaxRounds)}}
	data := map[string]any{"round": d.st.Round, "stop": d.st.Stop, "templates": []string{}}
	if d.retrieval != nil {
		data["templates"] = d.retrieval.Kept
		st.Lines = append(st.Lines, sm.Line{Label: "templates", Text: d.keptLine()})
	}
	if c := d.critiqueOf(d.roundsDone()); c != nil {
		st.Lines = append(st.Lines, sm.Line{Label: "last critique", Text: fmt.Sprintf("%d critical, %d major, %d minor, score %d", c.Critical, c.Major, c.Minor, c.Score)})
	}
	if d.st.Stop != nil {
		st.Lines = append(st.Lines, sm.Line{Label: "stopped", Text: fmt.Sprintf("after round %d: %s", d.st.Stop.Round, d.st.Stop.Reason)})
	}
	if len(d.panel) > 0 {
		var names []string
		for _, j := range d.panel {
			names = append(names, j.Name+" ("+j.Model+")")
		}
		st.Lines = append(st.Lines, sm.Line{Label: "judges", Text: strings.Join(names, ", ")})
	}
	if d.score != nil {
		st.Lines = append(st.Lines, sm.Line{Label: "score", Text: fmt.Sprintf("%d/10", d.score.Score)})
		data["score"] = d.score.Score
	}
	if d.scoreGap != nil {
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: "the judge's score, no value invented (moot run --retry-missing asks again)"})
		data["missing"] = d.Gaps()
	} else if gaps := d.Gaps(); len(gaps) > 0 {
		var names []string
		for _, p := range d.panelRoll() {
			if p.Missing {
				names = append(names, p.Name)
			}
		}
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: "the score of judge " + strings.Join(names, ", ") + ", no value invented; the panel's is the others' (moot run --retry-missing asks again)"})
		data["missing"] = gaps
	}
	st.Data = data
	return st
}

func (d *debate) describe() string {
	r := d.st.Round
	switch d.st.Phase {
	case phaseRetrieval:
		if !d.st.RAG.Enabled {
			return "record that no reasoning template is retrieved (--rag off)"
		}
		return "retrieve the reasoning templates closest to the question"
	case phaseProposal:
		return fmt.Sprintf("the proposer answers (round %d)", r)
	case phaseCritique:
		return fmt.Sprintf("the skeptic critiques the answer (round %d)", r)
	case phaseSynthesis:
		return "the synthesizer writes the final answer"
	case phaseScore:
		if len(d.panel) > 0 {
			return fmt.Sprintf("the panel of %d judges scores the final answer", len(d.panel))
		}
		return "the judge scores the final answer"
	}
	return "nothing: the debate is complete"
}

// applyMissingScore is the commit of a score recorded as missing: score.json
// holds the record, and the debate is complete without a score.
func (d *debate) applyMissingScore(ans sm.Answer, now time.Time) (*sm.Commit, error) {
	gap := &MissingScore{Missing: ans.Missing, Model: ans.Model, Attempts: ans.Attempts, ElapsedMS: ms(ans.Elapsed), Time: now.UTC().Format(sm.TimeLayout)}
	raw, err := json.MarshalIndent(gap, "", "  ")
	if err != nil {
		return nil, err
	}
	next := d.clone()
	next.score, next.scoreGap = nil, gap
	next.st.Phase = phaseComplete
	c := &sm.Commit{Files: []sm.File{{Name: ScoreFile, Data: append(raw, '\n')}}}
	c.Events = append(c.Events, sm.Event{Kind: "missing", Role: RoleJudge, Ends: d.st.Phase == phaseScore,
		Message: "the judge's score is recorded as missing: no value invented"})
	state, err := next.renderState()
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	return c, nil
}

var _ sm.Filler = (*debate)(nil)

// Gaps names the judge's score when it is recorded as missing; with a
// panel, the score of each of its judges recorded as missing, in the
// panel's order.
func (d *debate) Gaps() []string {
	if roll := d.panelRoll(); len(roll) > 0 {
		var out []string
		for _, p := range roll {
			if f := d.judges[p.Name]; p.Missing && f != nil && f.gap != nil {
				out = append(out, f.gap.Missing.Call)
			}
		}
		return out
	}
	if d.scoreGap == nil {
		return nil
	}
	return []string{d.scoreGap.Missing.Call}
}

// Fill returns the step that asks the judge again for the score recorded
// as missing: its commit writes score.json, the score or the record again.
// A panel judge's is asked of that judge alone (see fillPanel).
func (d *debate) Fill(gap string) (*sm.Step, error) {
	for _, p := range d.panelRoll() {
		if f := d.judges[p.Name]; p.Missing && f != nil && f.gap != nil && f.gap.Missing.Call == gap {
			return d.fillPanel(sm.Judge{Name: p.Name, Model: p.Model})
		}
	}
	if d.scoreGap == nil || d.scoreGap.Missing.Call != gap {
		return nil, fmt.Errorf("no call %q is missing", gap)
	}
	c, err := d.scoreCall()
	if err != nil {
		return nil, err
	}
	c.Missable = true
	return &sm.Step{Key: scoreStep, Unit: d.unit(), Calls: []sm.Call{c},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			ans := answers[c.ID]
			if ans.Missing != nil {
				return d.applyMissingScore(ans, now)
			}
			s, errs := ParseScore(ans.Text)
			if len(errs) > 0 {
				return nil, refused(RoleJudge, errs)
			}
			s.Model, s.Attempts, s.ElapsedMS, s.Time = ans.Model, ans.Attempts, ms(ans.Elapsed), now.UTC().Format(sm.TimeLayout)
			s.Parse = "json"
			if ans.Attempts > 1 {
				s.Parse = "repaired"
			}
			raw, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				return nil, err
			}
			next := d.clone()
			next.score, next.scoreGap = s, nil
			sc := float64(s.Score)
			cm := &sm.Commit{Files: []sm.File{{Name: ScoreFile, Data: append(raw, '\n')}},
				Events: []sm.Event{{Kind: "scored", Role: RoleJudge, Score: &sc,
					Message: fmt.Sprintf("the judge scored the answer %d/10, asked again", s.Score), Data: map[string]any{"score": s.Score, "weighted_score": s.WeightedScore}}}}
			state, err := next.renderState()
			if err != nil {
				return nil, err
			}
			cm.Files = append(cm.Files, sm.File{Name: sm.StateFile, Data: state})
			return cm, nil
		}}, nil
}
