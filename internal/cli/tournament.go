package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/rating"
	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// DefaultTournamentExchanges is how many exchanges a dialectic debate of
// a tournament has when --exchanges is not given.
const DefaultTournamentExchanges = 3

// The positions the advocates of a moderated tournament defend when
// --position-a and --position-b are not given.
const (
	TournamentPositionA = "In favour of the motion."
	TournamentPositionB = "Against the motion."
)

func (a *app) tournamentCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "tournament",
		Usage: "run many debates between models and rank the models, with honest error bars",
		Commands: []*ucli.Command{
			a.tournamentNewCommand(),
			a.tournamentRunCommand(),

			a.tournamentStatusCommand(),
			a.tournamentReportCommand(),
			a.tournamentPlanCommand(),
			a.tournamentExportCommand(),
		},
	}
}

// sidedProtocols names the protocols a tournament can run: those whose
// debates have two sides for models to take.
func (a *app) sidedProtocols() []string {
	var out []string
	for _, p := range a.io.Protocols {
		if _, ok := p.(sm.Sided); ok {
			out = append(out, p.Name())
		}
	}
	return out
}

// tournamentDir is the folder of the tournament called name.
func tournamentDir(cmd *ucli.Command, name string) (string, error) {
	if !store.ValidSlug(name) {
		return "", badUsage(fmt.Errorf("%q is not a valid tournament name", name),
			"a name is lowercase letters, digits and hyphens, starting with a letter or digit, at most 64 characters: spring-2026")
	}
	return filepath.Join(root(cmd), tournament.Dir, name), nil
}

func (a *app) tournamentNewCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "new",
		Usage:     "plan a tournament: every pair of models meets on every motion twice, sides swapped; a debate directory each",
		ArgsUsage: "<name>",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "protocol", Value: sm.Default, Usage: "the debates' `PROTOCOL`: one whose two sides models take (" + strings.Join(a.sidedProtocols(), ", ") + ")"},
			&ucli.StringFlag{Name: "models", Usage: "the `MODELS` that meet, comma-separated (two or more)"},
			&ucli.StringFlag{Name: "motions", Usage: "`FILE` of motions: one a line, or a YAML or JSON list with motion, definitions and scope"},
			&ucli.IntFlag{Name: "rounds-per-pair", Value: 1, Usage: "how many times every pair meets on every motion (`K`), twice each time"},
			&ucli.IntFlag{Name: "runs", Usage: "a batch instead of pairings: each model debates itself `N` times on every motion, a fresh draw each (silicon-forum's multi_debate.py)"},
			&ucli.StringFlag{Name: "judge-model", Usage: "the judges' `MODEL` (default: the default model)"},
			&ucli.StringFlag{Name: "judges", Usage: "a panel of judge `MODELS` for every debate, comma-separated"},
		}, a.protocolFlags()...),
		DisableSliceFlagSeparator: true,
		OnUsageError:              usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("tournament new takes one name")
			}
			return a.newTournament(cmd, cmd.Args().First())
		},
	}
}

