package dialectic_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

func TestStateNext(t *testing.T) {
	tests := []struct{ from, to dialectic.State }{
		{dialectic.State{0, dialectic.AwaitingArguments}, dialectic.State{0, dialectic.AwaitingJudgment}},
		{dialectic.State{0, dialectic.AwaitingJudgment}, dialectic.State{1, dialectic.AwaitingArguments}},
		{dialectic.State{7, dialectic.AwaitingArguments}, dialectic.State{7, dialectic.AwaitingJudgment}},
		{dialectic.State{7, dialectic.AwaitingJudgment}, dialectic.State{8, dialectic.AwaitingArguments}},
		{dialectic.State{999, dialectic.AwaitingJudgment}, dialectic.State{1000, dialectic.AwaitingArguments}},
	}
	for _, tc := range tests {
		if got := tc.from.Next(); got != tc.to {
			t.Errorf("%+v.Next() = %+v, want %+v", tc.from, got, tc.to)
		}
	}
}

func TestStateActionAndCommand(t *testing.T) {
	tests := []struct {
		st      dialectic.State
		action  string
		command string
	}{
		{dialectic.State{0, dialectic.AwaitingArguments}, "both sides' opening arguments for exchange 0 (three each)", "process-exchange"},
		{dialectic.State{0, dialectic.AwaitingJudgment}, "the judge's scores for exchange 0 (6 arguments)", "process-judge"},
		{dialectic.State{3, dialectic.AwaitingArguments}, "both sides' rebuttals for exchange 3 (one each)", "process-exchange"},
		{dialectic.State{3, dialectic.AwaitingJudgment}, "the judge's scores for exchange 3 (2 arguments)", "process-judge"},
		{dialectic.State{3, "finished"}, "nothing: the phase is unknown", "process-exchange"},
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
		st       dialectic.State
		exchange int
		ok       bool
	}{
		{"opening", dialectic.State{0, dialectic.AwaitingArguments}, 0, true},
		{"rebuttal", dialectic.State{4, dialectic.AwaitingArguments}, 4, true},
		{"wrong phase", dialectic.State{4, dialectic.AwaitingJudgment}, 4, false},
		{"earlier exchange", dialectic.State{4, dialectic.AwaitingArguments}, 3, false},
		{"later exchange", dialectic.State{4, dialectic.AwaitingArguments}, 5, false},
		{"wrong phase and exchange", dialectic.State{4, dialectic.AwaitingJudgment}, 5, false},
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
			var se *dialectic.StepError
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
	if err := (dialectic.State{2, dialectic.AwaitingJudgment}).AcceptJudgment(); err != nil {
		t.Fatalf("refused: %v", err)
	}
	st := dialectic.State{2, dialectic.AwaitingArguments}
	err := st.AcceptJudgment()
	var se *dialectic.StepError
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
	last := dialectic.MaxExchange - 1
	if err := (dialectic.State{last, dialectic.AwaitingArguments}).AcceptArguments(last); err != nil {
		t.Fatalf("the arguments of exchange %d refused: %v", last, err)
	}
	if err := (dialectic.State{last, dialectic.AwaitingJudgment}).AcceptJudgment(); err != nil {
		t.Fatalf("the judgment of exchange %d refused: %v", last, err)
	}
	after := (dialectic.State{last, dialectic.AwaitingJudgment}).Next()
	if err := after.Validate(); err != nil {
		t.Fatalf("the state after exchange %d is invalid: %v", last, err)
	}
	err := after.AcceptArguments(after.Exchange)
	var le *dialectic.LimitError
	if !errors.As(err, &le) || le.Exchange != dialectic.MaxExchange || !le.Arguments {
		t.Fatalf("arguments of exchange %d: error %v, want *LimitError", dialectic.MaxExchange, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "arguments for exchange 99999 refused") || !strings.Contains(msg, "the last exchange moot can judge is 99998") {
		t.Errorf("message %q", msg)
	}
	err = (dialectic.State{dialectic.MaxExchange, dialectic.AwaitingJudgment}).AcceptJudgment()
	if !errors.As(err, &le) || le.Exchange != dialectic.MaxExchange || le.Arguments {
		t.Fatalf("error %v, want *LimitError for exchange %d", err, dialectic.MaxExchange)
	}
	if msg := err.Error(); !strings.Contains(msg, "a judgment refused") || !strings.Contains(msg, "exchange 99999 is the last") || !strings.Contains(msg, "100000") {
		t.Errorf("message %q", msg)
	}
}

func TestStateValidate(t *testing.T) {
	tests := []struct {
		st    dialectic.State
		field string // the field the error names, "" when valid
	}{
		{dialectic.State{0, dialectic.AwaitingArguments}, ""},
		{dialectic.State{dialectic.MaxExchange, dialectic.AwaitingJudgment}, ""},
		{dialectic.State{-1, dialectic.AwaitingArguments}, "current_exchange"},
		{dialectic.State{dialectic.MaxExchange + 1, dialectic.AwaitingArguments}, "current_exchange"},
		// An exchange out of range and a phase that is none: the exchange
		// is named first.
		{dialectic.State{-1, "phase"}, "current_exchange"},
		{dialectic.State{0, "done"}, "current_phase"},
		{dialectic.State{0, ""}, "current_phase"},
	}
	for _, tc := range tests {
		err := tc.st.Validate()
		var fe *dialectic.FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v.Validate() = %v, want nil", tc.st, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%+v.Validate() = %#v, want a *FieldError naming %s", tc.st, err, tc.field)
		}
	}
}

