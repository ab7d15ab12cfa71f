package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/live"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/serve"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// liveHelp returns the help of watch and serve, kept here with the
// commands.
func liveHelp() map[string]commandHelp {
	return map[string]commandHelp{"watch": {
		examples: []string{
			"moot watch sugar-tax  follow the debate while a run in another terminal writes it",
			"moot watch sugar-tax --once  print the view once",
			"moot watch sugar-tax | tee watch.log  a new block per change when the output is not a terminal",
		},
		env: []string{"MOOT_DIR"},
	}, "serve": {
		examples: []string{
			"moot serve  http://127.0.0.1:8080/ over ./debates",
			"moot serve --dir runs --addr 127.0.0.1:9000",
			"moot serve --addr 0.0.0.0:8080 --token T  reachable from elsewhere: open http://HOST:8080/?token=T",
		},
		env: []string{"MOOT_DIR", "MOOT_TOKEN", "MOOT_PRICES"},
	}}
}

// liveEmit returns emit with the live file of the run's debate d kept up
// to date from the run's events (.moot/live.json: who is being asked
// now, for moot watch and moot serve), and the function that removes the
// file when the run ends. The file is written on the events that change
// it, never on the pieces of an answer, and a failure to write it is a
// warning, never the run's end.
func (a *app) liveEmit(d *store.Dir, cmd *ucli.Command, unit string, emit func(driver.Event), warn func(string)) (func(driver.Event), func()) {
	rec := live.NewRecorder(d, os.Getpid(), a.invocation(cmd), unit, a.io.Now(), func(err error) { warn(err.Error()) })
	return func(e driver.Event) {
		switch {
		case e.Begins:
		case e.Kind == driver.EventAsk:
			rec.Ask(e.Exchange, e.Role, e.Model, e.Time)
		case e.Kind == driver.EventAnswer:
			rec.Answer(e.Role, e.Model, e.Time)
		case e.Kind == driver.EventRepair, e.Kind == driver.EventReused, e.Kind == driver.EventRetry,
			e.Kind == driver.EventChunk, e.Kind == driver.EventDiscard, e.Kind == driver.EventComplete:
		default:
			// What a step's commit did: it is written.
			rec.Commit(e.Exchange, e.Time)
		}
		emit(e)
	}, rec.Close
}

func (a *app) watchCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "watch",
		Usage:     "follow a debate in the terminal as other moot processes write it (q quits)",
		ArgsUsage: "<debate>",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "once", Usage: "print the view once and exit"},
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("watch takes one debate")
			}
			dir, err := debateDir(cmd, cmd.Args().First())
			if err != nil {
				return err
			}
			return a.watch(ctx, dir, cmd.Bool("once"))
		},
	}
}

// terminal returns the file descriptor of f when f is a terminal.
func terminal(f any) (int, bool) {
	file, ok := f.(*os.File)
	if !ok || !term.IsTerminal(int(file.Fd())) {
		return 0, false
	}
	return int(file.Fd()), true
}

// watch shows the debate at dir until q, Ctrl-C or the end of ctx: on a
// terminal, redrawn in place on every change (and every second, for the
// time the calls in flight have taken); elsewhere, a new block per change.
func (a *app) watch(ctx context.Context, dir string, once bool) error {
	out := a.io.Stdout
	outFD, tty := terminal(out)
	width := func() int {
		if tty {
			if w, _, err := term.GetSize(outFD); err == nil && w > 0 {
				return w
			}
		}
		return live.Width
	}
	if once {
		s, err := live.Load(dir, a.io.Protocols)
		if err != nil {
			// Load names the file relative to the debate: say which.
			return withCode(ExitError, fmt.Errorf("watch %s: %w", dir, err),
				fmt.Sprintf("'moot check %s' lists its problems", shellQuote(dir)))
		}
		return live.Render(out, s, width(), a.io.Now())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if tty {
		if inFD, ok := terminal(a.io.Stdin); ok {
			old, err := term.MakeRaw(inFD)
			if err == nil {
				defer term.Restore(inFD, old)
				go readKeys(a.io.Stdin.(*os.File), cancel)
			}
		}
		// The alternate screen, without a cursor; both restored on exit.
		fmt.Fprint(out, "\x1b[?1049h\x1b[?25l")
		defer fmt.Fprint(out, "\x1b[?25h\x1b[?1049l")
	}
	var mu sync.Mutex
	var last *live.Snapshot
	var lastErr error
	var shown []byte
	draw := func() {
		mu.Lock()
		defer mu.Unlock()
		var b bytes.Buffer
		if last != nil {
			live.Render(&b, last, width(), a.io.Now())
		}
		if lastErr != nil {
			fmt.Fprintf(&b, "(cannot read the debate now: %s; reading again at the next change)\n", oneLine(visible(lastErr.Error(), false), 100))
		}
		if !tty {
			if bytes.Equal(b.Bytes(), shown) {
				return
			}
			shown = bytes.Clone(b.Bytes())
			out.Write(append(b.Bytes(), '\n'))
			return
		}
		if tty {
			b.WriteString("\nq quits\n")
		}
		// Raw mode leaves line feeds alone: each line goes back to the
		// first column itself.
		page := bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte("\x1b[K\r\n"))
		out.Write(append([]byte("\x1b[H"), append(page, []byte("\x1b[J")...)...))
	}
	load := func() {
		s, err := live.Load(dir, a.io.Protocols)
		mu.Lock()
		if err != nil {
			// Most likely a moment a writer has not finished: the next
			// change reads it again.
			lastErr = err
		} else {
			last, lastErr = s, nil
		}
		mu.Unlock()
		draw()
	}
	if tty {
		fmt.Fprint(out, "\x1b[H\x1b[2J")
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					draw()
				}
			}
		}()
	}
	return live.Watch(ctx, dir, load)
}