// newTournament makes the tournament called name: tournament.md and a
// debate directory per pairing, all at once.
func (a *app) newTournament(cmd *ucli.Command, name string) error {
	dir, err := tournamentDir(cmd, name)
	if err != nil {
		return err
	}
	p, err := a.io.Protocols.Lookup(cmd.String("protocol"))
	if err != nil {
		return badUsage(fmt.Errorf("no protocol %q", cmd.String("protocol")), "'moot protocols' lists the protocols")
	}
	sided, ok := p.(sm.Sided)
	if !ok {
		return usageError("a %s debate has no two sides for models to take: a tournament's protocol is one whose debates have a winner (%s)", p.Name(), strings.Join(a.sidedProtocols(), ", "))
	}
	var models []string
	for _, m := range strings.Split(cmd.String("models"), ",") {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	runs := 0
	if cmd.IsSet("runs") {
		runs = int(cmd.Int("runs"))
		if runs < 1 || runs > rating.MaxRuns {
			return usageError("--runs %d is not from 1 to %d", runs, rating.MaxRuns)
		}
		if cmd.IsSet("rounds-per-pair") {
			return usageError("--rounds-per-pair: a batch (--runs) has no pairs; --runs says how many times each model debates")
		}
		// A batch seats each model on both sides: a model named twice is
		// the same as named once.
		var once []string
		for _, m := range models {
			if !slices.Contains(once, m) {
				once = append(once, m)
			}
		}
		models = once
	}
	if len(models) == 0 {
		return badUsage(errors.New("--models: a batch (--runs) needs a model"), "--models llama3.1")
	}
	if len(models) < 2 && runs == 0 {
		return badUsage(errors.New("--models: a tournament needs two models or more"), "--models gpt-4o,claude-sonnet-4,llama3.1", "or one model with --runs N: a batch of N debates")
	}
	_, gives := p.(sm.MotionGiver)
	if !cmd.IsSet("motions") && !gives {
		return badUsage(errors.New("--motions FILE is required"), "a file with one motion a line, or a YAML or JSON list of motion, definitions and scope")
	}
	var motions []tournament.Motion
	if cmd.IsSet("motions") {
		data, err := readFlagFile("motions", cmd.String("motions"))
		if err != nil {
			return err
		}
		if motions, err = tournament.ParseMotions(data); err != nil {
			return withCode(ExitUsage, fmt.Errorf("read --motions %s: %w", cmd.String("motions"), err))
		}
	}
	rounds := int(cmd.Int("rounds-per-pair"))
	if rounds < 1 {
		return usageError("--rounds-per-pair %d is below 1", rounds)
	}
	var panel []sm.Judge
	var judges []string
	if cmd.IsSet("judges") {
		if _, ok := p.(sm.Panelist); !ok {
			return usageError("--judges: a %s debate has no judge to make a panel of", p.Name())
		}
		for _, m := range strings.Split(cmd.String("judges"), ",") {
			judges = append(judges, strings.TrimSpace(m))
		}
		if panel, err = sm.NewPanel(judges); err != nil {
			return badUsage(fmt.Errorf("--judges: %w", err))
		}
	}
	judgeRole := ""
	if pl, ok := p.(sm.Panelist); ok {
		judgeRole = pl.JudgeRole()
	}
	judgeModel := strings.TrimSpace(cmd.String("judge-model"))
	if judgeModel != "" && judgeRole == "" {
		return usageError("--judge-model: a %s debate has no judge", p.Name())
	}
	first := ""
	if len(motions) > 0 {
		first = motions[0].Text
	}
	base, err := a.newInput(cmd, p, "tournament", first)
	if errors.Is(err, errNoMotion) {
		return badUsage(errors.New("--motions FILE is required"), "a file with one motion a line, or a --cast whose topic is the motion")
	}
	if err != nil {
		return err
	}
	if len(motions) == 0 {
		// No --motions: the protocol's flags gave the one motion (forum's
		// cast, its topic).
		motions = []tournament.Motion{{Text: base.Motion}}
	}
	flags := map[string]sm.Flag{}
	for _, f := range p.Flags() {
		flags[f.Name] = f
	}
	if _, ok := flags["exchanges"]; ok && len(base.Values["exchanges"]) == 0 {
		base.Values["exchanges"] = []string{fmt.Sprint(DefaultTournamentExchanges)}
	}
	// A protocol whose advocates defend positions given by flags
	// (moderated) has them defend the motion and oppose it, unless the
	// positions are given: the same words serve every motion.
	_, posA := flags["position-a"]
	_, posB := flags["position-b"]
	if posA && posB && len(base.Values["position-a"]) == 0 && len(base.Values["position-b"]) == 0 {
		base.Values["position-a"] = []string{TournamentPositionA}
		base.Values["position-b"] = []string{TournamentPositionB}
	}
	// A protocol that draws each debate's cast and first speaker by a
	// seed (forum) gets a seed per debate, the tournament's (--seed, else
	// from the clock) plus the debate's number, so that the draws vary
	// between debates, first speakers included, and the same plan draws
	// the same again.
	seeded, seed := false, int64(0)
	if _, ok := flags["seed"]; ok {
		seeded, seed = true, base.Now.UnixNano()%1_000_000_000
		if v := base.Values["seed"]; len(v) > 0 {
			n, err := strconv.ParseInt(strings.TrimSpace(v[len(v)-1]), 10, 64)
			if err != nil || n < 0 {
				return usageError("--seed %q is not a whole number of 0 or more", v[len(v)-1])
			}
			seed = n
		}
		base.Values["seed"] = []string{strconv.FormatInt(seed, 10)}
	}
	texts := make([]string, len(motions))
	for i, m := range motions {
		texts[i] = m.Text
		_, defs := flags["definition"]
		_, scope := flags["scope"]
		if (len(m.Definitions) > 0 && !defs) || (m.Scope != "" && !scope) {
			return usageError("--motions: motion %d has definitions or a scope, which a %s debate does not take", i+1, p.Name())
		}
	}
	var pairs []rating.Pairing
	if runs > 0 {
		pairs, err = rating.Batch(models, texts, runs)
	} else {
		pairs, err = rating.Plan(models, texts, rounds)
	}
	if err != nil {
		return badUsage(err)
	}
	prop, opp := sided.SideRoles()
	var folders []string
	var files []store.File
	var extra []string
	if fm, ok := p.(sm.FolderMaker); ok {
		extra = fm.Folders()
	}
	t := &tournament.Tournament{Name: name, Protocol: p.Name(), Models: models, Motions: motions, Rounds: rounds, Runs: runs,
		Judges: judges, JudgeModel: judgeModel, Settings: base.Values, Created: a.io.Now().UTC().Format(time.RFC3339)}
	for i, pr := range pairs {
		m := motions[pr.MotionIndex]
		in := base
		in.Slug, in.Motion = pr.Slug, m.Text
		in.Values = map[string][]string{}
		for k, v := range base.Values {
			in.Values[k] = v
		}
		if seeded {
			in.Values["seed"] = []string{strconv.FormatInt(seed+int64(i), 10)}
		}
		if len(m.Definitions) > 0 {
			in.Values["definition"] = m.Definitions
		}
		if m.Scope != "" {
			in.Values["scope"] = []string{m.Scope}
		}
		out, err := p.New(in)
		if err != nil {
			var ie *sm.InputError
			if errors.As(err, &ie) {
				return withCode(ExitUsage, fmt.Errorf("debate %s: %w", pr.Slug, ie))
			}
			return withCode(ExitUsage, fmt.Errorf("debate %s: %w", pr.Slug, err))
		}
		roles := map[string]string{prop: pr.Prop, opp: pr.Opp}
		if judgeModel != "" {
			roles[judgeRole] = judgeModel
		} else if runs > 0 && judgeRole != "" && panel == nil {
			// A batch's model plays every role, as the original's --model
			// does, the judge included.
			roles[judgeRole] = pr.Prop
		}
		folders = append(folders, pr.Slug)
		for _, f := range extra {
			folders = append(folders, pr.Slug+"/"+f)
		}
		for _, f := range out {
			data := f.Data
			if f.Name == sm.StateFile {
				if data, err = driver.SeedState(data, roles, panel); err != nil {
					return fmt.Errorf("debate %s: %w", pr.Slug, err)
				}
			}
			files = append(files, store.File{Name: pr.Slug + "/" + f.Name, Data: data})
		}
		t.Debates = append(t.Debates, tournament.Debate{Slug: pr.Slug, Proposition: pr.Prop, Opposition: pr.Opp, Motion: pr.MotionIndex, Round: pr.Round, Run: pr.Run})
	}
	plan, err := t.Render()
	if err != nil {
		return err
	}
	files = append(files, store.File{Name: tournament.FileName, Data: plan})
	d, err := store.Create(dir, folders, files)
	if errors.Is(err, fs.ErrExist) {
		return withCode(ExitUsage, fmt.Errorf("create %s: %w", dir, err),
			fmt.Sprintf("a tournament of that name is there: '%s' carries it on, or choose another name", a.asInvoked("moot tournament run "+shellQuote(name))))
	}
	if err != nil {
		return withCode(ExitError, fmt.Errorf("create %s: %w", dir, err))
	}
	d.Close()
	fmt.Fprintf(a.io.Stdout, "created %s: %s of %s, %s × %s\n", dir, english.Count(len(t.Debates), "debate"), p.Name(),
		english.Count(len(models), "model"), english.Count(len(motions), "motion"))
	fmt.Fprintln(a.io.Stdout, a.asInvoked(fmt.Sprintf("next: moot tournament run %s   (or 'moot tournament plan %s' for one command per debate)", name, name)))
	return nil
}

// openTournament reads the tournament called by the command's first
// argument, and its protocol.
func (a *app) openTournament(cmd *ucli.Command) (string, *tournament.Tournament, sm.Protocol, error) {
	if cmd.Args().Len() != 1 {
		return "", nil, nil, forCommand(usageError("%s takes one tournament", cmd.FullName()), "tournament "+cmd.Name)
	}
	dir, err := tournamentDir(cmd, cmd.Args().First())
	if err != nil {
		return "", nil, nil, err
	}
	t, p, err := a.readTournament(dir)
	return dir, t, p, err
}

// readTournament reads the plan of the tournament at dir, and its
// protocol.
func (a *app) readTournament(dir string) (*tournament.Tournament, sm.Protocol, error) {
	data, err := store.ReadInput(filepath.Join(dir, tournament.FileName), 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, withCode(ExitError, fmt.Errorf("%s: no such tournament", dir), "'moot tournament new NAME --models ... --motions FILE' makes one")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Join(dir, tournament.FileName), err)
	}
	t, err := tournament.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Join(dir, tournament.FileName), err)
	}
	p, err := a.io.Protocols.Lookup(t.Protocol)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Join(dir, tournament.FileName), err)
	}
	return t, p, nil
}

