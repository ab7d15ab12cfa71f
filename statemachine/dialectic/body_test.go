package dialectic

import (
	"strings"
	"testing"
)

func TestBodyDisagreements(t *testing.T) {
	s := Submission{Title: "T", Claim: "Cities should price roads.", Warrant: "W",
		Attacks: []Link{{TargetID: "opp_000a", Type: "claim_attack", Content: "No."}}}
	body := RenderBody(s)
	arg := func(claim, body string) *Argument {
		return &Argument{ID: "prop_001", Side: Prop, Exchange: 1, Claim: claim, Body: body,
			Attacks: []Target{{TargetID: "opp_000a", Type: "claim_attack"}}}
	}
	for _, tc := range []struct {
		name string
		a    *Argument
		want string // "" for agreement
	}{
		{"as written", arg(s.Claim, body), ""},
		{"claim with blanks around it", arg("  "+s.Claim+"\n", body), ""},
		{"windows line ends", arg(s.Claim, strings.ReplaceAll(body, "\n", "\r\n")), ""},
		{"rewrapped", arg(s.Claim, strings.Replace(body, "should price", "should\nprice", 1)), ""},
		{"body edited", arg(s.Claim, strings.Replace(body, "price roads", "ban cars", 1)), `the body's "## Claim" says "Cities should ban cars."`},
		{"field edited", arg("Cities should ban cars.", body), `field "claim" says "Cities should ban cars."`},
		{"claim section gone", arg(s.Claim, strings.Replace(body, "## Claim", "## Thesis", 1)), `no "## Claim" section`},
		{"no claim at all", arg("", strings.Replace(body, "## Claim\n\nCities should price roads.\n\n", "", 1)), ""},
		{"attack heading edited", arg(s.Claim, strings.Replace(body, "Attacking opp_000a", "Attacking opp_000b", 1)), `headings name opp_000b but field "attacks" names opp_000a`},
		{"an unlinked attack stays in the body", arg(s.Claim, body+"\n\n### Attacking nobody\n\n**Type:** claim_attack\n\nNo."), ""},
		{"no heading at all, as hand-written debates", arg(s.Claim, strings.Replace(body, "### Attacking opp_000a", "### Attacks", 1)), ""},
		{"one heading of two removed", func() *Argument {
			a := arg(s.Claim, strings.Replace(body, "### Attacking opp_000a", "### Attacking opp_000b", 1))
			a.Attacks = append(a.Attacks, Target{TargetID: "opp_000c", Type: "claim_attack"})
			return a
		}(), `headings name opp_000b but field "attacks" names opp_000a, opp_000c`},
		{"claim that quotes a heading", arg("Roads ## Claim", strings.Replace(body, s.Claim, "Roads ## Claim", 1)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(bodyDisagreements(tc.a), "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestClaimText: the claim every reader shows is the body's; the
// frontmatter's copy, as written, when it says the same words, and
// when the body has no "## Claim" section to say it.
func TestClaimText(t *testing.T) {
	s := Submission{Title: "T", Claim: "Cities should price roads.", Warrant: "W"}
	body := RenderBody(s)
	for _, tc := range []struct {
		name, claim, body, want string
	}{
		{"as written", s.Claim, body, s.Claim},
		{"rewrapped body", s.Claim, strings.Replace(body, "should price", "should\nprice", 1), s.Claim},
		{"windows line ends", s.Claim, strings.ReplaceAll(body, "\n", "\r\n"), s.Claim},
		{"body edited", s.Claim, strings.Replace(body, "price roads", "ban cars", 1), "Cities should ban cars."},
		{"field edited", "Cities should ban cars.", body, s.Claim},
		{"edited body over two lines", s.Claim, strings.Replace(body, "price roads.", "ban cars\nat night.", 1), "Cities should ban cars\nat night."},
		{"no claim section", "Cities should ban cars.", strings.Replace(body, "## Claim", "## Thesis", 1), "Cities should ban cars."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Argument{ID: "prop_001", Side: Prop, Exchange: 1, Claim: tc.claim, Body: tc.body}
			if got := a.ClaimText(); got != tc.want {
				t.Errorf("ClaimText = %q, want %q", got, tc.want)
			}
		})
	}
}
