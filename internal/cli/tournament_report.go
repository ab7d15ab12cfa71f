package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/page"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/rating"
	"github.com/moot-dev/moot/internal/termwidth"
	"github.com/moot-dev/moot/internal/tournament"
	"github.com/moot-dev/moot/store"
)

// Standings' bootstrap: resamples and seed, so that the same results
// always give the same intervals.
const (
	standingsResamples = 1000
	standingsSeed      = 20261123
)

// standings is what status, report and export say of a tournament.
type standings struct {
	Tournament string         `json:"tournament"`
	Protocol   string         `json:"protocol"`
	Path       string         `json:"path"`
	Counts     map[string]int `json:"counts"`
	Ratings    []ratingJSON   `json:"ratings"`
	Side       *advantage     `json:"side_advantage"`
	First      *advantage     `json:"first_speaker_advantage"`
	Motions    []motionJSON   `json:"motions"`
	// Personas is silicon-forum's batch summary, for debates whose
	// outcomes carry its columns (forum's).
	Personas *personaSummary `json:"personas,omitempty"`
	Tokens   map[string]int  `json:"tokens_by_model"`
	// Cost is the tournament's tokens and cost, by model asked.
	Cost    map[string]any `json:"cost"`
	bill    prices.Bill
	Debates []debateResult `json:"debates"`
	matrix  rating.Matrix  // for the heat map
	games   []rating.Game  // finished debates
	plan    *tournament.Tournament
}

type ratingJSON struct {
	Model  string  `json:"model"`
	BT     float64 `json:"bradley_terry"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Elo    float64 `json:"elo"`
	Games  int     `json:"games"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Tokens int     `json:"tokens"`
}

type advantage struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	N        int     `json:"n"`
}

type motionJSON struct {
	Motion   string `json:"motion"`
	Games    int    `json:"games"`
	PropWins int    `json:"proposition_wins"`
	OppWins  int    `json:"opposition_wins"`
	Draws    int    `json:"draws"`
}

// standingsOf computes the standings of the tournament t at dir.
func (a *app) standingsOf(dir string, t *tournament.Tournament, rs []debateResult, table prices.Table) standings {
	g := games(t, rs)
	s := standings{Tournament: t.Name, Protocol: t.Protocol, Path: dir, Counts: counts(rs), Debates: rs,
		Ratings: []ratingJSON{}, Motions: []motionJSON{}, Tokens: map[string]int{}, games: g, plan: t}
	var lines []driver.Usage
	for _, r := range rs {
		for m, n := range r.ByModel {
			s.Tokens[m] += n
		}
		lines = append(lines, r.Usage...)
	}
	var rows []map[string]string
	for _, r := range rs {
		if r.State == "done" && r.Outcome != nil && r.Outcome.Columns != nil {
			rows = append(rows, r.Outcome.Columns)
		}
	}
	s.Personas = summarizePersonas(rows)
	s.bill = billByModel(table, lines)
	s.Cost = costJSON(s.bill)
	if len(g) > 0 {
		for _, r := range rating.Ratings(g, standingsResamples, standingsSeed) {
			s.Ratings = append(s.Ratings, ratingJSON{Model: r.Model, BT: round1(r.BT), Low: round1(r.Low), High: round1(r.High), Elo: round1(r.Elo),
				Games: r.Games, Wins: r.Wins, Draws: r.Draws, Losses: r.Losses, Tokens: s.Tokens[r.Model]})
		}
		s.matrix = rating.WinMatrix(g)
		if est, lo, hi, n := rating.SideAdvantage(g, standingsResamples, standingsSeed); n > 0 && !math.IsNaN(est) {
			s.Side = &advantage{est, lo, hi, n}
		}
		if est, lo, hi, n := rating.FirstSpeakerAdvantage(g, standingsResamples, standingsSeed); n > 0 && !math.IsNaN(est) {
			s.First = &advantage{est, lo, hi, n}
		}
		for _, m := range rating.PerMotion(g) {
			s.Motions = append(s.Motions, motionJSON{Motion: m.Motion, Games: m.Games, PropWins: m.PropWins, OppWins: m.OppWins, Draws: m.Draws})
		}
	}
	return s
}

