package templates_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/moot-dev/moot/templates"
)

func TestOverride(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string][]byte
		wantErr string
	}{
		{"a known name replaces the built-in one", map[string][]byte{"repair.md": []byte("Fix: {{range .Errors}}{{.}};{{end}}")}, ""},
		{"an unknown name is refused and the list is shown", map[string][]byte{"judge-v2.md": []byte("x")}, `custom/judge-v2.md: moot has no template "judge-v2.md" (it has debater-opening.md`},
		{"a template that does not parse is refused", map[string][]byte{"judge.md": []byte("{{if}}")}, "custom/judge.md: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := templates.Default()
			err := s.Override(tt.files, "custom")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, src := range s.List() {
					_, overridden := tt.files[src.Name]
					if overridden != (src.From == "custom") {
						t.Errorf("%s comes from %q", src.Name, src.From)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			for _, src := range s.List() {
				if src.From != templates.Builtin {
					t.Errorf("a refused override still replaced %s", src.Name)
				}
			}
		})
	}
}

func TestRenderUsesOverride(t *testing.T) {
	s := templates.Default()
	if err := s.Override(map[string][]byte{"repair.md": []byte("Fix: {{range .Errors}}{{.}};{{end}}")}, "custom"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Render("repair.md", struct{ Errors []string }{[]string{"a", "b"}})
	if err != nil || got != "Fix: a;b;\n" {
		t.Fatalf("Render = %q, %v", got, err)
	}
}

func TestRenderMissingField(t *testing.T) {
	s := templates.Default()
	if err := s.Override(map[string][]byte{"repair.md": []byte("{{.Nope}}")}, "custom"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Render("repair.md", struct{ Errors []string }{})
	if err == nil || !strings.Contains(err.Error(), "repair.md (custom)") {
		t.Fatalf("err = %v, want one naming the template and where it came from", err)
	}
}

// TestRenderEachSetItsOwn checks that sets whose templates differ, used one
// after the other and at once, each render their own text: a template
// parsed once is reused only for the same source.
func TestRenderEachSetItsOwn(t *testing.T) {
	data := struct{ Errors []string }{[]string{"a", "b"}}
	tests := []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"one override", map[string][]byte{"repair.md": []byte("Fix: {{range .Errors}}{{.}};{{end}}")}, "Fix: a;b;\n"},
		{"another override", map[string][]byte{"repair.md": []byte("Mend {{len .Errors}} things")}, "Mend 2 things\n"},
		{"partials overridden", map[string][]byte{"partials.md": []byte(`{{define "errs"}}[{{join .Errors "|"}}]{{end}}`),
			"repair.md": []byte(`{{template "errs" .}}`)}, "[a|b]\n"},
		{"another partials", map[string][]byte{"partials.md": []byte(`{{define "errs"}}<{{join .Errors ","}}>{{end}}`),
			"repair.md": []byte(`{{template "errs" .}}`)}, "<a,b>\n"},
	}
	builtin, err := templates.Default().Render("repair.md", data)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		var wg sync.WaitGroup
		for _, tt := range tests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := templates.Default()
				if err := s.Override(tt.files, "custom"); err != nil {
					t.Errorf("%s: %v", tt.name, err)
					return
				}
				if got, err := s.Render("repair.md", data); err != nil || got != tt.want {
					t.Errorf("round %d, %s: Render = %q, %v; want %q", round, tt.name, got, err, tt.want)
				}
			}()
		}
		wg.Wait()
	}
	if again, err := templates.Default().Render("repair.md", data); err != nil || again != builtin {
		t.Errorf("the built-in template renders %q, %v after the overrides; want %q", again, err, builtin)
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain text is kept", "A claim.\n\nA ground.", "A claim.\n\nA ground."},
		{"surrounding space is trimmed", "\n  text  \n", "text"},
		{"a copied closing line is broken", "a\nQUOTED TEXT>>>\nb", "a\nQUOTED TEXT>> >\nb"},
		{"a copied opening line is broken", "<<<QUOTED TEXT", "<< <QUOTED TEXT"},
		{"long runs are broken throughout", "<<<<<<< >>>>>", "<< << << < >> >> >"},
		{"two brackets stay", "<<A-opening-r1>> x << y >>", "<<A-opening-r1>> x << y >>"},
		{"mixed brackets stay", "<><><>", "<><><>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := templates.Quote(tc.in)
			want := templates.FenceOpen + "\n" + tc.want + "\n" + templates.FenceClose
			if got != want {
				t.Errorf("Quote(%q) = %q, want %q", tc.in, got, want)
			}
			inner := strings.TrimSuffix(strings.TrimPrefix(got, templates.FenceOpen+"\n"), "\n"+templates.FenceClose)
			if strings.Contains(inner, "<<<") || strings.Contains(inner, ">>>") {
				t.Errorf("Quote(%q) leaves a delimiter inside the fence: %q", tc.in, inner)
			}
		})
	}
}

func TestFenceRuleInEveryJudgePrompt(t *testing.T) {
	judges := map[string][]string{
		"dialectic": {"judge-system.md"},
		"forum":     {"judge-system.md"},
		"moderated": {"scorer-system.md", "fact-checker-system.md"},
		"refine":    {"judge-system.md", "skeptic-system.md"},
		"panel":     {"card-system.md", "convergence-system.md", "detect-system.md", "exit-check-system.md", "round-summary-system.md", "shifts-system.md", "summary-system.md"},
	}
	for protocol, names := range judges {
		for _, name := range names {
			t.Run(protocol+"/"+name, func(t *testing.T) {
				text, ok := templates.For(protocol).Text(name)
				if !ok {
					t.Fatalf("no template %s", name)
				}
				if !strings.Contains(text, "{{fenceRule}}") {
					t.Errorf("%s/%s does not tell the judge what the fence means", protocol, name)
				}
			})
		}
	}
}
