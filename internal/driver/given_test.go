package driver_test

import (
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/trio"
	"github.com/moot-dev/moot/store"
)

// TestPersonAnswerIsRecorded: an answer a person gives is recorded with
// its call's full name before it is kept, and the record outlives the
// step's commit, so that the same answer handed in later is known as the
// one that call took.
func TestPersonAnswerIsRecorded(t *testing.T) {
	dir := newTrio(t, 1)
	m := &trioModel{exact: true}
	answer := `{"plan": "PERSON-PLAN", "speech": "PERSON-SPEECH"}`
	p := &person{role: trio.Beta, m: m, answers: []string{answer}}
	if _, err := advancePerson(t, dir, m, p); err != nil {
		t.Fatal(err)
	}
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	given, err := driver.GivenBy(d, trio.Beta)
	if err != nil {
		t.Fatal(err)
	}
	q := p.asked[0]
	name := driver.CallName(q.Step, q.Call)
	if len(given) != 1 || given[0].Call != name {
		t.Fatalf("given = %+v, want one answer for %s", given, name)
	}
	tests := []struct {
		name  string
		data  string
		holds bool
	}{
		{"the answer", answer, true},
		{"the answer with white space around it", "\n  " + answer + "\n", true},
		{"another answer", `{"plan": "P", "speech": "S"}`, false},
		{"the answer with a byte more inside", `{"plan": "PERSON-PLAN", "speech": "PERSON-SPEECH "}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := given[0].Holds([]byte(tt.data)); got != tt.holds {
				t.Errorf("Holds = %v, want %v", got, tt.holds)
			}
			g, ok := driver.GivenAs(given, []byte(tt.data))
			if ok != tt.holds || (ok && g.Call != name) {
				t.Errorf("GivenAs = %+v, %v", g, ok)
			}
		})
	}
	if _, ok := driver.GivenFor(given, name); !ok {
		t.Errorf("GivenFor(%s) found nothing", name)
	}
	if other, err := driver.GivenBy(d, trio.Alpha); err != nil || len(other) != 0 {
		t.Errorf("alpha, a model's role, has given %+v, %v", other, err)
	}
}
