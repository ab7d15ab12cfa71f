package moderated_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

// marked lays out a request's messages as one text and says where its
// parts marked cache_control end in it.
func marked(t *testing.T, body []byte) (system, text string, marks []int) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, m := range req.Messages {
		b.WriteString(m.Role + "\x00")
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			b.WriteString(s)
		} else {
			var parts []struct {
				Text         string          `json:"text"`
				CacheControl json.RawMessage `json:"cache_control"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				b.WriteString(p.Text)
				if p.CacheControl != nil {
					marks = append(marks, b.Len())
				}
				if i == 0 {
					s += p.Text
				}
			}
		}
		if i == 0 {
			system = s
		}
	}
	return system, b.String(), marks
}

// TestAdvocatesMarkTheirHistory runs a debate on a model whose prompts moot
// marks for caching: each advocate's prompt marks the end of the history
// its previous prompt showed, which that prompt marked last and which this
// one repeats byte for byte, and the end of its own history.
func TestAdvocatesMarkTheirHistory(t *testing.T) {
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
	dir := newDebate(t, nil)
	o := protocoltest.Served(t, srv.URL)
	o.DefaultModel = "anthropic/claude-sonnet-4.5"
	if _, err := protocoltest.Advance(t, context.Background(), moderated.Protocol{}, dir, driver.UnitGoal{All: true}, o); err != nil {
		t.Fatal(err)
	}
	type prompt struct {
		text  string
		marks []int
	}
	bySystem := map[string][]prompt{}
	var order []string
	for _, req := range srv.Requests() {
		system, text, marks := marked(t, req.Body)
		if len(marks) == 0 {
			continue
		}
		if _, ok := bySystem[system]; !ok {
			order = append(order, system)
		}
		bySystem[system] = append(bySystem[system], prompt{text, marks})
	}
	if len(order) < 2 {
		t.Fatalf("the prompts of %d roles carry marks, want both advocates'", len(order))
	}
	checked := 0
	for _, system := range order {
		ps := bySystem[system]
		for k := 1; k < len(ps); k++ {
			prev, cur := ps[k-1], ps[k]
			last := prev.marks[len(prev.marks)-1]
			if cur.marks[0] != last || !strings.HasPrefix(cur.text, prev.text[:last]) {
				t.Errorf("an advocate's prompt %d does not repeat its previous one up to that one's last mark", k)
			}
			if len(cur.marks) != 2 {
				t.Errorf("an advocate's prompt %d has %d marks, want 2", k, len(cur.marks))
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no advocate made two marked calls: nothing was checked")
	}
}
