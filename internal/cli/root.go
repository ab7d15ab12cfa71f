package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/live"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/serve"
	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// rootDebate is one debate under the debates root: a folder of its own
// there, or a debate of one of its tournaments.
type rootDebate struct {
	// Name is how the whole-root commands name it: its slug, or for a
	// tournament's debate its path from the root
	// (tournaments/cup/m01-r1-a-vs-b), which every command that takes a
	// debate takes too.
	Name string
	Path string
	// Tournament names the tournament the debate belongs to; "" for a
	// debate of its own.
	Tournament string
}

// rootTournament is one tournament under the debates root.
type rootTournament struct {
	Name string
	Path string
}

// rootDebates lists every debate under rootDir, the debates of its own
// first, then those of each tournament, each in order of name, and the
// tournaments. A root that does not exist holds none.
func rootDebates(rootDir string) ([]rootDebate, []rootTournament, error) {
	names, err := listDebates(rootDir)
	if err != nil {
		return nil, nil, err
	}
	var out []rootDebate
	for _, n := range names {
		out = append(out, rootDebate{Name: n, Path: filepath.Join(rootDir, n)})
	}
	tdir := filepath.Join(rootDir, tournament.Dir)
	tnames, err := store.Debates(tdir, tournament.FileName)
	if err != nil {
		return nil, nil, err
	}
	var ts []rootTournament
	for _, t := range tnames {
		path := filepath.Join(tdir, t)
		ts = append(ts, rootTournament{Name: t, Path: path})
		inner, err := store.Debates(path, sm.StateFile)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range inner {
			out = append(out, rootDebate{Name: tournament.Dir + "/" + t + "/" + n, Path: filepath.Join(path, n), Tournament: t})
		}
	}
	return out, ts, nil
}

// readChecked reads the debate in d with its own protocol's code for the
// read command command, and refuses it with exit 4 when it fails moot
// check, naming its problems (see loadChecked).
func (a *app) readChecked(d *store.Dir, command string) (sm.Protocol, sm.Debate, error) {
	p, err := a.checkedProtocol(d)
	if err != nil {
		return nil, nil, err
	}
	deb, err := loadChecked(d, p, command)
	return p, deb, err
}

// debateSummary is one debate's line of the whole-root commands (list,
// status without a debate, serve's index): its protocol, where it stands
// in its protocol's unit, who leads or how it came out, and its cost.
type debateSummary struct {
	Debate     string `json:"debate"`
	Path       string `json:"path"`
	Tournament string `json:"tournament,omitempty"`
	Protocol   string `json:"protocol,omitempty"`
	Motion     string `json:"motion,omitempty"`
	Unit       string `json:"unit,omitempty"`
	Done       int    `json:"done"`
	Total      int    `json:"total"`
	Complete   bool   `json:"complete"`
	Phase      string `json:"phase,omitempty"`
	Next       string `json:"next,omitempty"`
	// Where says where the debate stands in words: "3 of 3 exchanges,
	// ended", "1 of 5 turns, think".
	Where  string `json:"where,omitempty"`
	Leader string `json:"leader,omitempty"`
	// Cost is what its calls cost in a word or two ("$0.0123", "unknown",
	// "$0.0123 + unknown", "no calls"); CostUSD the same in dollars, null
	// when a model has no price; UnknownModels those models.
	Cost          string   `json:"cost,omitempty"`
	CostUSD       *float64 `json:"cost_usd"`
	UnknownModels []string `json:"unknown_models,omitempty"`
	Calls         int      `json:"calls"`
	// Error says why the debate could not be read; the other fields are
	// then empty.
	Error string `json:"error,omitempty"`
}

// summarize reads one debate for the whole-root commands. A debate that
// cannot be read, or that fails check, is summarized by why.
func (a *app) summarize(rd rootDebate, table prices.Table) debateSummary {
	s := debateSummary{Debate: rd.Name, Path: rd.Path, Tournament: rd.Tournament}
	if err := a.fillSummary(&s, table); err != nil {
		s = debateSummary{Debate: rd.Name, Path: rd.Path, Tournament: rd.Tournament, Error: err.Error()}
	}
	return s
}