func round1(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return math.Round(x*10) / 10
}

func (a *app) tournamentStatusCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "status",
		Usage:        "where the tournament stands: its debates, and the leaderboard so far",
		ArgsUsage:    "<name>",
		Flags:        append(jsonFlags(), pricesFlag()),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			dir, t, p, err := a.openTournament(cmd)
			if err != nil {
				return err
			}
			table, err := a.priceTable(cmd)
			if err != nil {
				return err
			}
			s := a.standingsOf(dir, t, a.results(dir, t, p), table)
			if cmd.Bool("json") {
				return writeJSON(a.io.Stdout, s)
			}
			w := a.io.Stdout
			fmt.Fprintf(w, "tournament  %s (%s: %s, %s, %s)\n", t.Name, t.Protocol, english.Count(len(t.Models), "model"), english.Count(len(t.Motions), "motion"), english.Count(len(t.Debates), "debate"))
			c := s.Counts
			fmt.Fprintf(w, "debates     done %d · running %d · failed %d · to run %d\n", c["done"], c["running"], c["failed"], c["pending"])
			if t.Runs > 0 {
				fmt.Fprintln(w, a.asInvoked(fmt.Sprintf("leaderboard none: a batch, each model debating itself; 'moot tournament report %s' sums up the personas", t.Name)))
			} else if len(s.Ratings) == 0 {
				fmt.Fprintf(w, "leaderboard none yet: no debate is done\n")
			} else {
				fmt.Fprintf(w, "leaderboard Bradley-Terry rating [95%% interval, bootstrap over debates] · Elo · won-drawn-lost\n")
				for i, r := range s.Ratings {
					fmt.Fprintf(w, "  %2d. %s %6.0f [%4.0f, %4.0f] · Elo %4.0f · %d-%d-%d\n", i+1, termwidth.Pad(visible(r.Model, false), 28), r.BT, r.Low, r.High, r.Elo, r.Wins, r.Draws, r.Losses)
				}
			}
			if tot := s.bill.Total; tot.Calls > 0 {
				fmt.Fprintf(w, "models      %s · %s · cost %s\n", english.Count(tot.Calls, "model call"), tokensText(tot), visible(tot.Cost(), false))
			}
			if c["done"] < len(t.Debates) {
				fmt.Fprint(w, a.asInvoked("next        moot tournament run "+t.Name))
				if c["failed"] > 0 {
					fmt.Fprintf(w, " --retry-failed")
				}
				fmt.Fprintln(w)
			} else {
				fmt.Fprintln(w, a.asInvoked("next        nothing: every debate is done; moot tournament report "+t.Name))
			}
			return nil
		},
	}
}

