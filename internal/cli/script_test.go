package cli_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/responsesfake"
	"github.com/moot-dev/moot/internal/testkit/scriptcmd"
	"github.com/moot-dev/moot/internal/testkit/trio"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/judgefake"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/tourneyfake"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

func TestMain(m *testing.M) {
	// The moot processes that tests start from this binary inherit this:
	// built with the race detector, each would otherwise sleep a second
	// as it exits (the detector's atexit_sleep_ms), which only makes the
	// tests wait. A race is still reported, and fails the process.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	testscript.Main(m, map[string]func(){
		// The scripts' moot knows the protocols cmd/moot registers, in
		// its order, and trio, the protocol written for tests, to run a
		// protocol of the step model end to end.
		"moot": func() {
			os.Exit(cli.Main(os.Args, dialectic.Protocol{}, trio.Protocol{}, forum.Protocol{}, moderated.Protocol{}, refine.Protocol{}, panel.Protocol{}))
		},
	})
}

// scriptsApartEnv, set in the environment of `go test -race`, makes
// TestScripts skip under the race detector: test.sh then runs the scripts
// in its pass without it, with the tests that kill moot processes. Every
// command of a script is a moot process of its own, which the race-built
// test binary makes several times slower (most of the suite's time), while
// the code those processes share with other goroutines runs in-process,
// under the race detector, in the packages' own tests.
const scriptsApartEnv = "MOOT_SCRIPTS_APART"

