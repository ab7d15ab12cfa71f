package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/research"
)

// researchFlags are the flags of moot run that turn research on and set
// its limits.
func researchFlags() []ucli.Flag {
	d := research.DefaultLimits
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "research", Usage: "let the debaters search the web and read pages, and check every ground citing a URL (stored in debate.md; needs " + research.SearchEnv + ")"},
		&ucli.IntFlag{Name: "research-searches", Value: d.Searches, Usage: "with --research: at most `N` searches an answer"},
		&ucli.IntFlag{Name: "research-pages", Value: d.Pages, Usage: "with --research: at most `N` pages read an answer"},
		&ucli.IntFlag{Name: "research-bytes", Value: d.Bytes, Usage: "with --research: at most `N` bytes of page text shown to a model an answer"},
		&ucli.DurationFlag{Name: "research-time", Value: d.Time, Usage: "with --research: at most `DURATION` of research an answer"},
		&ucli.BoolFlag{Name: "research-allow-private", Usage: "let research read private, loopback and link-local addresses (an intranet; tests)"},
	}
}

// researchOverride returns the research limits the flags set, or nil when
// they do not turn research on: a debate stored with research keeps it.
func researchOverride(cmd *ucli.Command) *research.Limits {
	set := cmd.Bool("research")
	for _, f := range []string{"research-searches", "research-pages", "research-bytes", "research-time"} {
		set = set || cmd.IsSet(f)
	}
	if !set {
		return nil
	}
	l := research.Limits{Searches: int(cmd.Int("research-searches")), Pages: int(cmd.Int("research-pages")),
		Bytes: int(cmd.Int("research-bytes")), Time: cmd.Duration("research-time")}.Normal()
	return &l
}

// researchTools returns what makes the tools of a run that researches,
// from MOOT_SEARCH and the flags.
func (a *app) researchTools(cmd *ucli.Command) func() (*driver.ResearchTools, error) {
	return func() (*driver.ResearchTools, error) {
		p, err := research.NewProvider(a.io.Getenv(research.SearchEnv), a.io.Getenv, nil)
		if err != nil {
			// Like a missing model key: the endpoint cannot be used.
			return nil, withCode(ExitModel, err, "for example: "+research.SearchEnv+"=searxng:http://localhost:8888; 'moot research test' checks it")
		}
		return &driver.ResearchTools{Provider: p, Reader: &research.Reader{AllowPrivate: cmd.Bool("research-allow-private")}}, nil
	}
}

// withResearch sets the research of a run's options from its flags.
func (a *app) withResearch(cmd *ucli.Command, opts *driver.Options) {
	opts.Overrides.Research = researchOverride(cmd)
	opts.Research = a.researchTools(cmd)
}

func (a *app) researchCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "research",
		Usage: "check the search provider research uses",
		Commands: []*ucli.Command{{
			Name:         "test",
			Usage:        "search once with the provider " + research.SearchEnv + " names, and say what came back",
			ArgsUsage:    "[QUERY]",
			OnUsageError: usageOnError,
			Flags: []ucli.Flag{
				&ucli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after `DURATION`"},
			},
			Action: func(ctx context.Context, cmd *ucli.Command) error {
				if cmd.Args().Len() > 1 {
					return usageError("research test takes at most one query (quote it)")
				}
				query := "structured debate"
				if cmd.Args().Len() == 1 {
					query = cmd.Args().First()
				}
				p, err := research.NewProvider(a.io.Getenv(research.SearchEnv), a.io.Getenv, &http.Client{Timeout: cmd.Duration("timeout")})
				if err != nil {
					return badUsage(err, "for example: "+research.SearchEnv+"=searxng:http://localhost:8888")
				}
				ctx, cancel := context.WithTimeout(ctx, cmd.Duration("timeout"))
				defer cancel()
				rs, err := p.Search(ctx, query, 5)
				if err != nil {
					msg := err.Error()
					if ctx.Err() != nil {
						msg = fmt.Sprintf("%s: no answer within %s", p.Name(), cmd.Duration("timeout"))
					}
					if m, ok := p.(research.Masker); ok {
						msg = m.Mask(msg)
					}
					return withCode(ExitModel, fmt.Errorf("research test: %s", msg))
				}
				fmt.Fprintf(a.io.Stdout, "%s answered %q with %d results\n", p.Name(), query, len(rs))
				for i, r := range rs {
					fmt.Fprintf(a.io.Stdout, "%d. %s\n   %s\n", i+1, strings.Join(strings.Fields(r.Title), " "), r.URL)
				}
				return nil
			},
		}},
	}
}
