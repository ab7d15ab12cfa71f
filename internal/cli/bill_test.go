package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/trio"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// bench is a debates root and the environment moot runs with there.
type bench struct {
	t    *testing.T
	root string
	env  map[string]string
	// protocols are those moot knows besides dialectic.
	protocols sm.Protocols
}

func newBench(t *testing.T, baseURL string, protocols ...sm.Protocol) *bench {
	return &bench{t: t, root: t.TempDir(), env: map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": baseURL}, protocols: protocols}
}

// run runs moot with args under the bench's root and returns its exit
// code, stdout and stderr.
func (b *bench) run(args ...string) (int, string, string) {
	b.t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(k string) string { return b.env[k] }, Protocols: withDialectic(b.protocols...)}
	code := cli.Run(context.Background(), append([]string{"moot", "--dir", b.root}, args...), io)
	return code, out.String(), errb.String()
}

// must runs moot and fails the test unless it exits 0.
func (b *bench) must(args ...string) (string, string) {
	b.t.Helper()
	code, out, errb := b.run(args...)
	if code != 0 {
		b.t.Fatalf("%v: exit %d: %s", args, code, errb)
	}
	return out, errb
}

// file writes a file under the bench's root and returns its path.
func (b *bench) file(name, text string) string {
	b.t.Helper()
	path := filepath.Join(b.root, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.t.Fatal(err)
	}
	return path
}

// billedServer answers as the sparring partner, reporting every call as
// 1000 prompt tokens and 100 completion tokens, 600 of the judge's prompt
// tokens read from the cache.
func billedServer(t *testing.T) *modeltest.Server {
	good := sparring.Handler(sparring.Options{})
	return modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		reply.PromptTokens, reply.CompletionTokens = 1000, 100
		if modeltest.RoleOf(r) == modeltest.Judge {
			reply.CachedTokens = 600
		}
		return reply
	})
}

