package driver_test

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// Every call a run makes keeps what it was sent and what came back, as
// its line of the usage log names it, so that moot serve can show the
// prompts of calls made long ago: a refused answer and its repair as two
// calls, each with its own messages. With NoPrompts nothing is kept.
func TestTranscriptsKeepEachCall(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	first := true
	srv := modeltest.NewServer(t, modeltest.ByRole(good, func(r modeltest.Request) modeltest.Reply {
		if first {
			first = false
			return modeltest.Reply{Content: "No JSON from me."}
		}
		return good(r)
	}, nil))
	d := newRunDebate(t)
	opts := options(client(t, srv))
	opts.Serial = true
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
		t.Fatal(err)
	}
	lines, reqs := usageLines(t, d.Path()), srv.Requests()
	if len(lines) != 3 || len(reqs) != 3 {
		t.Fatalf("%d usage lines and %d requests, want 3 of each (a repair)", len(lines), len(reqs))
	}
	repaired := 0
	for i, u := range lines {
		tr, err := driver.ReadTranscript(d, u.Transcript)
		if err != nil {
			t.Fatalf("call %d (%s): %v", i+1, u.Role, err)
		}
		if tr.Role != u.Role || tr.Model != u.Model || tr.Unit != u.Exchange {
			t.Errorf("call %d: transcript of %s on %s, unit %d; line of %s on %s, unit %d", i+1, tr.Role, tr.Model, tr.Unit, u.Role, u.Model, u.Exchange)
		}
		// The request this transcript is of: the one with the same messages.
		var sent []string
		for _, m := range tr.Messages {
			sent = append(sent, m.Role+": "+m.Content)
		}
		found := slices.IndexFunc(reqs, func(r modeltest.Request) bool {
			var got []string
			for _, m := range r.Messages {
				got = append(got, m.Role+": "+m.Content)
			}
			return slices.Equal(got, sent)
		})
		if found < 0 {
			t.Errorf("call %d (%s): its transcript's %d messages are those of no request", i+1, u.Role, len(tr.Messages))
		}
		if tr.Answer == "" {
			t.Errorf("call %d (%s): no answer kept", i+1, u.Role)
		}
		if tr.Answer == "No JSON from me." {
			repaired++
		}
	}
	if repaired != 1 {
		t.Errorf("%d transcripts keep the refused answer, want 1", repaired)
	}

	d2 := newRunDebate(t)
	opts.NoPrompts = true
	if _, err := driver.Run(context.Background(), d2, driver.Goal{Steps: 1}, opts); err != nil {
		t.Fatal(err)
	}
	for i, u := range usageLines(t, d2.Path()) {
		if u.Transcript != "" {
			t.Errorf("NoPrompts: call %d names transcript %s", i+1, u.Transcript)
		}
	}
	if _, err := d2.ReadPrivate(driver.TranscriptsDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("NoPrompts: %s/ exists (%v)", driver.TranscriptsDir, err)
	}
}
