package statemachine_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
)

func TestStateNext(t *testing.T) {
	tests := []struct{ from, to sm.State }{
		{sm.State{0, sm.AwaitingArguments}, sm.State{0, sm.AwaitingJudgment}},
		{sm.State{0, sm.AwaitingJudgment}, sm.State{1, sm.AwaitingArguments}},
		{sm.State{7, sm.AwaitingArguments}, sm.State{7, sm.AwaitingJudgment}},
		{sm.State{7, sm.AwaitingJudgment}, sm.State{8, sm.AwaitingArguments}},
		{sm.State{999, sm.AwaitingJudgment}, sm.State{1000, sm.AwaitingArguments}},
	}
	for _, tc := range tests {
		if got := tc.from.Next(); got != tc.to {
			t.Errorf("%+v.Next() = %+v, want %+v", tc.from, got, tc.to)
		}
	}
}

func TestStateActionAndCommand(t *testing.T) {
	tests := []struct {
		st      sm.State
		action  string
		command string
	}{
		{sm.State{0, sm.AwaitingArguments}, "both sides' opening arguments for exchange 0 (three each)", "process-exchange"},
		{sm.State{0, sm.AwaitingJudgment}, "the judge's scores for exchange 0 (6 arguments)", "process-judge"},
		{sm.State{3, sm.AwaitingArguments}, "both sides' rebuttals for exchange 3 (one each)", "process-exchange"},
		{sm.State{3, sm.AwaitingJudgment}, "the judge's scores for exchange 3 (2 arguments)", "process-judge"},
		{sm.State{3, "finished"}, "nothing: the phase is unknown", "process-exchange"},
	}
	for _, tc := range tests {
		if got := tc.st.Action(); got != tc.action {
			t.Errorf("%+v.Action() = %q, want %q", tc.st, got, tc.action)
		}
		if got := tc.st.Command(); got != tc.command {
			t.Errorf("%+v.Command() = %q, want %q", tc.st, got, tc.command)
		}
	}
}

