package dialectic

import (
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/evidence"
)

func TestArgumentGrounds(t *testing.T) {
	sub := Submission{Title: "T", Claim: "C.", Warrant: "W.", Grounds: []Ground{
		{Source: "Page https://a.example/x", Content: `"water boils at 100 degrees"`, Relevance: "R."},
		{Source: "A book", Content: "Something.", Relevance: "R."},
	}}
	checks := []evidence.Check{{Result: evidence.Verified, Score: 1, Copy: evidence.Name("https://a.example/x"), URL: "https://a.example/x"}, {}}
	a := NewArgument("prop_000a", Prop, 0, sub)
	plain, err := a.Render()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), "grounds") || strings.Contains(string(plain), "Check:") {
		t.Errorf("an argument without checks mentions them:\n%s", plain)
	}
	a.Grounds, a.Body = checks, renderBody(sub, checks)
	data, err := a.Render()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "**Check:** quote verified (match 1.00 against sources/") {
		t.Errorf("the body shows no check:\n%s", data)
	}
	tests := []struct {
		name, file, wantErr string
		checks              int
	}{
		{"old file", string(plain), "", 0},
		{"with checks", string(data), "", 2},
		{"bad check", strings.Replace(string(data), `"verified"`, `"probably"`, 1), `check "probably" is not`, 0},
		{"bad score", strings.Replace(string(data), `"score": 1`, `"score": 7`, 1), "score 7 is not from 0 to 1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseArgument([]byte(tt.file))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Grounds) != tt.checks {
				t.Errorf("checks = %+v", got.Grounds)
			}
			again, err := got.Render()
			if err != nil || string(again) != tt.file {
				t.Errorf("render after parse differs: %v\n%s", err, again)
			}
		})
	}
}