// TestScripts runs the end-to-end scripts in testdata/script against the
// real moot binary. $FAKE is a fake OpenAI-compatible server answering as
// the sparring partner.
func TestScripts(t *testing.T) {
	if raceEnabled && os.Getenv(scriptsApartEnv) != "" {
		t.Skipf("runs a moot process per command: run without -race by test.sh's second pass (go test -run '^TestScripts$'), as %s is set", scriptsApartEnv)
	}
	fake := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	// $HANG answers only when the client has gone, for a command that
	// must be interrupted in a call.
	hang := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 10 * time.Minute}))
	// $GATE answers as $FAKE, each after a second, but holds every call
	// to a model until the script says `release MODEL`: a run is then
	// surely under way, holding its debate, while the script tries other
	// commands.
	gates := &gates{open: map[string]chan struct{}{}}
	gate := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: time.Second}),
		modeltest.Before(func(ctx context.Context, req modeltest.Request) {
			select {
			case <-gates.of(req.Model):
			case <-ctx.Done():
			}
		}))
	// $HOLD answers as $FAKE, each after 300 ms, until exchange 2, whose
	// debaters' calls it holds until the client goes away: a run stopped
	// after exchange 1 is written is then surely stopped in a call.
	hold := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 300 * time.Millisecond, HoldFrom: 2}))
	trioFake := func(req modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: trio.Fake(req.Messages[0].Content, req.Messages[1].Content)}
	}
	trioServer := modeltest.NewServer(t, trioFake)
	// $TRIOHOLD answers as $TRIO, but holds the calls of round 2 and later
	// until the client goes away: a run killed once round 1 is written is
	// surely killed before its end.
	trioHold := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		var round int
		if i := strings.Index(req.Messages[1].Content, "ound "); i >= 0 {
			fmt.Sscanf(req.Messages[1].Content[i+len("ound "):], "%d", &round)
		}
		if round >= 2 {
			return modeltest.Reply{Delay: time.Hour}
		}
		return trioFake(req)
	})
	// $MODERATED answers every call of a moderated debate, each rubric
	// with 8, 6, 7, 7 and 9, but those of the scripted judges: model
	// strict gives 6, 5, 6, 5 and 7 (a total of 5.75), lenient 9, 8, 9, 8
	// and 8 (8.45), and clumsy a score out of range every time.
	moderatedServer := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: map[string][]float64{
		"strict": {6, 5, 6, 5, 7}, "lenient": {9, 8, 9, 8, 8}, "clumsy": {11},
	}}))
	// $MODERATEDMENDED answers as $MODERATED, but clumsy scores 7 on every
	// criterion: a score recorded as missing is asked for again there.
	moderatedMended := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: map[string][]float64{
		"strict": {6, 5, 6, 5, 7}, "lenient": {9, 8, 9, 8, 8}, "clumsy": {7, 7, 7, 7, 7},
	}}))
	// $FORUM answers every call of a forum debate as forumfake does.
	forumFake := func(req modeltest.Request) modeltest.Reply {
		msgs := make([]forumfake.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
		}
		return modeltest.Reply{Content: forumfake.Reply(msgs, forumfake.Options{})}
	}
	forumServer := modeltest.NewServer(t, forumFake)
	// $FORUMMESSY answers as $FORUM, but the model clumsy never gives a
	// score (it answers prose) nor its evaluation of Brook's turns (an
	// empty answer), and the model mute gives nothing at all.
	forumMessy := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		msgs := make([]forumfake.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
		}
		switch k := forumfake.Kind(msgs); {
		case req.Model == "mute":
			return modeltest.Reply{Content: " "}
		case req.Model == "clumsy" && k == forumfake.Evaluate && strings.Contains(msgs[len(msgs)-1].Content, "Brook"):
			return modeltest.Reply{Content: " "}
		case req.Model == "clumsy" && k == forumfake.Score:
			return modeltest.Reply{Content: "I would rather not put a number on it."}
		}
		return forumFake(req)
	})
	// $FORUMHOLD answers as $FORUM, but holds every speech until the
	// client goes away: a run killed once the plans are written is surely
	// killed before its end.
	forumHold := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		msgs := make([]forumfake.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
		}
		if forumfake.Kind(msgs) == forumfake.Turn {
			return modeltest.Reply{Delay: time.Hour}
		}
		return forumFake(req)
	})
	// $REFINE answers every call of a refine debate as refinetest does,
	// with embeddings that rank the Fermi estimate and the pre-mortem
	// above the threshold, and scripted judges on the models strict
	// (5; correctness 5, completeness 6, clarity 5, depth 4) and kind (9;
	// 9, 9, 8, 9), and clumsy and clumsy2, who never answer in JSON; $REFINENOEMBED
	// has no embeddings.
	refineJudges := map[string]string{"strict": refinetest.JudgeAnswer(5, 5, 6, 5, 4), "kind": refinetest.JudgeAnswer(9, 9, 9, 8, 9),
		"clumsy": "A fine answer, I would say.", "clumsy2": "Quite good, all told."}
	refineServer := modeltest.NewServer(t, refinetest.Handler(refinetest.Options{Judges: refineJudges}),
		modeltest.Embeddings(refinetest.Embeddings(map[string]float64{"Fermi estimate": 0.9, "Pre-mortem": 0.7})))
	refineNoEmbed := modeltest.NewServer(t, refinetest.Handler(refinetest.Options{ReadyAt: 1}))
	// $REFINEMENDED answers as $REFINE, but clumsy scores as a judge
	// should (7; 7, 8, 7, 6): a score recorded as missing is asked for
	// again there.
	refineMended := modeltest.NewServer(t, refinetest.Handler(refinetest.Options{Judges: map[string]string{
		"strict": refineJudges["strict"], "kind": refineJudges["kind"], "clumsy": refinetest.JudgeAnswer(7, 7, 8, 7, 6)}}),
		modeltest.Embeddings(refinetest.Embeddings(map[string]float64{"Fermi estimate": 0.9, "Pre-mortem": 0.7})))
	// $PANEL answers every call of a panel debate as paneltest does,
	// opening a crux room for the first two personas of the default
	// panel in aspect 1, whose crux surfaces at the first check.
	panelServer := modeltest.NewServer(t, paneltest.Handler(paneltest.Options{
		Detect: func(k int) ([3]bool, []string) {
			return [3]bool{k == 1, true, true}, []string{"Mara", "Theo"}
		},
		Exit: func(int, int) bool { return true },
	}))
	// $PANELSHORT answers as $PANEL without rooms, but ines only ever
	// says "That's a great point!", which leaves her too little to say.
	panelShort := modeltest.NewServer(t, paneltest.Handler(paneltest.Options{Short: "ines"}))
	// $JUDGES has the sparring partner's debaters (but a debater on
	// model mute answers with no argument at all) and scripted judges:
	// model lean favours the proposition by 0.2 in every exchange, fair
	// favours each side in turn, bad breaks the zero-sum rule every time,
	// and any other model is down.
	judgesServer := modeltest.NewServer(t, judgefake.Handler(map[string]judgefake.Scorer{
		"lean": judgefake.Lean(0.2), "fair": judgefake.Alternating(0.2), "lean2": judgefake.Lean(0.2),
		// bad's scores never sum to zero, however often it is asked.
		"bad": func(x int, ids []string) map[string]float64 {
			out := map[string]float64{}
			for _, id := range ids {
				out[id] = 0.5
			}
			return out
		},
	}, muteDebater(sparring.Handler(sparring.Options{}))))
	// $JUDGESMENDED answers as $JUDGES, but bad scores as lean does: a
	// judgment recorded as missing is asked for again there.
	judgesMended := modeltest.NewServer(t, judgefake.Handler(map[string]judgefake.Scorer{
		"lean": judgefake.Lean(0.2), "fair": judgefake.Alternating(0.2), "bad": judgefake.Lean(0.2),
	}, sparring.Handler(sparring.Options{})))
	// $TOURNEY answers dialectic debates whose judge gives every exchange
	// to the stronger model: strong beats middle beats weak, and twin
	// draws with middle.
	tourneyServer := modeltest.NewServer(t, tourneyfake.Handler(map[string]float64{"strong": 3, "middle": 2, "twin": 2, "weak": 1}))
	// $PERSON answers as the sparring partner, but the proposition's
	// rebuttals with the answer human.txtar's person gives in a form.
	person := personFake(t)
	// The fakes of moot doctor: $DOCTOR lists its models and supports a
	// JSON schema, streaming, usage and cached tokens; $DOCTORJSON has
	// JSON mode but no schema and answers a stream whole; $DOCTORBARE
	// lists nothing and has none of them; $DOCTORNOSTREAM streams but
	// reports the usage only with a whole answer; $DOCTORKEY wants a key.
	doctorOK := func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: `{"ok": true}`, CachedTokens: 2}
	}
	doctor := modeltest.NewServer(t, doctorOK, modeltest.ListModels("gpt-4o-mini", "m-judge", "m-other"))
	doctorJSON := modeltest.NewServer(t, doctorOK, modeltest.ListModels("gpt-4o-mini"), modeltest.RefuseSchema(), modeltest.IgnoreStream())
	doctorBare := modeltest.NewServer(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: `ok`} },
		modeltest.RefuseSchema(), modeltest.RefuseJSONObject(), modeltest.RefuseStream(), modeltest.NoUsage())
	doctorNoStream := modeltest.NewServer(t, doctorOK, modeltest.ListModels("gpt-4o-mini"), modeltest.NoStreamUsage())
	doctorKey := modeltest.NewServer(t, doctorOK, modeltest.ListModels("gpt-4o-mini"), modeltest.RequireAPIKey("sk-doctor-secret-0123456789"))
	// $AZURE is an Azure OpenAI resource in front of $DOCTOR's models.
	azure := azureFront(t, doctor, "azure-doctor-key-0123456789", "entra-doctor-token-0123456789", "gpt-4o-prod")
	// $RESPONSES answers as $FAKE, but at OpenAI's Responses API only
	// (POST /v1/responses), with a key, reporting 5 cached input tokens
	// and 7 reasoning tokens an answer; moot doctor's question is
	// answered as $DOCTOR answers it.
	sparringResponses := responsesfake.Chat(sparring.Handler(sparring.Options{}))
	responsesServer := responsesfake.NewServer(t, func(req responsesfake.Request) responsesfake.Reply {
		if len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You check that a connection works") {
			return responsesfake.Reply{Reply: doctorOK(req.Request)}
		}
		r := sparringResponses(req)
		r.CachedTokens, r.ReasoningTokens = 5, 7
		return r
	}, responsesfake.RequireAPIKey("sk-responses-secret-0123456789"))
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("FAKE", fake.URL)
			e.Setenv("HANG", hang.URL)
			e.Setenv("HOLD", hold.URL)
			e.Setenv("GATE", gate.URL)
			e.Setenv("TRIO", trioServer.URL)
			e.Setenv("TRIOHOLD", trioHold.URL)
			e.Setenv("MODERATED", moderatedServer.URL)
			e.Setenv("MODERATEDMENDED", moderatedMended.URL)
			e.Setenv("FORUM", forumServer.URL)
			e.Setenv("FORUMHOLD", forumHold.URL)
			e.Setenv("FORUMMESSY", forumMessy.URL)
			e.Setenv("REFINE", refineServer.URL)
			e.Setenv("REFINENOEMBED", refineNoEmbed.URL)
			e.Setenv("REFINEMENDED", refineMended.URL)
			e.Setenv("PANEL", panelServer.URL)
			e.Setenv("PANELSHORT", panelShort.URL)
			e.Setenv("JUDGES", judgesServer.URL)
			e.Setenv("JUDGESMENDED", judgesMended.URL)
			e.Setenv("TOURNEY", tourneyServer.URL)
			e.Setenv("PERSON", person)
			e.Setenv("DOCTOR", doctor.URL)
			e.Setenv("DOCTORJSON", doctorJSON.URL)
			e.Setenv("DOCTORBARE", doctorBare.URL)
			e.Setenv("DOCTORNOSTREAM", doctorNoStream.URL)
			e.Setenv("DOCTORKEY", doctorKey.URL)
			e.Setenv("AZURE", azure.URL)
			e.Setenv("RESPONSES", responsesServer.URL)
			e.Setenv("OPENAI_API_KEY", "")
			e.Setenv("OPENAI_BASE_URL", "")
			e.Setenv("MOOT_DIR", "")
			e.Setenv("MOOT_MODEL", "")
			e.Setenv("NO_COLOR", "1")
			// $SERVEADDR is a loopback address with a port that was free
			// a moment ago, for a script's moot serve.
			addr, err := serveAddr()
			if err != nil {
				return err
			}
			e.Setenv("SERVEADDR", addr)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// waitfor FILE [REGEXP] waits until FILE exists and, with
			// REGEXP, until its content matches it: a script waits for
			// the event itself, never for a fixed time. The deadline is
			// only a guard, and says what was waited for.
			"waitfor": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 1 || len(args) > 2 {
					ts.Fatalf("usage: waitfor file [regexp]")
				}
				var re *regexp.Regexp
				if len(args) == 2 {
					re = regexp.MustCompile(args[1])
				}
				path := ts.MkAbs(args[0])
				const guard = 3 * time.Minute
				for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
					data, err := os.ReadFile(path)
					if err == nil && (re == nil || re.Match(data)) {
						return
					}
					if time.Since(start) > guard {
						ts.Fatalf("waited %v for %s to exist and match %v", guard, args[0], re)
					}
				}
			},
			// release MODEL lets $GATE answer the calls to MODEL, those
			// it holds and those to come.
			"release": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: release model")
				}
				gates.release(args[0])
			},
			// cmptimed A B compares two files as cmp does, except on the
			// lines that record how long something took or when.
			"cmptimed": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: cmptimed file1 file2")
				}
				a, b := untimed(ts.ReadFile(args[0])), untimed(ts.ReadFile(args[1]))
				if (a == b) == neg {
					ts.Fatalf("%s and %s differ beyond timings:\n%s\n---\n%s", args[0], args[1], a, b)
				}
			},
			// fetch URL gets URL, waiting for a server to listen there
			// (up to a minute, a guard that names what it waited for),
			// and writes the body to stdout; it fails on a status other
			// than 200 (negated: on 200).
			"fetch": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: fetch URL")
				}
				deadline := time.Now().Add(time.Minute)
				for {
					resp, err := http.Get(args[0])
					if err != nil {
						if time.Now().After(deadline) {
							ts.Fatalf("fetch: no server answered at %s within a minute: %v", args[0], err)
						}
						time.Sleep(20 * time.Millisecond)
						continue
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					ts.Check(err)
					ts.Stdout().Write(body)
					if (resp.StatusCode == http.StatusOK) == neg {
						ts.Fatalf("fetch %s: status %d", args[0], resp.StatusCode)
					}
					return
				}
			},
			// code N cmd args... runs cmd and checks that it exits with N.
			"code": scriptcmd.Code,
		},
	})
}