func (a *app) tournamentReportCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "report",
		Usage:     "write the tournament's README.md and win-matrix.svg (and report.html with --html)",
		ArgsUsage: "<name>",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "html", Usage: "also write report.html: the same report as one self-contained page"},
			&ucli.BoolFlag{Name: "stdout", Usage: "print README.md (the HTML with --html) instead of writing files"},
			pricesFlag(),
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			dir, t, p, err := a.openTournament(cmd)
			if err != nil {
				return err
			}
			table, err := a.priceTable(cmd)
			if err != nil {
				return err
			}
			s := a.standingsOf(dir, t, a.results(dir, t, p), table)
			svg := rating.SVGHeatMap(s.matrix)
			md := s.markdown("![The win matrix](win-matrix.svg)")
			var doc []byte
			if cmd.Bool("html") {
				if doc, err = s.html(svg); err != nil {
					return err
				}
			}
			if cmd.Bool("stdout") {
				out := []byte(md)
				if doc != nil {
					out = doc
				}
				_, err := a.io.Stdout.Write(out)
				return err
			}
			files := []store.File{{Name: "README.md", Data: []byte(md)}, {Name: "win-matrix.svg", Data: []byte(svg)}}
			if doc != nil {
				files = append(files, store.File{Name: page.File, Data: doc})
			}
			td, err := store.Open(dir)
			if err != nil {
				return err
			}
			defer td.Close()
			if err := td.Lock(ctx, "moot tournament report", true); err != nil {
				return err
			}
			if err := td.Commit(files); err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintf(a.io.Stdout, "wrote %s\n", filepath.Join(dir, f.Name))
			}
			if doc == nil {
				// An earlier --html page may show an older standing: it
				// is said so only when it differs from the page the
				// report would write now.
				old, err := os.ReadFile(filepath.Join(dir, page.File))
				now, herr := s.html(svg)
				if err == nil && (herr != nil || !bytes.Equal(old, now)) {
					fmt.Fprintf(a.io.Stderr, "moot: %s is from an earlier report and now out of date; '%s' writes it afresh\n",
						filepath.Join(dir, page.File), a.asInvoked("moot tournament report "+shellQuote(t.Name)+" --html"))
				}
			}
			return nil
		},
	}
}

// html is the tournament's report as one page, drawn as every report is:
// its markdown rendered by the shared page, and the win matrix's SVG, svg,
// drawn where README.md links to the file, through html/template.
func (s standings) html(svg string) ([]byte, error) {
	// The markdown is written with a placeholder paragraph for the SVG,
	// and rendered on either side of it.
	const slot = "WINMATRIXSVG"
	before, after, found := strings.Cut(s.markdown(slot), "\n\n"+slot+"\n\n")
	if found {
		before += "\n\n"
	}
	var body bytes.Buffer
	if err := page.Render([]byte(before), &body); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	if found {
		if err := figureTemplate.Execute(&body, template.HTML(svg)); err != nil {
			return nil, err
		}
		if err := page.Render([]byte(after), &body); err != nil {
			return nil, fmt.Errorf("render the report: %w", err)
		}
	}
	return page.Wrap(page.Truncate("Tournament "+s.plan.Name, 120), body.Bytes()), nil
}

// figureTemplate holds the win matrix's SVG, which rating.SVGHeatMap drew
// with every text escaped.
var figureTemplate = template.Must(template.New("figure").Parse("<figure>{{.}}</figure>\n"))

// leaderboardPage is the report page of the tournament at dir, as
// `moot tournament report --html --stdout` prints it, for moot serve.
func (a *app) leaderboardPage(dir string, table prices.Table) ([]byte, error) {
	t, p, err := a.readTournament(dir)
	if err != nil {
		return nil, err
	}
	s := a.standingsOf(dir, t, a.results(dir, t, p), table)
	return s.html(rating.SVGHeatMap(s.matrix))
}

