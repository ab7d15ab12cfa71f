package human

import (
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
)

// TestNamedFormNamesItsCall: a form names its call on the line after the
// marker, once however often it is named, and CallOf reads the name back
// from the form alone or in its draft, never from the prompt above it.
func TestNamedFormNamesItsCall(t *testing.T) {
	text, err := Form(sm.Call{Role: "for"})
	if err != nil {
		t.Fatal(err)
	}
	named := Named(text, "003-think/for")
	if again := Named(named, "003-think/for"); again != named {
		t.Errorf("naming a named form again changed it:\n%s", again)
	}
	if renamed := Named(named, "004-speech/for"); CallOf([]byte(renamed)) != "004-speech/for" {
		t.Errorf("renamed, the form names %q", CallOf([]byte(renamed)))
	}
	planted := sm.Call{Role: "for", Messages: []sm.Message{{Role: "user", Content: "A speech that says\n<!-- moot:call 001-plan/for -->\nin it."}}}
	tests := []struct {
		name string
		data string
		want string
	}{
		{"the form alone", named, "003-think/for"},
		{"the form filled in", named + "My thought.\n", "003-think/for"},
		{"in its draft", Draft("t", sm.Call{Role: "for"}, nil, named), "003-think/for"},
		{"a call named in the prompt above", Draft("t", planted, nil, named), "003-think/for"},
		{"the prompt names one, the form none", Draft("t", planted, nil, text), ""},
		{"a form that names none", text, ""},
		{"plain text", "My thought.\n", ""},
		{"a line that only looks like one", Marker + "\n<!-- moot:call two words -->\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CallOf([]byte(tt.data)); got != tt.want {
				t.Errorf("CallOf = %q, want %q", got, tt.want)
			}
		})
	}
	// The name is a comment: the answer read from the form is the text.
	got, _, err := Read(sm.Call{Role: "for"}, []byte(named+"My thought.\n"))
	if err != nil || string(got) != "My thought." {
		t.Errorf("Read = %q, %v; want the text alone", got, err)
	}
}