func TestCachedTokensAndCostAreShown(t *testing.T) {
	b := newBench(t, billedServer(t).URL)
	b.must("new", "d", "--motion", "M.")
	_, summary := b.must("run", "d")
	// gpt-4o-mini: $0.15 input, $0.075 cached, $0.60 output per million.
	// Each debater: 1000 × 0.15 + 100 × 0.60 = $0.00021; the judge:
	// 400 × 0.15 + 600 × 0.075 + 100 × 0.60 = $0.000165.
	for _, want := range []string{"3300 tokens (3000 prompt, 600 of them cached, 300 completion)", "cost ≈ $0.0006 in this run, $0.0006 in all runs"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the run's summary lacks %q:\n%s", want, summary)
		}
	}
	usage, err := os.ReadFile(filepath.Join(b.root, "d", ".moot", "usage.jsonl"))
	if err != nil || strings.Count(string(usage), `"cached_tokens":600`) != 1 {
		t.Errorf("usage.jsonl (%v) has not the judge's 600 cached tokens once:\n%s", err, usage)
	}

	status, _ := b.must("status", "d")
	for _, want := range []string{
		"models    3 model calls in all runs (0 failed) · 3300 tokens (3000 prompt, 600 of them cached, 300 completion)",
		"cost      ≈ $0.0006, estimated at moot's table of published prices (2026-05-27), which moot cannot check",
		"          judge        1 call · 1000 prompt, 600 cached · 100 completion · $0.0002",
		"          proposition  1 call · 1000 prompt, 0 cached · 100 completion · $0.0002",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}

	out, _ := b.must("status", "d", "--json")
	var s struct {
		Usage struct {
			Cached int `json:"cached_tokens"`
		} `json:"usage"`
		Cost struct {
			USD     *float64 `json:"usd"`
			Cached  int      `json:"cached_tokens"`
			Unknown []string `json:"unknown_models"`
			ByRole  []struct {
				Role   string   `json:"role"`
				Cached int      `json:"cached_tokens"`
				USD    *float64 `json:"usd"`
			} `json:"by_role"`
			Prices []struct {
				Model, Date, Source string
			} `json:"prices"`
		} `json:"cost"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	want := 2*0.00021 + 0.000165
	if s.Usage.Cached != 600 || s.Cost.Cached != 600 || s.Cost.USD == nil || *s.Cost.USD-want > 1e-12 || want-*s.Cost.USD > 1e-12 || len(s.Cost.Unknown) != 0 {
		t.Errorf("status --json: usage %+v, cost %+v; want 600 cached and $%v", s.Usage, s.Cost, want)
	}
	if len(s.Cost.ByRole) != 3 || s.Cost.ByRole[2].Role != "judge" || s.Cost.ByRole[2].Cached != 600 {
		t.Errorf("by_role = %+v, want proposition, opposition, judge with the judge's 600 cached", s.Cost.ByRole)
	}
	if len(s.Cost.Prices) != 1 || s.Cost.Prices[0].Model != "gpt-4o-mini" || s.Cost.Prices[0].Source == "" || s.Cost.Prices[0].Date == "" {
		t.Errorf("prices = %+v, want gpt-4o-mini's, dated and sourced", s.Cost.Prices)
	}

	b.must("report", "d")
	readme, err := os.ReadFile(filepath.Join(b.root, "d", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Cost\n", "| judge | 1 | 1000 | 600 | 100 | \\$0.0002 |", "| **total** | **3** | **3000** | **600** | **300** | **\\$0.0006** |",
		"gpt-4o-mini: \\$0.15 input, \\$0.075 cached, \\$0.60 output, published"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	if i, j := strings.Index(string(readme), "## Cost"), strings.Index(string(readme), "*Generated by `moot report`"); i < 0 || j < i {
		t.Errorf("the cost section is not before the report's last line")
	}
	b.must("report", "d", "--html")
	page, _ := os.ReadFile(filepath.Join(b.root, "d", "report.html"))
	if !strings.Contains(string(page), `<h2 id="cost">Cost</h2>`) {
		t.Error("report.html has no cost section")
	}
}

func TestUnknownModelCostIsUnknown(t *testing.T) {
	b := newBench(t, billedServer(t).URL)
	b.must("new", "d", "--motion", "M.")
	b.must("run", "d", "--model", "llama3.1:8b", "--judge-model", "gpt-4o")
	status, _ := b.must("status", "d")
	for _, want := range []string{"cost      $0.0027 and unknown (no price for llama3.1:8b)", "proposition  1 call · 1000 prompt, 0 cached · 100 completion · unknown (no price for llama3.1:8b)"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	out, _ := b.must("status", "d", "--json")
	if !strings.Contains(out, `"usd": null`) || !strings.Contains(out, `"unknown_models": [`+"\n"+`      "llama3.1:8b"`) {
		t.Errorf("status --json does not say the cost is unknown:\n%s", out)
	}
	b.must("report", "d")
	readme, _ := os.ReadFile(filepath.Join(b.root, "d", "README.md"))
	if !strings.Contains(string(readme), "No price is known for llama3.1:8b") || !strings.Contains(string(readme), "| proposition | 1 | 1000 | 0 | 100 | unknown |") {
		t.Errorf("README.md does not say the cost is unknown:\n%s", readme)
	}

	// A prices file gives the missing price, by --prices or MOOT_PRICES,
	// and replaces a built-in one.
	yaml := b.file("prices.yaml", "llama3.1:8b:\n  input: 0\n  output: 0\ngpt-4o:\n  input: 10\n  cached: 5\n  output: 100\n")
	status, _ = b.must("status", "d", "--prices", yaml)
	if !strings.Contains(status, "cost      ≈ $0.0170,") {
		t.Errorf("status --prices: want $0.017 (the judge's 400 × $10 + 600 × $5 + 100 × $100 per million, the rest free):\n%s", status)
	}
	// The cost line names where its prices came from: the file alone,
	// since it replaced every built-in row the calls used.
	if !strings.Contains(status, "estimated at the prices in "+yaml+" (") || strings.Contains(status, "moot's table") {
		t.Errorf("status --prices does not name the prices file as the prices' only source:\n%s", status)
	}
	b.env["MOOT_PRICES"] = b.file("prices.json", `{"llama3.1:8b": {"input": 1000, "output": 0}}`)
	status, _ = b.must("status", "d")
	if !strings.Contains(status, "cost      ≈ $2.00") {
		t.Errorf("MOOT_PRICES: want $2.00 (two debaters' 1000 prompt tokens at $1000 a million, and gpt-4o's built-in price):\n%s", status)
	}
	code, _, errb := b.run("status", "d", "--prices", b.file("bad.json", `{"m": {"input": 1}}`))
	if code != cli.ExitError || !strings.Contains(errb, "bad.json") || !strings.Contains(errb, `"m" has no output price`) {
		t.Errorf("a bad prices file: exit %d, %s; want exit 1 naming the file and the fault", code, errb)
	}
}

// pricedCalls are the prices --budget is tested with: $0.001 a completion
// token and nothing for the prompt, so that a call capped at 100 tokens
// and answering 100 costs $0.10, estimated and spent alike.
const pricedCalls = `{"m": {"input": 0, "output": 1000}}`

func TestBudgetStopsBeforeTheStepThatWouldCrossIt(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		reply.CompletionTokens = 100
		return reply
	})
	b := newBench(t, srv.URL)
	b.must("new", "d", "--motion", "M.")
	prices := b.file("prices.json", pricedCalls)
	run := []string{"run", "d", "3", "--model", "m", "--max-tokens", "100", "--prices", prices, "--budget", "0.45"}
	// The arguments of exchange 0 ($0.20) and its judgment ($0.10) fit in
	// $0.45; the arguments of exchange 1 would take it to $0.50.
	code, _, errb := b.run(run...)
	if code != cli.ExitBudget {
		t.Fatalf("exit %d, want %d:\n%s", code, cli.ExitBudget, errb)
	}
	for _, want := range []string{
		"done: 1 exchange of d; now at exchange 1, awaiting arguments",
		"cost ≈ $0.3000 in this run, $0.3000 in all runs",
		"moot: error: stopped before exchange 1: its estimated cost of $0.2000 would take the debate from $0.3000 to $0.5000, past --budget $0.4500",
		"moot: hint: every step before it is committed; nothing of the next one was asked or written",
	} {
		if !strings.Contains(errb, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the server was asked %d times, want 3: nothing of the stopped step", n)
	}
	dir := filepath.Join(b.root, "d")
	if answers, _ := os.ReadDir(filepath.Join(dir, ".moot", "answers")); len(answers) > 0 {
		t.Errorf("answers kept for the stopped step: %v", answers)
	}
	b.must("check", "d")

	// Run again: it stops at once, and nothing changes, byte for byte.
	before := budgetSnapshot(t, dir)
	code, _, errb = b.run(run...)
	if code != cli.ExitBudget || !strings.Contains(errb, "done: 0 steps of d") {
		t.Errorf("again: exit %d:\n%s", code, errb)
	}
	if diffs := fixture.Diff(before, budgetSnapshot(t, dir)); len(diffs) > 0 {
		t.Errorf("a run stopped before its first step changed: %v", diffs)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the server was asked %d times in all, want still 3", n)
	}

	// With --json the error event says it, code 7 and all.
	code, out, _ := b.run(append(run, "--json")...)
	if code != cli.ExitBudget || !strings.Contains(out, `"event":"error"`) || !strings.Contains(out, `"code":7`) || !strings.Contains(out, "past --budget $0.4500") {
		t.Errorf("--json: exit %d:\n%s", code, out)
	}

	// The budget is stored in debate.md as the models are, and the hint
	// says so: a run without the flag keeps to it.
	if data, _ := os.ReadFile(filepath.Join(dir, "debate.md")); !strings.Contains(string(data), `"budget": 0.45`) {
		t.Errorf("debate.md does not store the budget:\n%s", data)
	}
	if !strings.Contains(errb, "the debate's budget of $0.4500 is stored in its debate.md: to go on, run again with a higher --budget") {
		t.Errorf("the hint does not repeat the stored budget:\n%s", errb)
	}
	code, _, errb = b.run("run", "d", "--model", "m", "--max-tokens", "100", "--prices", prices)
	if code != cli.ExitBudget || !strings.Contains(errb, "past --budget $0.4500") {
		t.Errorf("a run without --budget does not keep the stored one: exit %d:\n%s", code, errb)
	}

	// A budget that fits goes on; step takes it too, and stores it.
	b.must("step", "d", "--model", "m", "--max-tokens", "100", "--prices", prices, "--budget", "0.5")
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("the server was asked %d times in all, want 5", n)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "debate.md")); !strings.Contains(string(data), `"budget": 0.5`) {
		t.Errorf("debate.md does not store the new budget:\n%s", data)
	}
}

// budgetSnapshot is every file of the debate at dir, .moot's included,
// but the lock (which names its holder).
func budgetSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Without(tree, fixture.LockFile)
}

func TestBudgetNeedsKnownPrices(t *testing.T) {
	srv := billedServer(t)
	b := newBench(t, srv.URL)
	b.must("new", "d", "--motion", "M.")
	code, _, errb := b.run("run", "d", "--model", "llama3", "--budget", "1")
	if code != cli.ExitBudget || !strings.Contains(errb, "stopped before exchange 0: --budget $1.00 cannot be kept, for no price is known for llama3") ||
		!strings.Contains(errb, "--prices FILE or MOOT_PRICES") {
		t.Errorf("exit %d:\n%s", code, errb)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server was asked %d times, want none", n)
	}
	for _, bad := range []string{"0", "-1", "NaN"} {
		if code, _, errb := b.run("run", "d", "--budget", bad); code != cli.ExitUsage {
			t.Errorf("--budget %s: exit %d, want 2: %s", bad, code, errb)
		}
	}
}

func TestBudgetOfAnotherProtocol(t *testing.T) {
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: trio.Fake(req.Messages[0].Content, req.Messages[1].Content), CompletionTokens: 100, PromptTokens: 50, CachedTokens: 20}
	})
	b := newBench(t, srv.URL, trio.Protocol{})
	b.must("new", "crowd", "--protocol", "trio", "--motion", "Three is a crowd.", "--rounds", "2")
	prices := b.file("prices.json", pricedCalls)
	code, _, errb := b.run("run", "crowd", "--all", "--model", "m", "--max-tokens", "100", "--prices", prices, "--budget", "0.45")
	if code != cli.ExitBudget {
		t.Fatalf("exit %d, want %d:\n%s", code, cli.ExitBudget, errb)
	}
	for _, want := range []string{"done: 1 of 2 rounds", "3 model calls in this run (0 failed) · 450 tokens (150 prompt, 60 of them cached, 300 completion)",
		"cost ≈ $0.3000 in this run", "stopped before round 2: its estimated cost of $0.2000"} {
		if !strings.Contains(errb, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	status, _ := b.must("status", "crowd", "--prices", prices)
	if !strings.Contains(status, "cost      ≈ $0.3000") || !strings.Contains(status, "arbiter  1 call · 50 prompt, 20 cached · 100 completion · $0.1000") {
		t.Errorf("status:\n%s", status)
	}
	out, _ := b.must("status", "crowd", "--json", "--prices", prices)
	if !strings.Contains(out, `"cached_tokens": 60`) || !strings.Contains(out, `"usd": 0.30000000000000004`) && !strings.Contains(out, `"usd": 0.3`) {
		t.Errorf("status --json:\n%s", out)
	}
	b.must("report", "crowd", "--prices", prices)
	readme, _ := os.ReadFile(filepath.Join(b.root, "crowd", "README.md"))
	if !strings.Contains(string(readme), "## Cost") || !strings.Contains(string(readme), "| arbiter | 1 | 50 | 20 | 100 | \\$0.1000 |") {
		t.Errorf("README.md has no cost section:\n%s", readme)
	}
}

// TestBudgetForeseesLongAnswersOfANewRole: answers run to 5,000 tokens
// without --max-tokens. The arguments of exchange 0, the first step, are
// estimated at 1,000 tokens each (nothing is known yet) and cost five
// times that; the judge, which has not answered yet, is then estimated
// from the answers so far, not at 1,000 again, so the run stops before
// its judgment instead of passing the budget by a second step.
func TestBudgetForeseesLongAnswersOfANewRole(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		reply.CompletionTokens = 5000
		return reply
	})
	b := newBench(t, srv.URL)
	b.must("new", "d", "--motion", "M.")
	// $10 a million output tokens: an answer of 5,000 costs $0.05.
	prices := b.file("prices.json", `{"m": {"input": 0, "output": 10}}`)
	code, _, errb := b.run("run", "d", "3", "--model", "m", "--prices", prices, "--budget", "0.12")
	if code != cli.ExitBudget {
		t.Fatalf("exit %d, want %d:\n%s", code, cli.ExitBudget, errb)
	}
	for _, want := range []string{
		"cost ≈ $0.1000 in this run",
		"stopped before exchange 0: its estimated cost of $0.0500 would take the debate from $0.1000 to $0.1500, past --budget $0.1200",
	} {
		if !strings.Contains(errb, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
}

// TestCacheSavingIsShown: calls to a model whose server writes marked
// prompts to its cache and reads them back are billed at its cache
// prices, and status, status --json and the report say what the cache
// saved.
func TestCacheSavingIsShown(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		reply.PromptTokens, reply.CompletionTokens = 1000, 100
		if modeltest.RoleOf(r) == modeltest.Judge {
			reply.CachedTokens = 600
		} else {
			reply.CacheWriteTokens = 800
		}
		return reply
	})
	b := newBench(t, srv.URL)
	b.must("new", "d", "--motion", "M.")
	b.must("run", "d", "--model", "anthropic/claude-sonnet-4.5")
	// Sonnet 4.5: $3 input, $0.30 cached, $3.75 a cache write, $15
	// output. Each debater: 200 × 3 + 800 × 3.75 + 100 × 15 = $0.0051;
	// the judge: 400 × 3 + 600 × 0.30 + 100 × 15 = $0.00288; uncached,
	// the three would cost 3 × (1000 × 3 + 100 × 15) = $0.0135.
	status, _ := b.must("status", "d")
	want := "cache     1600 prompt tokens written to the cache, 600 read from it: the prompt cache saved $0.0004 (3% of the $0.0135 the calls would have cost without it)"
	if !strings.Contains(status, want) {
		t.Errorf("status lacks %q:\n%s", want, status)
	}
	out, _ := b.must("status", "d", "--json")
	var s struct {
		Cost struct {
			Written int     `json:"cache_write_tokens"`
			Saved   float64 `json:"saved_usd"`
		} `json:"cost"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Cost.Written != 1600 || s.Cost.Saved < 0.00041 || s.Cost.Saved > 0.00043 {
		t.Errorf("status --json: %+v, want 1600 written and $0.00042 saved", s.Cost)
	}
	b.must("report", "d")
	readme, err := os.ReadFile(filepath.Join(b.root, "d", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The servers wrote 1600 of the prompt tokens to their caches. The prompt cache saved \\$0.0004", "\\$3.75 a cache write"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}