// markdown is the tournament's report; matrix is how the win matrix is
// shown (a link to the SVG file, or the SVG inline).
func (s standings) markdown(matrix string) string {
	var b strings.Builder
	t := s.plan
	fmt.Fprintf(&b, "# Tournament %s\n\n", escape.Markdown(t.Name))
	c := s.Counts
	fmt.Fprintf(&b, "%s of the %s protocol between %s on %s: %d done, %d failed, %d running, %d still to run.\n\n",
		english.Count(len(t.Debates), "debate"), t.Protocol, english.Count(len(t.Models), "model"), english.Count(len(t.Motions), "motion"),
		c["done"], c["failed"], c["running"], c["pending"])
	if t.Runs > 0 {
		fmt.Fprintf(&b, "A batch, as silicon-forum's multi_debate.py runs one: each model debated itself %s on every motion, with a fresh draw of debaters, judge and first speaker each time, so there is no leaderboard of models.\n\n", english.Count(t.Runs, "time"))
	} else if len(s.Ratings) == 0 {
		b.WriteString("## Leaderboard\n\nNo debate is done yet.\n\n")
	} else {
		b.WriteString("## Leaderboard\n\n")
		b.WriteString("Bradley-Terry ratings, on the Elo scale (a 400-point lead is 10 to 1 odds), with 95% intervals from a bootstrap over the debates: two models whose intervals overlap are not told apart by these results. Elo, computed game by game, is beside them for familiarity.\n\n")
		b.WriteString("| # | model | rating | 95% interval | Elo | won | drawn | lost | tokens |\n|---:|---|---:|---|---:|---:|---:|---:|---:|\n")
		for i, r := range s.Ratings {
			fmt.Fprintf(&b, "| %d | %s | %.0f | %.0f to %.0f | %.0f | %d | %d | %d | %d |\n", i+1, escape.Markdown(r.Model), r.BT, r.Low, r.High, r.Elo, r.Wins, r.Draws, r.Losses, r.Tokens)
		}
		b.WriteString("\n## Win matrix\n\nEach row's points against each column (a win 1, a draw ½), of the games they played.\n\n")
		b.WriteString(matrix + "\n\n")
	}
	if s.Side != nil || s.First != nil {
		b.WriteString("## Sides\n\n")
		if a := s.Side; a != nil {
			fmt.Fprintf(&b, "- The proposition's advantage: %+.2f [%+.2f, %+.2f] of a point above an even ½, over %s%s.\n", a.Estimate, a.Low, a.High, english.Count(a.N, "debate"), significant(a))
		}
		if a := s.First; a != nil {
			fmt.Fprintf(&b, "- The first speaker's advantage: %+.2f [%+.2f, %+.2f], over %s%s.\n", a.Estimate, a.Low, a.High, english.Count(a.N, "debate"), significant(a))
		}
		b.WriteString("\nEvery pair meets on every motion on both sides, so a side's advantage cancels out of the ratings.\n\n")
	}
	if s.Personas != nil {
		s.Personas.markdown(&b)
	}
	if len(s.Motions) > 0 {
		b.WriteString("## Motions\n\n| motion | debates | proposition won | opposition won | drawn |\n|---|---:|---:|---:|---:|\n")
		for _, m := range s.Motions {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", escape.Markdown(m.Motion), m.Games, m.PropWins, m.OppWins, m.Draws)
		}
		b.WriteString("\n")
	}
	if tot := s.bill.Total; tot.Calls > 0 {
		b.WriteString("## Tokens and cost\n\n| model | calls | prompt | cached | completion | cost |\n|---|---:|---:|---:|---:|---:|\n")
		for _, r := range s.bill.Roles {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", escape.Markdown(r.Role), r.Calls, r.Prompt, r.Cached, r.Completion, escape.Markdown(r.Cost()))
		}
		fmt.Fprintf(&b, "| all | %d | %d | %d | %d | %s |\n", tot.Calls, tot.Prompt, tot.Cached, tot.Completion, escape.Markdown(tot.Cost()))
		b.WriteString("\nModels that judge or moderate count here too. Costs are estimated at published prices moot cannot check (`--prices FILE` or `MOOT_PRICES` gives yours); a model without a price is shown as unknown, never guessed.\n\n")
	}
	var failed []debateResult
	for _, r := range s.Debates {
		if r.State == "failed" {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		b.WriteString("## Failed debates\n\n")
		for _, r := range failed {
			fmt.Fprintf(&b, "- %s: %s\n", escape.Markdown(r.Slug), escape.Markdown(oneLine(r.Failure, 200)))
		}
		fmt.Fprintf(&b, "\n`moot tournament run %s --retry-failed` runs them again.\n\n", t.Name)
	}
	b.WriteString("---\n\n*Generated by `moot tournament report` from the tournament's debates. Each is an ordinary moot debate directory beside this file.*\n")
	return b.String()
}

// significant marks an advantage whose interval excludes zero.
func significant(a *advantage) string {
	if a.Low > 0 || a.High < 0 {
		return "; its interval excludes zero"
	}
	return ""
}

func (a *app) tournamentExportCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "export",
		Usage:     "print one row per debate of the tournament as CSV or JSON: who met, on what, and how it came out",
		ArgsUsage: "<name>",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "csv", Usage: "the `FORMAT`: csv (RFC 4180, with a header) or json"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output"},
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			format := strings.ToLower(cmd.String("format"))
			if format != "csv" && format != "json" {
				return usageError("--format %q is not csv or json", cmd.String("format"))
			}
			dir, t, p, err := a.openTournament(cmd)
			if err != nil {
				return err
			}
			rs := a.results(dir, t, p)
			var out []byte
			if format == "json" {
				var buf bytes.Buffer
				if err := writeJSON(&buf, rs); err != nil {
					return err
				}
				out = buf.Bytes()
			} else if out, err = exportTournamentCSV(t, rs); err != nil {
				return err
			}
			if path := cmd.String("output"); path != "" {
				if err := writeOutput(path, out); err != nil {
					return fmt.Errorf("write -o %s: %w", path, err)
				}
				fmt.Fprintf(a.io.Stderr, "moot: wrote %s to %s\n", english.Count(len(rs), "debate"), path)
				return nil
			}
			_, err = a.io.Stdout.Write(out)
			return err
		},
	}
}

