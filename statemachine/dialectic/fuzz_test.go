package dialectic_test

import (
	"maps"
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

// knownUpTo is a debate whose exchanges 0 to last have all their
// arguments, each attacking nothing.
func knownUpTo(last int) dialectic.Known {
	k := dialectic.Known{}
	for e := 0; e <= last; e++ {
		for _, side := range dialectic.Sides() {
			for _, id := range dialectic.ArgumentIDs(e, side) {
				k[id] = dialectic.Arg{Side: side, Exchange: e}
			}
		}
	}
	return k
}

// FuzzParseSubmissions feeds arbitrary answers for any exchange from 0 to
// 4 to the debater validator. It must never panic, and an accepted answer
// must satisfy every rule of FORMAT.md, and render to an argument file
// that reads back with the same title and claim.
func FuzzParseSubmissions(f *testing.F) {
	f.Add(dialectictest.Answer(dialectic.Prop, 0), uint8(0), true)
	f.Add(dialectictest.Answer(dialectic.Opp, 2), uint8(2), false)
	f.Fuzz(func(t *testing.T, data []byte, ex uint8, prop bool) {
		exchange := int(ex % 5)
		side := dialectic.Opp
		if prop {
			side = dialectic.Prop
		}
		known := knownUpTo(4)
		subs, p := dialectic.ParseSubmissions(data, side, exchange, known)
		if !p.OK() {
			if len(subs) != 0 {
				t.Fatalf("refused, yet %d submissions returned", len(subs))
			}
			return
		}
		if len(subs) != dialectic.ArgumentsPerSide(exchange) {
			t.Fatalf("accepted %d arguments for exchange %d", len(subs), exchange)
		}
		for i, s := range subs {
			for name, v := range map[string]string{"title": s.Title, "claim": s.Claim, "warrant": s.Warrant} {
				if strings.TrimSpace(v) == "" {
					t.Fatalf("argument %d: empty %s accepted", i, name)
				}
			}
			if len(s.Grounds) < 1 || len(s.Grounds) > dialectic.MaxGrounds {
				t.Fatalf("argument %d: %d grounds accepted", i, len(s.Grounds))
			}
			for _, g := range s.Grounds {
				if strings.TrimSpace(g.Source) == "" || strings.TrimSpace(g.Content) == "" || strings.TrimSpace(g.Relevance) == "" {
					t.Fatalf("argument %d: a ground with an empty field accepted: %+v", i, g)
				}
			}
			if len(s.Attacks) > dialectic.MaxAttacks || len(s.Defends) > dialectic.MaxDefends {
				t.Fatalf("argument %d: %d attacks, %d defends accepted", i, len(s.Attacks), len(s.Defends))
			}
			checkLinks(t, s.Attacks, dialectic.AttackTypes(), side.Other(), exchange, known)
			checkLinks(t, s.Defends, dialectic.DefenceTypes(), side, exchange, known)
			id := dialectic.ArgumentIDs(exchange, side)[i]
			file, err := dialectic.NewArgument(id, side, exchange, s).Render()
			if err != nil {
				t.Fatalf("render %s: %v", id, err)
			}
			if !utf8.Valid(file) {
				t.Fatalf("%s renders to invalid UTF-8", id)
			}
			a, err := dialectic.ParseArgument(file)
			if err != nil {
				t.Fatalf("the file of an accepted argument does not read back: %v\n%s", err, file)
			}
			if a.ID != id || a.Title != s.Title || a.Claim != s.Claim || len(a.Attacks) != len(s.Attacks) || len(a.Defends) != len(s.Defends) {
				t.Fatalf("%s read back as %q / %q, handed in %q / %q", id, a.Title, a.Claim, s.Title, s.Claim)
			}
		}
	})
}

func checkLinks(t *testing.T, links []dialectic.Link, types []string, side dialectic.Side, exchange int, known dialectic.Known) {
	t.Helper()
	for _, l := range links {
		ok := false
		for _, ty := range types {
			ok = ok || ty == l.Type
		}
		if !ok {
			t.Fatalf("link type %q accepted", l.Type)
		}
		a, found := known[l.TargetID]
		if !found || a.Side != side || a.Exchange >= exchange {
			t.Fatalf("target %q accepted in exchange %d (known %v, %+v)", l.TargetID, exchange, found, a)
		}
		if strings.TrimSpace(l.Content) == "" {
			t.Fatalf("a link without content accepted")
		}
	}
}

// FuzzParseJudgment feeds arbitrary judgments for any exchange from 0 to
// 4 to the judge validator, with every earlier argument scored. It must
// never panic; an accepted judgment scores every argument of the exchange
// exactly once within [-1, 1] summing to zero, rescores only earlier
// scored arguments, once each and by at most 0.5, and appends exactly one
// history entry per score and rescore.
func FuzzParseJudgment(f *testing.F) {
	f.Add(dialectictest.Judgment(1), uint8(1))
	// The scores before each exchange are those the scripted judge gave.
	var before []map[string]float64
	current := map[string]float64{}
	for e := 0; e < 5; e++ {
		before = append(before, maps.Clone(current))
		j, p := dialectic.ParseJudgment(dialectictest.Judgment(e), e, knownUpTo(e), current)
		if !p.OK() {
			f.Fatalf("the scripted judgment of exchange %d: %v", e, p.Errors)
		}
		for _, en := range j.Entries(knownUpTo(e), current) {
			current[en.ArgumentID] = en.Score
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, ex uint8) {
		exchange := int(ex % 5)
		known := knownUpTo(exchange)
		current := before[exchange]
		j, p := dialectic.ParseJudgment(data, exchange, known, current)
		if !p.OK() {
			if len(j.Scores) != 0 || len(j.Rescores) != 0 {
				t.Fatalf("refused, yet a judgment returned: %+v", j)
			}
			return
		}
		want := map[string]bool{}
		for _, id := range dialectic.ExchangeIDs(exchange) {
			want[id] = true
		}
		if len(j.Scores) != len(want) {
			t.Fatalf("%d scores accepted for %d arguments", len(j.Scores), len(want))
		}
		sum := 0.0
		for _, s := range j.Scores {
			if !want[s.ArgumentID] {
				t.Fatalf("score for %q accepted twice or out of the exchange", s.ArgumentID)
			}
			delete(want, s.ArgumentID)
			if math.IsNaN(s.Score) || s.Score < -1-1e-9 || s.Score > 1+1e-9 {
				t.Fatalf("score %v accepted", s.Score)
			}
			if strings.TrimSpace(s.Reasoning) == "" {
				t.Fatalf("empty reasoning accepted")
			}
			sum += s.Score
		}
		if math.Abs(sum) > dialectic.ZeroSumEpsilon+1e-9 {
			t.Fatalf("scores summing to %v accepted", sum)
		}
		seen := map[string]bool{}
		for _, r := range j.Rescores {
			cur, scored := current[r.ArgumentID]
			if !scored || seen[r.ArgumentID] {
				t.Fatalf("rescore of %q accepted (scored %v, twice %v)", r.ArgumentID, scored, seen[r.ArgumentID])
			}
			seen[r.ArgumentID] = true
			if math.IsNaN(r.NewScore) || r.NewScore < -1-1e-9 || r.NewScore > 1+1e-9 || math.Abs(r.NewScore-cur) > dialectic.MaxRescoreStep+1e-9 {
				t.Fatalf("rescore of %s from %v to %v accepted", r.ArgumentID, cur, r.NewScore)
			}
		}
		entries := j.Entries(known, current)
		if len(entries) != len(j.Scores)+len(j.Rescores) {
			t.Fatalf("%d history entries for %d scores and %d rescores", len(entries), len(j.Scores), len(j.Rescores))
		}
	})
}

var safeName = regexp.MustCompile(`^[a-z0-9_]+$`)

// FuzzParseID checks that ParseID accepts only canonical ids, which are
// safe file names and come back unchanged, and that every id moot can
// make parses back to itself.
func FuzzParseID(f *testing.F) {
	f.Add("prop_000a", true, uint32(0), uint8(0))
	f.Fuzz(func(t *testing.T, s string, prop bool, ex uint32, letter uint8) {
		if id, err := dialectic.ParseID(s); err == nil {
			if id.String() != s {
				t.Fatalf("ParseID(%q) accepted a non-canonical id (canonical %q)", s, id.String())
			}
			if !safeName.MatchString(s) {
				t.Fatalf("ParseID accepted %q, which is not a safe file name", s)
			}
			if id.Side != dialectic.Prop && id.Side != dialectic.Opp {
				t.Fatalf("ParseID(%q) gave side %q", s, id.Side)
			}
			if id.Exchange < 0 || id.Exchange > dialectic.MaxExchange {
				t.Fatalf("ParseID(%q) gave exchange %d", s, id.Exchange)
			}
			if dialectic.Opening(id.Exchange) != (id.Letter != 0) || (id.Letter != 0 && (id.Letter < 'a' || id.Letter > 'c')) {
				t.Fatalf("ParseID(%q) gave letter %q in exchange %d", s, id.Letter, id.Exchange)
			}
		}
		// Every id the rules make for an exchange parses back to itself.
		exchange := int(ex % (dialectic.MaxExchange + 1))
		side := dialectic.Opp
		if prop {
			side = dialectic.Prop
		}
		ids := dialectic.ArgumentIDs(exchange, side)
		made := ids[int(letter)%len(ids)]
		id, err := dialectic.ParseID(made)
		if err != nil || id.String() != made || id.Exchange != exchange || id.Side != side {
			t.Fatalf("the id %q made for exchange %d does not parse back: %+v %v", made, exchange, id, err)
		}
	})
}