func TestAcceptArguments(t *testing.T) {
	tests := []struct {
		name     string
		st       sm.State
		exchange int
		ok       bool
	}{
		{"opening", sm.State{0, sm.AwaitingArguments}, 0, true},
		{"rebuttal", sm.State{4, sm.AwaitingArguments}, 4, true},
		{"wrong phase", sm.State{4, sm.AwaitingJudgment}, 4, false},
		{"earlier exchange", sm.State{4, sm.AwaitingArguments}, 3, false},
		{"later exchange", sm.State{4, sm.AwaitingArguments}, 5, false},
		{"wrong phase and exchange", sm.State{4, sm.AwaitingJudgment}, 5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.st.AcceptArguments(tc.exchange)
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *sm.StepError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want *StepError", err, err)
			}
			if se.State != tc.st {
				t.Errorf("StepError.State %+v, want %+v", se.State, tc.st)
			}
			// The message says what was asked and what the debate waits for.
			msg := err.Error()
			for _, want := range []string{"arguments for exchange", "refused", tc.st.Action()} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

func TestAcceptJudgment(t *testing.T) {
	if err := (sm.State{2, sm.AwaitingJudgment}).AcceptJudgment(); err != nil {
		t.Fatalf("refused: %v", err)
	}
	st := sm.State{2, sm.AwaitingArguments}
	err := st.AcceptJudgment()
	var se *sm.StepError
	if !errors.As(err, &se) || se.State != st {
		t.Fatalf("error %v, want *StepError for %+v", err, st)
	}
	if msg := err.Error(); !strings.Contains(msg, "a judgment refused") || !strings.Contains(msg, "rebuttals for exchange 2") {
		t.Errorf("message %q", msg)
	}
}

// TestAcceptJudgmentAtTheLastExchange checks that the limits agree: the
// judgment of exchange MaxExchange would move the debate to an exchange no
// debate file may hold, so it is refused, and so are the arguments of
// exchange MaxExchange, so that no debate is left waiting for a judgment
// that is always refused. The last step accepted, the judgment of exchange
// MaxExchange-1, leads to a state that validates.
func TestAcceptJudgmentAtTheLastExchange(t *testing.T) {
	last := sm.MaxExchange - 1
	if err := (sm.State{last, sm.AwaitingArguments}).AcceptArguments(last); err != nil {
		t.Fatalf("the arguments of exchange %d refused: %v", last, err)
	}
	if err := (sm.State{last, sm.AwaitingJudgment}).AcceptJudgment(); err != nil {
		t.Fatalf("the judgment of exchange %d refused: %v", last, err)
	}
	after := (sm.State{last, sm.AwaitingJudgment}).Next()
	if err := after.Validate(); err != nil {
		t.Fatalf("the state after exchange %d is invalid: %v", last, err)
	}
	err := after.AcceptArguments(after.Exchange)
	var le *sm.LimitError
	if !errors.As(err, &le) || le.Exchange != sm.MaxExchange || !le.Arguments {
		t.Fatalf("arguments of exchange %d: error %v, want *LimitError", sm.MaxExchange, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "arguments for exchange 99999 refused") || !strings.Contains(msg, "the last exchange moot can judge is 99998") {
		t.Errorf("message %q", msg)
	}
	err = (sm.State{sm.MaxExchange, sm.AwaitingJudgment}).AcceptJudgment()
	if !errors.As(err, &le) || le.Exchange != sm.MaxExchange || le.Arguments {
		t.Fatalf("error %v, want *LimitError for exchange %d", err, sm.MaxExchange)
	}
	if msg := err.Error(); !strings.Contains(msg, "a judgment refused") || !strings.Contains(msg, "exchange 99999 is the last") || !strings.Contains(msg, "100000") {
		t.Errorf("message %q", msg)
	}
}

func TestStateValidate(t *testing.T) {
	tests := []struct {
		st sm.State
		ok bool
	}{
		{sm.State{0, sm.AwaitingArguments}, true},
		{sm.State{sm.MaxExchange, sm.AwaitingJudgment}, true},
		{sm.State{-1, sm.AwaitingArguments}, false},
		{sm.State{sm.MaxExchange + 1, sm.AwaitingArguments}, false},
		{sm.State{0, "done"}, false},
		{sm.State{0, ""}, false},
	}
	for _, tc := range tests {
		if err := tc.st.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tc.st, err, tc.ok)
		}
	}
}

func TestParsePhaseAndSide(t *testing.T) {
	for _, s := range []string{"awaiting_arguments", "awaiting_judgment"} {
		if p, err := sm.ParsePhase(s); err != nil || string(p) != s {
			t.Errorf("ParsePhase(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := sm.ParsePhase("Awaiting_Arguments"); err == nil {
		t.Error("ParsePhase accepted a wrongly spelled phase")
	}
	sides := map[string]sm.Side{"prop": sm.Prop, "proposition": sm.Prop, "opp": sm.Opp, "opposition": sm.Opp}
	for in, want := range sides {
		if got, ok := sm.ParseSide(in); !ok || got != want {
			t.Errorf("ParseSide(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "Prop", "judge", "pro"} {
		if _, ok := sm.ParseSide(in); ok {
			t.Errorf("ParseSide(%q) accepted", in)
		}
	}
	if sm.Prop.Other() != sm.Opp || sm.Opp.Other() != sm.Prop {
		t.Error("Other is not the opposing side")
	}
	if sm.Prop.Name() != "proposition" || sm.Opp.Name() != "opposition" {
		t.Error("wrong side names")
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want sm.ID
		ok   bool
	}{
		{"prop_000a", sm.ID{sm.Prop, 0, 'a'}, true},
		{"prop_000b", sm.ID{sm.Prop, 0, 'b'}, true},
		{"opp_000c", sm.ID{sm.Opp, 0, 'c'}, true},
		{"prop_001", sm.ID{sm.Prop, 1, 0}, true},
		{"opp_042", sm.ID{sm.Opp, 42, 0}, true},
		{"prop_999", sm.ID{sm.Prop, 999, 0}, true},
		{"prop_1000", sm.ID{sm.Prop, 1000, 0}, true},
		{"opp_99999", sm.ID{sm.Opp, 99999, 0}, true},
		{"prop_000", sm.ID{}, false},    // the opening needs a letter
		{"prop_000d", sm.ID{}, false},   // three per side
		{"prop_001a", sm.ID{}, false},   // a rebuttal has no letter
		{"prop_01", sm.ID{}, false},     // three digits at least
		{"prop_0001", sm.ID{}, false},   // no extra padding
		{"prop_0999", sm.ID{}, false},   // no extra padding
		{"prop_100000", sm.ID{}, false}, // beyond MaxExchange
		{"prop_1", sm.ID{}, false},
		{"PROP_001", sm.ID{}, false},
		{"proposition_001", sm.ID{}, false},
		{"judge_001", sm.ID{}, false},
		{"prop-001", sm.ID{}, false},
		{"prop_001 ", sm.ID{}, false},
		{"prop_001\n", sm.ID{}, false},
		{"prop_001.md", sm.ID{}, false},
		{"../x", sm.ID{}, false},
		{"../prop_001", sm.ID{}, false},
		{"prop_001/../../x", sm.ID{}, false},
		{"/prop_001", sm.ID{}, false},
		{"", sm.ID{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := sm.ParseID(tc.in)
			if !tc.ok {
				if err == nil {
					t.Fatalf("accepted as %+v", got)
				}
				if !strings.Contains(err.Error(), "is not an argument id") {
					t.Errorf("error %q", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
			if got.String() != tc.in {
				t.Errorf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}

func TestParseIDHints(t *testing.T) {
	for in, hint := range map[string]string{
		"prop_000":  "prop_000a, prop_000b or prop_000c",
		"opp_002b":  "opp_002",
		"prop_0004": "prop_004",
	} {
		_, err := sm.ParseID(in)
		if err == nil || !strings.Contains(err.Error(), hint) {
			t.Errorf("ParseID(%q) error %v, want a hint of %q", in, err, hint)
		}
	}
}

func TestArgumentIDs(t *testing.T) {
	tests := []struct {
		exchange int
		side     sm.Side
		want     string
	}{
		{0, sm.Prop, "prop_000a prop_000b prop_000c"},
		{0, sm.Opp, "opp_000a opp_000b opp_000c"},
		{1, sm.Prop, "prop_001"},
		{12, sm.Opp, "opp_012"},
		{1234, sm.Opp, "opp_1234"},
	}
	for _, tc := range tests {
		got := strings.Join(sm.ArgumentIDs(tc.exchange, tc.side), " ")
		if got != tc.want {
			t.Errorf("ArgumentIDs(%d, %s) = %q, want %q", tc.exchange, tc.side, got, tc.want)
		}
		for _, id := range sm.ArgumentIDs(tc.exchange, tc.side) {
			if _, err := sm.ParseID(id); err != nil {
				t.Errorf("ArgumentIDs gave %q, which ParseID refuses: %v", id, err)
			}
		}
	}
	if got := strings.Join(sm.ExchangeIDs(0), " "); got != "prop_000a prop_000b prop_000c opp_000a opp_000b opp_000c" {
		t.Errorf("ExchangeIDs(0) = %q", got)
	}
	if got := strings.Join(sm.ExchangeIDs(5), " "); got != "prop_005 opp_005" {
		t.Errorf("ExchangeIDs(5) = %q", got)
	}
}

func TestSortIDs(t *testing.T) {
	ids := []string{"zzz", "opp_010", "prop_002", "opp_000b", "prop_010", "prop_000c", "opp_000a", "prop_000a", "aaa", "opp_002", "prop_1000"}
	sm.SortIDs(ids)
	want := "prop_000a prop_000c opp_000a opp_000b prop_002 opp_002 prop_010 opp_010 prop_1000 aaa zzz"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("SortIDs = %q\nwant %q", got, want)
	}
}

func TestCumulative(t *testing.T) {
	tests := []struct {
		name    string
		current map[string]float64
		want    sm.Totals
	}{
		{"empty", map[string]float64{}, sm.Totals{}},
		{
			"rounded to three decimals",
			map[string]float64{"prop_000a": 0.1, "prop_000b": 0.2, "prop_000c": 0.0001, "opp_000a": -0.1, "opp_000b": -0.2, "opp_000c": -0.0001},
			sm.Totals{Proposition: sm.Total{Total: 0.3, Count: 3}, Opposition: sm.Total{Total: -0.3, Count: 3}},
		},
		{
			// A zero score still counts as scored.
			"counts include zeros",
			map[string]float64{"prop_001": 0, "opp_001": 0, "prop_002": 0.5},
			sm.Totals{Proposition: sm.Total{Total: 0.5, Count: 2}, Opposition: sm.Total{Total: 0, Count: 1}},
		},
		{
			"rescores break the symmetry",
			map[string]float64{"prop_000a": 0.4, "opp_000a": -0.1},
			sm.Totals{Proposition: sm.Total{Total: 0.4, Count: 1}, Opposition: sm.Total{Total: -0.1, Count: 1}},
		},
		{
			"strings that are not ids count for neither side",
			map[string]float64{"prop_001": 0.25, "judge": 1, "prop_01": 1, "../opp_001": -1},
			sm.Totals{Proposition: sm.Total{Total: 0.25, Count: 1}},
		},
		{
			"no negative zero",
			map[string]float64{"prop_001": 0.1, "prop_002": -0.1, "opp_001": -0.0003, "opp_002": 0.0001},
			sm.Totals{Proposition: sm.Total{Total: 0, Count: 2}, Opposition: sm.Total{Total: 0, Count: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sm.Cumulative(tc.current)
			if got != tc.want {
				t.Fatalf("Cumulative = %+v, want %+v", got, tc.want)
			}
			for _, side := range sm.Sides {
				if x := got.Of(side).Total; x == 0 && math.Signbit(x) {
					t.Errorf("%s total is negative zero", side)
				}
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "-0,") || strings.Contains(string(b), ":-0}") {
				t.Errorf("totals encode a negative zero: %s", b)
			}
		})
	}
}

// TestCumulativeOrderIndependent checks that the same scores give the same
// bits however the map iterates.
func TestCumulativeOrderIndependent(t *testing.T) {
	cur := map[string]float64{}
	for e := 1; e <= 40; e++ {
		cur[sm.ArgumentIDs(e, sm.Prop)[0]] = 0.1 * float64(e%7) / 3
		cur[sm.ArgumentIDs(e, sm.Opp)[0]] = -0.1 * float64(e%5) / 7
	}
	first := sm.Cumulative(cur)
	for i := 0; i < 50; i++ {
		if got := sm.Cumulative(cur); got != first {
			t.Fatalf("run %d gave %+v, first gave %+v", i, got, first)
		}
	}
}

func TestTotalsOfAndLeader(t *testing.T) {
	tt := sm.Totals{Proposition: sm.Total{Total: 0.1, Count: 2}, Opposition: sm.Total{Total: -0.2, Count: 3}}
	if tt.Of(sm.Prop).Count != 2 || tt.Of(sm.Opp).Count != 3 {
		t.Errorf("Of: %+v %+v", tt.Of(sm.Prop), tt.Of(sm.Opp))
	}
	tests := []struct {
		prop, opp float64
		side      sm.Side
		margin    float64
	}{
		{0.1, -0.2, sm.Prop, 0.3},
		{-2.05, 2.05, sm.Opp, 4.1},
		{0.4, 0.4, "", 0},
		{0.0001, 0, "", 0}, // below the third decimal
		{0, 0, "", 0},
	}
	for _, tc := range tests {
		tt := sm.Totals{Proposition: sm.Total{Total: tc.prop}, Opposition: sm.Total{Total: tc.opp}}
		side, margin := tt.Leader()
		if side != tc.side || margin != tc.margin {
			t.Errorf("Leader(%g, %g) = %q, %v; want %q, %v", tc.prop, tc.opp, side, margin, tc.side, tc.margin)
		}
	}
}

func TestFormatScore(t *testing.T) {
	tests := map[float64]string{
		0.35:      "+0.35",
		-2.05:     "-2.05",
		0:         "0.00",
		1:         "+1.00",
		0.125:     "+0.125",
		-0.1:      "-0.10",
		0.1 + 0.2: "+0.30",
		-1e-9:     "0.00",
	}
	for in, want := range tests {
		if got := sm.FormatScore(in); got != want {
			t.Errorf("FormatScore(%v) = %q, want %q", in, got, want)
		}
	}
}
