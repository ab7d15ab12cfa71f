package dialectic_test

import (
	"reflect"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestMotionWithHeadingsRoundTrips checks that a motion or scope holding
// lines that are markdown headings is stored and read back exactly, through
// debate.md, instead of being cut into sections of its own.
func TestMotionWithHeadingsRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		m    dialectic.Motion
	}{
		{"motion with a Scope heading", dialectic.Motion{Text: "This house would pause AI.\n\n## Scope\n\nAll labs."}},
		{"motion with a top heading", dialectic.Motion{Text: "# Something\n\nThis house would pause AI."}},
		{"motion with a Motion heading", dialectic.Motion{Text: "This house would act.\n\n# Motion\n\nAgain."}},
		{"motion with a Definitions heading and a list", dialectic.Motion{Text: "M.\n\n## Definitions\n\n- **x**: y"}},
		{"scope with a Definitions heading", dialectic.Motion{Text: "M.", Scope: "Labs.\n\n## Definitions\n\n- **AI**: software"}},
		{"scope with headings of every level", dialectic.Motion{Text: "M.", Scope: "# a\n## b\n### c\n#### d\n##### e\n###### f"}},
		{"setext headings", dialectic.Motion{Text: "Scope\n-----\n\nMotion\n======\n\ntext", Scope: "Definitions\n---"}},
		{"heading above a rule", dialectic.Motion{Text: "# A\n---\nB"}},
		{"empty and closed headings", dialectic.Motion{Text: "M.\n#\n## Scope ##\n   # indented"}},
		{"text that looks escaped", dialectic.Motion{Text: "\\# not a heading\n\\\\## two\n\\---\n  \\=== x"}},
		{"hashes that are not headings", dialectic.Motion{Text: "#hashtag and #5\n\n```\n# a comment in code\n```\n\n> # quoted heading\n\n- # heading in a list"}},
		{"a rule and a list", dialectic.Motion{Text: "Intro.\n\n---\n\n- one\n- two", Scope: "S."}},
		{"definitions and scope around it", dialectic.Motion{Text: "## Scope", Definitions: []dialectic.Definition{{Term: "t", Meaning: "m"}}, Scope: "## Motion"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := dialectic.CheckMotion(tc.m); err != nil {
				t.Fatalf("CheckMotion: %v", err)
			}
			h := dialectic.NewHeader("demo", tc.m)
			data, err := h.Render()
			if err != nil {
				t.Fatal(err)
			}
			back, err := dialectic.ParseHeader(data)
			if err != nil {
				t.Fatalf("ParseHeader: %v\n%s", err, data)
			}
			if !reflect.DeepEqual(back.Motion, tc.m) {
				t.Errorf("read back\n%#v\nwant\n%#v\nfile:\n%s", back.Motion, tc.m, data)
			}
		})
	}
}

// TestMotionSpacingRoundTrips checks that a motion is stored exactly as
// given apart from the blank space around it: spaces and tabs inside
// lines, trailing spaces at the end of inner lines (a markdown hard break)
// and several blank lines between paragraphs all read back as they were.
func TestMotionSpacingRoundTrips(t *testing.T) {
	tests := []struct {
		name, given, want string
	}{
		{"double spaces", "This  house   would act.", "This  house   would act."},
		{"blank lines between paragraphs", "First.\n\nSecond.\n\n\n\nThird.", "First.\n\nSecond.\n\n\n\nThird."},
		{"trailing spaces inside", "A hard break  \nafter it.\nAnd a tab\t\nthen more.", "A hard break  \nafter it.\nAnd a tab\t\nthen more."},
		{"blank line holding spaces", "One.\n   \nTwo.", "One.\n   \nTwo."},
		{"indented inner line", "One.\n  two, indented.", "One.\n  two, indented."},
		{"surrounding blank space trimmed", "\n\n  \t This house would act.  \n\n ", "This house would act."},
		{"surrounding blank lines, inner kept", " \nOne.  \n\nTwo. \n\n", "One.  \n\nTwo."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := dialectic.Motion{Text: tc.given, Scope: tc.given}
			if err := dialectic.CheckMotion(m); err != nil {
				t.Fatalf("CheckMotion: %v", err)
			}
			data, err := dialectic.NewHeader("demo", m).Render()
			if err != nil {
				t.Fatal(err)
			}
			back, err := dialectic.ParseHeader(data)
			if err != nil {
				t.Fatalf("ParseHeader: %v\n%s", err, data)
			}
			if back.Motion.Text != tc.want || back.Motion.Scope != tc.want {
				t.Errorf("read back motion %q and scope %q, want %q\nfile:\n%s", back.Motion.Text, back.Motion.Scope, tc.want, data)
			}
		})
	}
}