func (a *app) fillSummary(s *debateSummary, table prices.Table) error {
	d, err := store.Open(s.Path)
	if err != nil {
		return err
	}
	defer d.Close()
	p, deb, err := a.readChecked(d, "status")
	if err != nil {
		return err
	}
	if state, err := d.ReadFile(sm.StateFile); err == nil {
		s.Motion = live.Motion(state)
	}
	st := deb.Status()
	s.Protocol, s.Unit, s.Done, s.Total, s.Complete, s.Phase, s.Next = p.Name(), st.Unit, st.Done, st.Total, st.Complete, st.Phase, st.Next
	s.Where = whereText(st)
	if st.Complete {
		// dialectic's ended debate still waits in its files for the
		// arguments of an exchange it will never have.
		s.Phase = "complete"
	}
	if l, ok := deb.(sm.Leader); ok {
		s.Leader = l.Leader()
	}
	bill, err := debateBill(d, table, driver.RoleNames(p))
	if err != nil {
		return err
	}
	t := bill.Total
	s.Calls, s.UnknownModels, s.Cost = t.Calls, t.Unknown, shortCost(t)
	if t.Known() {
		usd := t.USD
		s.CostUSD = &usd
	}
	return nil
}

// whereText says where a debate stands in its protocol's unit: "3 of 3
// exchanges, ended", "2 exchanges, awaiting judgment".
func whereText(st sm.Status) string {
	if st.Unit == "" {
		st.Unit = "step"
	}
	// The protocol's own count: forum's verdict and refine's synthesis
	// apart from the turns and rounds.
	s := st.Progress()
	if st.Complete {
		return s + ", ended"
	}
	if st.Phase != "" {
		s += ", " + strings.ReplaceAll(st.Phase, "_", " ")
	}
	return s
}

// shortCost says in a word or two what t cost: "$0.0123", "unknown" (no
// price for its models), "$0.0123 + unknown", or "no calls".
func shortCost(t prices.Tally) string {
	switch {
	case t.Calls == 0:
		return "no calls"
	case t.Known():
		return prices.USD(t.USD)
	case t.USD > 0:
		return prices.USD(t.USD) + " + unknown"
	}
	return "unknown"
}

// describeForServe is what moot serve's index shows of the debate or the
// tournament at dir.
func (a *app) describeForServe(dir string, table prices.Table) serve.Summary {
	if _, err := os.Lstat(filepath.Join(dir, tournament.FileName)); err == nil {
		return a.describeTournament(dir, table)
	}
	s := a.summarize(rootDebate{Path: dir}, table)
	if s.Error != "" {
		return serve.Summary{Error: oneLine(s.Error, 200)}
	}
	return serve.Summary{Protocol: s.Protocol, State: s.Where, Leader: s.Leader, Cost: s.Cost, Motion: s.Motion}
}

// describeTournament says where the tournament at dir stands: its
// debates done, its leader by rating, its cost.
func (a *app) describeTournament(dir string, table prices.Table) serve.Summary {
	t, p, err := a.readTournament(dir)
	if err != nil {
		return serve.Summary{Error: oneLine(err.Error(), 200)}
	}
	st := a.standingsOf(dir, t, a.results(dir, t, p), table)
	out := serve.Summary{Protocol: t.Protocol, Cost: shortCost(st.bill.Total), Leader: "no result yet"}
	out.State = fmt.Sprintf("%d of %s done", st.Counts["done"], english.Count(len(t.Debates), "debate"))
	if n := st.Counts["failed"]; n > 0 {
		out.State += fmt.Sprintf(", %d failed", n)
	}
	if len(st.Ratings) > 0 {
		out.Leader = fmt.Sprintf("%s (Bradley-Terry %.1f)", st.Ratings[0].Model, st.Ratings[0].BT)
	}
	return out
}