func TestParsePhaseAndSide(t *testing.T) {
	for _, s := range []string{"awaiting_arguments", "awaiting_judgment"} {
		if p, err := dialectic.ParsePhase(s); err != nil || string(p) != s {
			t.Errorf("ParsePhase(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := dialectic.ParsePhase("Awaiting_Arguments"); err == nil {
		t.Error("ParsePhase accepted a wrongly spelled phase")
	}
	sides := map[string]dialectic.Side{"prop": dialectic.Prop, "proposition": dialectic.Prop, "opp": dialectic.Opp, "opposition": dialectic.Opp}
	for in, want := range sides {
		if got, ok := dialectic.ParseSide(in); !ok || got != want {
			t.Errorf("ParseSide(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "Prop", "judge", "pro"} {
		if _, ok := dialectic.ParseSide(in); ok {
			t.Errorf("ParseSide(%q) accepted", in)
		}
	}
	if dialectic.Prop.Other() != dialectic.Opp || dialectic.Opp.Other() != dialectic.Prop {
		t.Error("Other is not the opposing side")
	}
	if dialectic.Prop.Name() != "proposition" || dialectic.Opp.Name() != "opposition" {
		t.Error("wrong side names")
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want dialectic.ID
		ok   bool
	}{
		{"prop_000a", dialectic.ID{dialectic.Prop, 0, 'a'}, true},
		{"prop_000b", dialectic.ID{dialectic.Prop, 0, 'b'}, true},
		{"opp_000c", dialectic.ID{dialectic.Opp, 0, 'c'}, true},
		{"prop_001", dialectic.ID{dialectic.Prop, 1, 0}, true},
		{"opp_042", dialectic.ID{dialectic.Opp, 42, 0}, true},
		{"prop_999", dialectic.ID{dialectic.Prop, 999, 0}, true},
		{"prop_1000", dialectic.ID{dialectic.Prop, 1000, 0}, true},
		{"opp_99999", dialectic.ID{dialectic.Opp, 99999, 0}, true},
		{"prop_000", dialectic.ID{}, false},    // the opening needs a letter
		{"prop_000d", dialectic.ID{}, false},   // three per side
		{"prop_001a", dialectic.ID{}, false},   // a rebuttal has no letter
		{"prop_01", dialectic.ID{}, false},     // three digits at least
		{"prop_0001", dialectic.ID{}, false},   // no extra padding
		{"prop_0999", dialectic.ID{}, false},   // no extra padding
		{"prop_100000", dialectic.ID{}, false}, // beyond MaxExchange
		{"prop_1", dialectic.ID{}, false},
		{"PROP_001", dialectic.ID{}, false},
		{"proposition_001", dialectic.ID{}, false},
		{"judge_001", dialectic.ID{}, false},
		{"prop-001", dialectic.ID{}, false},
		{"prop_001 ", dialectic.ID{}, false},
		{"prop_001\n", dialectic.ID{}, false},
		{"prop_001.md", dialectic.ID{}, false},
		{"../x", dialectic.ID{}, false},
		{"../prop_001", dialectic.ID{}, false},
		{"prop_001/../../x", dialectic.ID{}, false},
		{"/prop_001", dialectic.ID{}, false},
		{"", dialectic.ID{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := dialectic.ParseID(tc.in)
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
		_, err := dialectic.ParseID(in)
		if err == nil || !strings.Contains(err.Error(), hint) {
			t.Errorf("ParseID(%q) error %v, want a hint of %q", in, err, hint)
		}
	}
}

func TestArgumentIDs(t *testing.T) {
	tests := []struct {
		exchange int
		side     dialectic.Side
		want     string
	}{
		{0, dialectic.Prop, "prop_000a prop_000b prop_000c"},
		{0, dialectic.Opp, "opp_000a opp_000b opp_000c"},
		{1, dialectic.Prop, "prop_001"},
		{12, dialectic.Opp, "opp_012"},
		{1234, dialectic.Opp, "opp_1234"},
	}
	for _, tc := range tests {
		got := strings.Join(dialectic.ArgumentIDs(tc.exchange, tc.side), " ")
		if got != tc.want {
			t.Errorf("ArgumentIDs(%d, %s) = %q, want %q", tc.exchange, tc.side, got, tc.want)
		}
		for _, id := range dialectic.ArgumentIDs(tc.exchange, tc.side) {
			if _, err := dialectic.ParseID(id); err != nil {
				t.Errorf("ArgumentIDs gave %q, which ParseID refuses: %v", id, err)
			}
		}
	}
	if got := strings.Join(dialectic.ExchangeIDs(0), " "); got != "prop_000a prop_000b prop_000c opp_000a opp_000b opp_000c" {
		t.Errorf("ExchangeIDs(0) = %q", got)
	}
	if got := strings.Join(dialectic.ExchangeIDs(5), " "); got != "prop_005 opp_005" {
		t.Errorf("ExchangeIDs(5) = %q", got)
	}
}

func TestSortIDs(t *testing.T) {
	ids := []string{"zzz", "opp_010", "prop_002", "opp_000b", "prop_010", "prop_000c", "opp_000a", "prop_000a", "aaa", "opp_002", "prop_1000"}
	dialectic.SortIDs(ids)
	want := "prop_000a prop_000c opp_000a opp_000b prop_002 opp_002 prop_010 opp_010 prop_1000 aaa zzz"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("SortIDs = %q\nwant %q", got, want)
	}
}

func TestCumulative(t *testing.T) {
	tests := []struct {
		name    string
		current map[string]float64
		want    dialectic.Totals
	}{
		{"empty", map[string]float64{}, dialectic.Totals{}},
		{
			"rounded to three decimals",
			map[string]float64{"prop_000a": 0.1, "prop_000b": 0.2, "prop_000c": 0.0001, "opp_000a": -0.1, "opp_000b": -0.2, "opp_000c": -0.0001},
			dialectic.Totals{Proposition: dialectic.Total{Total: 0.3, Count: 3}, Opposition: dialectic.Total{Total: -0.3, Count: 3}},
		},
		{
			// A zero score still counts as scored.
			"counts include zeros",
			map[string]float64{"prop_001": 0, "opp_001": 0, "prop_002": 0.5},
			dialectic.Totals{Proposition: dialectic.Total{Total: 0.5, Count: 2}, Opposition: dialectic.Total{Total: 0, Count: 1}},
		},
		{
			"rescores break the symmetry",
			map[string]float64{"prop_000a": 0.4, "opp_000a": -0.1},
			dialectic.Totals{Proposition: dialectic.Total{Total: 0.4, Count: 1}, Opposition: dialectic.Total{Total: -0.1, Count: 1}},
		},
		{
			"strings that are not ids count for neither side",
			map[string]float64{"prop_001": 0.25, "judge": 1, "prop_01": 1, "../opp_001": -1},
			dialectic.Totals{Proposition: dialectic.Total{Total: 0.25, Count: 1}},
		},
		{
			"no negative zero",
			map[string]float64{"prop_001": 0.1, "prop_002": -0.1, "opp_001": -0.0003, "opp_002": 0.0001},
			dialectic.Totals{Proposition: dialectic.Total{Total: 0, Count: 2}, Opposition: dialectic.Total{Total: 0, Count: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dialectic.Cumulative(tc.current)
			if got != tc.want {
				t.Fatalf("Cumulative = %+v, want %+v", got, tc.want)
			}
			for _, side := range dialectic.Sides() {
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
		cur[dialectic.ArgumentIDs(e, dialectic.Prop)[0]] = 0.1 * float64(e%7) / 3
		cur[dialectic.ArgumentIDs(e, dialectic.Opp)[0]] = -0.1 * float64(e%5) / 7
	}
	first := dialectic.Cumulative(cur)
	for i := 0; i < 50; i++ {
		if got := dialectic.Cumulative(cur); got != first {
			t.Fatalf("run %d gave %+v, first gave %+v", i, got, first)
		}
	}
}

func TestTotalsOfAndLeader(t *testing.T) {
	tt := dialectic.Totals{Proposition: dialectic.Total{Total: 0.1, Count: 2}, Opposition: dialectic.Total{Total: -0.2, Count: 3}}
	if tt.Of(dialectic.Prop).Count != 2 || tt.Of(dialectic.Opp).Count != 3 {
		t.Errorf("Of: %+v %+v", tt.Of(dialectic.Prop), tt.Of(dialectic.Opp))
	}
	tests := []struct {
		prop, opp float64
		side      dialectic.Side
		margin    float64
	}{
		{0.1, -0.2, dialectic.Prop, 0.3},
		{-2.05, 2.05, dialectic.Opp, 4.1},
		{0.4, 0.4, "", 0},
		{0.0001, 0, "", 0}, // below the third decimal
		{0, 0, "", 0},
	}
	for _, tc := range tests {
		tt := dialectic.Totals{Proposition: dialectic.Total{Total: tc.prop}, Opposition: dialectic.Total{Total: tc.opp}}
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
		if got := dialectic.FormatScore(in); got != want {
			t.Errorf("FormatScore(%v) = %q, want %q", in, got, want)
		}
	}
}

// TestListsCannotBeChanged checks that a caller changing the list it was
// given does not change what the next caller gets.
func TestListsCannotBeChanged(t *testing.T) {
	lists := map[string]func() []string{
		"Sides":        func() []string { return sidesAsStrings(dialectic.Sides()) },
		"AttackTypes":  dialectic.AttackTypes,
		"DefenceTypes": dialectic.DefenceTypes,
	}
	for name, list := range lists {
		t.Run(name, func(t *testing.T) {
			want := strings.Join(list(), " ")
			switch name {
			case "Sides":
				dialectic.Sides()[0] = "changed"
			default:
				list()[0] = "changed"
			}
			if got := strings.Join(list(), " "); got != want {
				t.Errorf("%s() = %s after a caller changed its copy, want %s", name, got, want)
			}
		})
	}
}

func sidesAsStrings(sides []dialectic.Side) []string {
	out := make([]string, len(sides))
	for i, s := range sides {
		out[i] = string(s)
	}
	return out
}