// gates are $GATE's gates, one a model, each open once released.
type gates struct {
	mu   sync.Mutex
	open map[string]chan struct{}
}

// of returns the channel that is closed when model's gate opens.
func (g *gates) of(model string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.open[model]
	if !ok {
		c = make(chan struct{})
		g.open[model] = c
	}
	return c
}

// release opens model's gate.
func (g *gates) release(model string) {
	c := g.of(model)
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
}

// timing matches the lines of a debate's files that record a duration or
// a time, whose values differ from run to run.
var timing = regexp.MustCompile(`(?m)^.*("[a-z_]*(_ms|seconds|time|timestamp)"|elapsed|latency).*$`)

// untimed is text without its lines of timings.
func untimed(text string) string { return timing.ReplaceAllString(text, "") }

// muteDebater answers as others, but a debater on model mute answers with
// a sentence that holds no argument, however often it is asked.
func muteDebater(others modeltest.Handler) modeltest.Handler {
	return func(req modeltest.Request) modeltest.Reply {
		if req.Model == "mute" {
			return modeltest.Reply{Content: "I would rather not argue today."}
		}
		return others(req)
	}
}

// servePorts hands out the ports serveAddr tries, each once in a test
// run. They lie below Linux's ephemeral range (32768 and up), from which
// the fake model servers of scripts running alongside take theirs: a
// port free a moment ago could otherwise be one of theirs by the time
// moot serve binds it, and fetch would read a fake's 404.
var servePorts = struct {
	sync.Mutex
	next int
}{next: 20000 + rand.IntN(10000)}

// serveAddr returns a loopback address whose port is free now and has
// not been handed out before in this run.
func serveAddr() (string, error) {
	for range 100 {
		servePorts.Lock()
		port := servePorts.next
		servePorts.next++
		if servePorts.next >= 32000 {
			servePorts.next = 20000
		}
		servePorts.Unlock()
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		return addr, ln.Close()
	}
	return "", fmt.Errorf("no free port for moot serve among 100 tried below 32000")
}
