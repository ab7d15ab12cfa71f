package messy_test

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/messy"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

// run is what a run of a debate to its end gave.
type run struct {
	repairs []driver.Event
	outcome sm.Outcome
	files   map[string]string
}

// advance runs the debate of p made with values to its end with client,
// every role played by modelName, and returns what it gave; the debate
// must end complete and pass its check.
func advance(t *testing.T, p sm.Protocol, values map[string][]string, client driver.Completer, modelName string) run {
	t.Helper()
	vals := map[string][]string{}
	for k, v := range values {
		vals[k] = v
	}
	dir := protocoltest.Create(t, p, sm.NewInput{Slug: "d", Motion: "Should cities ban private cars from their centres?",
		Values: vals, Now: protocoltest.When})
	var mu sync.Mutex
	var r run
	o := driver.Overrides{Models: map[string]string{}}
	for _, role := range driver.RoleNames(p) {
		o.Models[role] = modelName
	}
	_, err := protocoltest.Advance(t, context.Background(), p, dir, driver.UnitGoal{All: true}, driver.Options{
		Client: client, Overrides: o, DefaultModel: modelName, Repairs: 2,
		Templates: templates.Default(),
		Now:       func() time.Time { return protocoltest.When },
		Emit: func(e driver.Event) {
			if e.Kind == driver.EventRepair {
				mu.Lock()
				r.repairs = append(r.repairs, e)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		t.Fatal(err)
	}
	if st := deb.Status(); !st.Complete {
		t.Errorf("the debate stopped at %d of %d %ss", st.Done, st.Total, st.Unit)
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		t.Errorf("check: %v", f.Problems)
	}
	if oc, ok := deb.(sm.Outcomer); ok {
		r.outcome = oc.Outcome()
	}
	r.files = protocoltest.Files(t, dir)
	return r
}

// TestEveryProtocolAnswersAsModelsWrite runs a debate of every protocol
// to its end twice with the built-in model: once as it answers, and once
// through a fake OpenAI-compatible server that writes each of its JSON
// and name answers in the next style of the catalogue (fences, prose
// around the JSON, trailing commas, single or smart quotes, scores as
// "7/10", names in bold or with a title, CRLF, a byte order mark...).
// The styled run must send back no more answers than the plain one (the
// one the built-in model gets wrong on purpose), end complete, pass its
// check and reach the same outcome, and the debate's files that hold
// what moot read (not the answers as written) must be the same.
func TestEveryProtocolAnswersAsModelsWrite(t *testing.T) {
	rot := messy.NewRotation()
	var scripts messy.Scripts
	srv := modeltest.NewServer(t, messy.Handler(scripts.Builtin, rot), modeltest.Embeddings(messy.BuiltinEmbed))
	endpoint, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k", MaxRetries: 1, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := scripts.Client(endpoint)
	for _, tc := range []struct {
		name   string
		p      sm.Protocol
		values map[string][]string
		// answers is the folder of the files that keep a model's answer
		// as it was written, under what moot read of it.
		answers string
	}{
		{"dialectic", dialectic.Protocol{Templates: templates.Default()}, map[string][]string{"exchanges": {"3"},
			"definition": {"city centre: the central business district"}, "scope": {"Europe, this decade."}}, ""},
		{"forum", forum.Protocol{}, map[string][]string{"premise": {"Cities should ban cars."}, "turns": {"4"}, "seed": {"1"}}, "calls/"},
		// More forum debates, so that every style of a name alone is
		// tried on a winner's confirmation (one a debate).
		{"forum without a premise", forum.Protocol{}, map[string][]string{"turns": {"3"}, "seed": {"2"}}, "calls/"},
		{"forum, seed 3", forum.Protocol{}, map[string][]string{"turns": {"2"}, "seed": {"3"}}, "calls/"},
		{"forum, seed 4", forum.Protocol{}, map[string][]string{"turns": {"2"}, "seed": {"4"}}, "calls/"},
		{"forum, seed 5", forum.Protocol{}, map[string][]string{"turns": {"2"}, "seed": {"5"}}, "calls/"},
		{"forum, seed 6", forum.Protocol{}, map[string][]string{"turns": {"2"}, "seed": {"6"}}, "calls/"},
		{"forum, seed 7", forum.Protocol{}, map[string][]string{"turns": {"2"}, "seed": {"7"}}, "calls/"},
		{"forum, seed 8", forum.Protocol{}, map[string][]string{"turns": {"2"}, "seed": {"8"}}, "calls/"},
		{"moderated", moderated.Protocol{}, map[string][]string{"position-a": {"Ban cars."}, "position-b": {"Keep cars."}, "fact-checker": {"true"}}, "scores/"},
		{"refine", refine.Protocol{}, nil, ""},
		{"panel", panel.Protocol{}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := advance(t, tc.p, tc.values, builtin.Client{}, builtin.Name)
			styled := advance(t, tc.p, tc.values, client, "messy")
			if len(styled.repairs) != len(plain.repairs) {
				var msgs []string
				for _, e := range styled.repairs {
					msgs = append(msgs, e.Role+": "+e.Message)
				}
				t.Errorf("%d answers sent back, want %d as in the plain run:\n%s", len(styled.repairs), len(plain.repairs), strings.Join(msgs, "\n"))
			}
			if !reflect.DeepEqual(outcome(styled.outcome), outcome(plain.outcome)) {
				t.Errorf("outcome %+v, want %+v as in the plain run", styled.outcome, plain.outcome)
			}
			for name, want := range plain.files {
				got, ok := styled.files[name]
				if !ok {
					t.Errorf("%s: missing from the styled run", name)
					continue
				}
				if got, want := normalise(tc.answers, name, got), normalise(tc.answers, name, want); got != want {
					t.Errorf("%s differs from the plain run's:\n--- plain\n%s\n--- styled\n%s", name, want, got)
				}
			}
			for name := range styled.files {
				if _, ok := plain.files[name]; !ok {
					t.Errorf("%s: the plain run has no such file", name)
				}
			}
		})
	}
	used := rot.Used()
	var unused []string
	for _, s := range messy.Styles() {
		if used[s.Name] == 0 {
			unused = append(unused, s.Name)
		}
	}
	t.Logf("styles used: %v; unused: %v", used, unused)
	if n := len(messy.Styles()) - len(unused); n < 30 {
		t.Errorf("%d styles were used, want at least 30; unused: %q", n, unused)
	}
}

var (
	elapsed  = regexp.MustCompile(`"(elapsed_ms|latency_ms)": \d+`)
	response = regexp.MustCompile(`,\n\s*"response_format": "[a-z_]+"`)
)

// normalise returns the file name of a run as it compares with another
// run's: the model's name, the times measured and the response format
// moot settled on (the built-in model is not asked for one) left out; of
// a file under answers, which keeps the answer as written after what
// moot read of it, only what moot read (its JSON front matter).
func normalise(answers, name, s string) string {
	s = strings.ReplaceAll(s, `"messy"`, `"`+builtin.Name+`"`)
	s = elapsed.ReplaceAllString(s, `"$1": 0`)
	s = response.ReplaceAllString(s, "")
	if answers != "" && strings.HasPrefix(name, answers) {
		if end := strings.Index(s, "\n}\n"); end >= 0 {
			s = s[:end+3]
		}
	}
	return s
}

// outcome returns o with the model's name left out.
func outcome(o sm.Outcome) sm.Outcome {
	c := map[string]string{}
	for k, v := range o.Columns {
		if v == "messy" {
			v = builtin.Name
		}
		c[k] = v
	}
	o.Columns = c
	return o
}
