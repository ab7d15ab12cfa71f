package driver_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	"github.com/moot-dev/moot/internal/testkit/trio"
)

// streamingModel is trioModel giving each answer in pieces to OnChunk
// before it returns it, as a streaming client does.
type streamingModel struct{ trioModel }

func (m *streamingModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	resp, err := m.trioModel.Complete(ctx, req)
	if err == nil && req.OnChunk != nil {
		for _, p := range modeltest.SplitContent(resp.Text, 3) {
			req.OnChunk(p)
		}
	}
	return resp, err
}

// TestChunksAreEmittedAndOnlyWholeAnswersCommitted: with Chunks, each
// answer's pieces are emitted in order and join to the answer; the refused
// one is followed by a discard event; the files committed are those of a
// run without chunks.
func TestChunksAreEmittedAndOnlyWholeAnswersCommitted(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	run := func(chunks bool) (map[string]string, []driver.Event) {
		dir := newTrio(t, 2)
		d, err := storetest.OpenForWrite(dir, "test")
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		var mu sync.Mutex
		var events []driver.Event
		_, err = driver.Advance(context.Background(), d, trio.Protocol{}, driver.UnitGoal{All: true}, driver.Options{
			Client: &streamingModel{}, DefaultModel: "m", Repairs: 2, Now: now, Chunks: chunks,
			Emit: func(e driver.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
		})
		if err != nil {
			t.Fatal(err)
		}
		tree, err := fixture.Tree(dir)
		if err != nil {
			t.Fatal(err)
		}
		return fixture.Without(tree, func(p string) bool { return strings.HasPrefix(p, ".moot") }), events
	}
	plain, plainEvents := run(false)
	live, events := run(true)
	for _, e := range plainEvents {
		if e.Kind == driver.EventChunk {
			t.Fatalf("a run without Chunks emitted %+v", e)
		}
	}
	sameSnapshot(t, live, plain)

	// Per role, the chunks since its last ask join to an answer.
	text := map[string]*strings.Builder{}
	answers, discards, completes := 0, 0, 0
	for _, e := range events {
		switch e.Kind {
		case driver.EventAsk:
			text[e.Role] = &strings.Builder{}
		case driver.EventChunk:
			text[e.Role].WriteString(e.Text)
		case driver.EventAnswer:
			if s := text[e.Role].String(); !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
				t.Errorf("the %s's chunks join to %q, not a whole answer", e.Role, s)
			}
			answers++
		case driver.EventDiscard:
			if !strings.Contains(text[e.Role].String(), "gamma") {
				t.Errorf("discard after %q, want it after the refused answer", text[e.Role].String())
			}
			discards++
		case driver.EventComplete:
			completes++
		}
	}
	if answers == 0 || discards != 1 || completes != 1 {
		t.Errorf("%d answers, %d discards, %d complete events; want some, 1 and 1", answers, discards, completes)
	}
}

// secretModel streams an answer whose secret is split across two chunks.
type secretModel struct{ streamingModel }

func (m *secretModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	resp, err := m.trioModel.Complete(ctx, req)
	if err == nil && req.OnChunk != nil {
		// The model echoes the key: its first half ends one chunk, its
		// second half begins the next.
		for _, p := range []string{"note sk-TOPSE", "CRET-KEY1234 end ", resp.Text} {
			req.OnChunk(p)
		}
	}
	return resp, err
}

// TestChunksMaskASecretSplitAcrossThem: a secret that arrives in two
// pieces is masked in the chunk events all the same, as it is in the
// committed answer.
func TestChunksMaskASecretSplitAcrossThem(t *testing.T) {
	const secret = "sk-TOPSECRET-KEY1234"
	dir := newTrio(t, 1)
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var mu sync.Mutex
	chunks := map[string]*strings.Builder{}
	_, err = driver.Advance(context.Background(), d, trio.Protocol{}, driver.UnitGoal{Steps: 1}, driver.Options{
		Client: &secretModel{}, DefaultModel: "m", Repairs: 2, Chunks: true,
		Now:  func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Mask: func(s string) string { return strings.ReplaceAll(s, secret, "[key]") },
		Emit: func(e driver.Event) {
			if e.Kind == driver.EventChunk {
				mu.Lock()
				if chunks[e.Role] == nil {
					chunks[e.Role] = &strings.Builder{}
				}
				chunks[e.Role].WriteString(e.Text)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) == 0 {
		t.Fatal("no chunk events")
	}
	for role, b := range chunks {
		got := b.String()
		if strings.Contains(got, "TOPSE") || strings.Contains(got, "KEY1234") {
			t.Errorf("%s's chunk events show part of the secret: %q", role, got)
		}
		if !strings.HasPrefix(got, "note [key] end {") || !strings.HasSuffix(got, "}") {
			t.Errorf("%s's chunk events join to %q, want the masked text and the whole answer", role, got)
		}
	}
}