// exportTournamentCSV writes a row per debate: its pairing, state and
// outcome, then the protocol's own columns of the outcome (silicon-forum's
// for forum), in name order.
func exportTournamentCSV(t *tournament.Tournament, rs []debateResult) ([]byte, error) {
	var extra []string
	for _, r := range rs {
		if r.Outcome == nil {
			continue
		}
		for k := range r.Outcome.Columns {
			if !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	// A batch numbers its runs and names each run's transcript, as the
	// original's results.csv does: the README.md 'moot report' writes in
	// the debate's folder.
	batch := t.Runs > 0 && len(extra) > 0
	if batch {
		extra = append(extra, "run_num", "transcript_filename")
	}
	slices.Sort(extra)
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.UseCRLF = true
	own := []string{"debate", "round", "motion", "proposition", "opposition", "state", "winner", "winner_model",
		"proposition_score", "opposition_score", "first", "tokens", "failure"}
	header := slices.Clone(own)
	// A protocol's column called as one of the tournament's own (forum's
	// winner, a persona's name) is headed with the protocol's name.
	for _, k := range extra {
		if slices.Contains(own, k) {
			k = t.Protocol + "_" + k
		}
		header = append(header, k)
	}
	if err := w.Write(header); err != nil {
		return nil, err
	}
	for _, r := range rs {
		row := []string{r.Slug, strconv.Itoa(r.Round), t.Motions[r.Motion].Text, r.Proposition, r.Opposition, r.State}
		if o := r.Outcome; o != nil {
			winner := ""
			switch o.Winner {
			case "proposition":
				winner = r.Proposition
			case "opposition":
				winner = r.Opposition
			}
			row = append(row, o.Winner, winner, strconv.FormatFloat(o.Proposition, 'f', -1, 64), strconv.FormatFloat(o.Opposition, 'f', -1, 64), o.First)
		} else {
			row = append(row, "", "", "", "", "")
		}
		row = append(row, strconv.Itoa(r.Tokens), r.Failure)
		for _, k := range extra {
			v := ""
			switch {
			case batch && k == "run_num":
				v = strconv.Itoa(r.Run)
			case batch && k == "transcript_filename":
				v = r.Slug + "/README.md"
			case r.Outcome != nil:
				v = r.Outcome.Columns[k]
			}
			row = append(row, v)
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return out.Bytes(), w.Error()
}