// debateResult is where one debate of a tournament stands.
type debateResult struct {
	tournament.Debate
	// State is "done", "pending", "running" (another process writes it)
	// or "failed".
	State   string      `json:"state"`
	Done    int         `json:"done"`
	Total   int         `json:"total"`
	Outcome *sm.Outcome `json:"outcome,omitempty"`
	Failure string      `json:"failure,omitempty"`
	Tokens  int         `json:"tokens"`
	// ByModel is what the debate's model calls cost, by model.
	ByModel map[string]int `json:"-"`
	// Usage is the debate's usage log.
	Usage []driver.Usage `json:"-"`
	// Pending is set when the debate's last step is recorded in its
	// journal but not yet written out (its writer was killed): readers see
	// the step, the files on disk do not have it until a writer completes
	// it.
	Pending bool  `json:"-"`
	Err     error `json:"-"`
}

// failure is what a tournament keeps of a debate that failed.
type failure struct {
	Debate string `json:"debate"`
	Error  string `json:"error"`
	Time   string `json:"time"`
}

// results reads where every debate of the tournament at dir stands, a
// few at a time.
func (a *app) results(dir string, t *tournament.Tournament, p sm.Protocol) []debateResult {
	out := make([]debateResult, len(t.Debates))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = a.resultOf(dir, t.Debates[i], p)
			}
		}()
	}
	for i := range t.Debates {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// resultOf reads where one debate stands.
func (a *app) resultOf(dir string, deb tournament.Debate, p sm.Protocol) debateResult {
	r := debateResult{Debate: deb, State: "pending"}
	if data, err := store.ReadInput(filepath.Join(dir, tournament.FailuresDir, deb.Slug+".json"), 1<<20); err == nil {
		var f failure
		if json.Unmarshal(data, &f) == nil {
			r.State, r.Failure = "failed", f.Error
		}
	}
	d, err := store.Open(filepath.Join(dir, deb.Slug))
	if err != nil {
		r.State, r.Err, r.Failure = "failed", err, err.Error()
		return r
	}
	defer d.Close()
	r.Pending = d.Pending()
	if d.Writer() != nil {
		r.State = "running"
	}
	sd, err := driver.ReadDebate(d, p)
	if err != nil {
		r.State, r.Err, r.Failure = "failed", err, err.Error()
		return r
	}
	st := sd.Status()
	r.Done, r.Total = st.Done, st.Total
	if st.Complete {
		r.State, r.Failure = "done", ""
		if o, ok := sd.(sm.Outcomer); ok {
			out := o.Outcome()
			r.Outcome = &out
		}
	}
	if lines, err := driver.ReadUsageLines(d); err == nil {
		r.Usage = lines
		r.ByModel = map[string]int{}
		for _, u := range lines {
			r.ByModel[cmp.Or(u.Asked, u.Model)] += u.PromptTokens + u.CompletionTokens
			r.Tokens += u.PromptTokens + u.CompletionTokens
		}
	}
	return r
}

// games are the finished debates' results, for the ratings.
func games(t *tournament.Tournament, rs []debateResult) []rating.Game {
	var out []rating.Game
	for _, r := range rs {
		// A model against itself (a batch) says nothing of models.
		if r.Outcome == nil || r.Outcome.Winner == "" || r.Proposition == r.Opposition {
			continue
		}
		g := rating.Game{A: r.Proposition, B: r.Opposition, Motion: t.Motions[r.Motion].Text}
		switch r.Outcome.Winner {
		case sm.WinProposition:
			g.Score = 1
		case sm.WinOpposition:
			g.Score = 0
		default:
			g.Score = 0.5
		}
		switch r.Outcome.First {
		case sm.WinProposition:
			g.First = r.Proposition
		case sm.WinOpposition:
			g.First = r.Opposition
		}
		out = append(out, g)
	}
	return out
}

// counts tallies the results' states.
func counts(rs []debateResult) map[string]int {
	c := map[string]int{"done": 0, "pending": 0, "running": 0, "failed": 0}
	for _, r := range rs {
		c[r.State]++
	}
	return c
}

func (a *app) tournamentPlanCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "plan",
		Usage:        "print one command per debate still to run, for GNU parallel, xargs -P, a Slurm array or a Kubernetes Job",
		ArgsUsage:    "<name>",
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			dir, t, p, err := a.openTournament(cmd)
			if err != nil {
				return err
			}
			jobs := 0
			for _, r := range a.results(dir, t, p) {
				// A finished debate whose last step is recorded but not
				// written out (its writer was killed) gets a job too:
				// moot run writes the step out and finds nothing to run.
				if r.State == "done" && !r.Pending {
					continue
				}
				fmt.Fprintf(a.io.Stdout, "moot run %s --all --quiet\n", shellQuote(filepath.Join(dir, r.Slug)))
				jobs++
			}
			if jobs == 0 {
				// Stdout stays a list of commands (none), for the pipe.
				fmt.Fprintf(a.io.Stderr, "moot: every debate of %s is done: nothing left to run; '%s' writes its report\n",
					t.Name, a.asInvoked("moot tournament report "+shellQuote(t.Name)))
			}
			return nil
		},
	}
}

// billByModel bills the usage lines at t, a tally per model asked.
func billByModel(t prices.Table, lines []driver.Usage) prices.Bill {
	calls := usageCalls(lines)
	var models []string
	for i := range calls {
		calls[i].Role = cmp.Or(calls[i].Asked, calls[i].Model)
		if !slices.Contains(models, calls[i].Role) {
			models = append(models, calls[i].Role)
		}
	}
	slices.Sort(models)
	return t.Bill(calls, models)
}
