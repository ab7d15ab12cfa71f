package dialectic_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/templates"
)

func TestValidateBuiltin(t *testing.T) {
	if err := dialectic.Validate(templates.Default()); err != nil {
		t.Fatalf("the built-in templates do not validate: %v", err)
	}
}

func TestValidateFindsBadTemplates(t *testing.T) {
	tests := []struct {
		name, file, text string
		want             []string
	}{
		{"unknown field", "judge.md", "Score {{.Bogus}} now.", []string{"judge.md:1", "{{.Bogus}} is not a field"}},
		{"unknown field in a range", "debater-rebuttal.md", "{{range .Own}}{{.Author}}{{end}}", []string{"{{.Author}}"}},
		{"unknown field for the opposition only", "debater-system.md", `{{if eq .Side "opposition"}}{{.Nope}}{{end}}`, []string{"{{.Nope}}"}},
		{"field misused for one side only", "debater-system.md", `{{if eq .Side "opposition"}}{{.Motion.Text}}{{end}}`, []string{"Motion.Text"}},
		{"unknown field in a repair", "repair.md", "{{range .Problems}}{{.}}{{end}}", []string{"{{.Problems}}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := templates.Default()
			if err := set.Override(map[string][]byte{tt.file: []byte(tt.text)}, "/my/templates"); err != nil {
				t.Fatal(err)
			}
			err := dialectic.Validate(set)
			var te *dialectic.TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *prompt.TemplateError", err)
			}
			msg := err.Error()
			for _, want := range append(tt.want, "/my/templates/"+tt.file, ".Motion", ".Definitions (each .Term .Meaning)", ".Errors") {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "prompt.") {
				t.Errorf("message names a Go type:\n%s", msg)
			}
		})
	}
}