// readKeys cancels the watch on q, Q, Ctrl-C or Ctrl-D from the terminal
// in raw mode, or when the terminal closes.
func readKeys(in *os.File, cancel context.CancelFunc) {
	buf := make([]byte, 64)
	for {
		n, err := in.Read(buf)
		if bytes.ContainsAny(buf[:n], "qQ\x03\x04") || err != nil {
			cancel()
			return
		}
	}
}

// DefaultAddr is where moot serve listens without --addr.
const DefaultAddr = "127.0.0.1:8080"

func (a *app) serveCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "serve",
		Usage: "serve a read-only web view of the debates root that follows each debate live",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: DefaultAddr, Usage: "listen on `ADDR` (HOST:PORT); an address that is not loopback needs --token"},
			&ucli.StringFlag{Name: "token", Sources: ucli.EnvVars("MOOT_TOKEN"), Usage: "require `TOKEN` on every request: ?token=TOKEN or Authorization: Bearer TOKEN (default $MOOT_TOKEN)"},
			pricesFlag(),
			&ucli.IntFlag{Name: "cache-mb", Value: serve.DefaultCacheBytes >> 20, Usage: "keep at most `MB` megabytes of built pages in memory, answered again while their debate does not change; 0 keeps none"},
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("serve takes no arguments: it serves the debates root (--dir)")
			}
			cacheMB := cmd.Int("cache-mb")
			if cacheMB < 0 || cacheMB > 1<<20 {
				return usageError("--cache-mb %d is not between 0 and %d", cacheMB, 1<<20)
			}
			addr, token := cmd.String("addr"), cmd.String("token")
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return usageError("--addr %q is not HOST:PORT: %v", addr, err)
			}
			if token == "" && !loopback(host) {
				return badUsage(fmt.Errorf("--addr %s is not a loopback address, so it needs --token", addr),
					"anyone who can reach that address could read every debate: give --token T (or MOOT_TOKEN) and open the page with ?token=T")
			}
			if err := serve.CheckToken(token, loopback(host)); err != nil {
				return badUsage(fmt.Errorf("--addr %s: %w", addr, err),
					fmt.Sprintf("give a token of at least %d characters, none of them white space, such as one from: openssl rand -hex 16", serve.MinRemoteToken))
			}
			table, err := a.priceTable(cmd)
			if err != nil {
				return err
			}
			cacheBytes := int64(cacheMB) << 20
			if cacheMB == 0 {
				cacheBytes = -1
			}
			return a.serve(ctx, root(cmd), addr, token, cacheBytes, table)
		},
	}
}

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// serve runs moot serve until ctx ends (Ctrl-C, SIGTERM): then it ends the
// event streams and shuts the server down, letting the requests under way
// finish.
func (a *app) serve(ctx context.Context, rootDir, addr, token string, cacheBytes int64, table prices.Table) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(a.io.Stderr, "moot: serve: %s\n", visible(fmt.Sprintf(format, args...), false))
	}
	s := serve.New(serve.Options{
		Root:        rootDir,
		Token:       token,
		Report:      func(dir string) ([]byte, error) { return a.htmlReport(dir, table) },
		Describe:    func(dir string) serve.Summary { return a.describeForServe(dir, table) },
		Leaderboard: func(dir string) ([]byte, error) { return a.leaderboardPage(dir, table) },
		Calls:       a.callsPage,
		Logf:        logf,
		CacheBytes:  cacheBytes,
	})
	srv := s.HTTPServer()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	note := ""
	if token != "" {
		note = " with ?token=…"
	}
	fmt.Fprintf(a.io.Stderr, "moot: serving %s read-only at http://%s/%s; Ctrl-C stops\n", visible(rootDir, false), ln.Addr(), note)
	select {
	case err := <-done:
		s.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.Close()
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintf(a.io.Stderr, "moot: serve stopped\n")
	return nil
}

// htmlReport is the HTML report page of the debate at dir, as `moot
// report --html --stdout` prints it, read without the lock and writing
// nothing.
func (a *app) htmlReport(dir string, table prices.Table) ([]byte, error) {
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	p, err := a.stepProtocol(d)
	if err != nil {
		return nil, err
	}
	if p == nil {
		// dialectic's own code checks the debate, in its words.
		if _, err := loadChecked(d, "serve"); err != nil {
			return nil, err
		}
		if p, err = a.io.Protocols.Lookup(sm.Default); err != nil {
			return nil, err
		}
	}
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return nil, err
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		return nil, brokenProtocolDebate(d, "serve", f.Problems)
	}
	if _, ok := deb.(sm.HTMLReporter); !ok {
		return nil, fmt.Errorf("protocol %s writes no HTML report", p.Name())
	}
	var add sm.Addenda
	if add.Note, err = scriptedNote(d); err != nil {
		return nil, err
	}
	if nd, ok := deb.(sm.Narrated); ok {
		if add.Narrative, err = readNarrative(d, nd); err != nil {
			return nil, err
		}
	}
	if jd, ok := deb.(sm.Judged); ok {
		add.Sections = appendSection(add.Sections, judgesSection(judging.Compare(filepath.Base(dir), jd.Judgments())))
	}
	bill, err := debateBill(d, table, driver.RoleNames(p))
	if err != nil {
		return nil, err
	}
	add.Sections = appendSection(add.Sections, costSection(bill))
	return reportHTML(deb, add)
}
