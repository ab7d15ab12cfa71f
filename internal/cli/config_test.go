package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var testRoles = []string{"judge", "debater", "proposition", "prop", "moderator"}

func TestParseConfig(t *testing.T) {
	path := filepath.Join("work", "moot.yaml")
	t.Run("every key", func(t *testing.T) {
		cfg, err := parseConfig(path, []byte(`
model: m
models: {judge: j, debater: d}
base_url: http://localhost:11434/v1
budget: 2.5
prices: p/prices.yaml
research: {search: brave, searches: 3, time: 90s}
api: Responses
`), testRoles)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.model != "m" || cfg.models["judge"] != "j" || cfg.models["debater"] != "d" || cfg.baseURL != "http://localhost:11434/v1" || cfg.budget != 2.5 {
			t.Errorf("cfg = %+v", cfg)
		}
		if cfg.api != "responses" {
			t.Errorf("api = %q, want responses", cfg.api)
		}
		if want := filepath.Join("work", "p", "prices.yaml"); cfg.prices != want {
			t.Errorf("prices = %q, want %q, beside moot.yaml", cfg.prices, want)
		}
		if !cfg.research || cfg.search != "brave" || cfg.limits["searches"] != "3" || cfg.limits["time"] != "1m30s" {
			t.Errorf("research = %v %q %v", cfg.research, cfg.search, cfg.limits)
		}
	})
	t.Run("empty", func(t *testing.T) {
		cfg, err := parseConfig(path, []byte("# nothing yet\n"), testRoles)
		if err != nil || cfg.model != "" || cfg.research {
			t.Errorf("cfg = %+v, %v; want an empty config", cfg, err)
		}
	})
	t.Run("research alone with a provider stays off", func(t *testing.T) {
		cfg, err := parseConfig(path, []byte("research: {search: brave}\n"), testRoles)
		if err != nil || cfg.research {
			t.Errorf("research = %v, %v; want off, as MOOT_SEARCH alone", cfg.research, err)
		}
		cfg, err = parseConfig(path, []byte("research: true\n"), testRoles)
		if err != nil || !cfg.research {
			t.Errorf("research = %v, %v; want on", cfg.research, err)
		}
	})
	bad := []struct {
		name, text, want string
	}{
		{"unknown key", "model: a\nmodle: b\n", `moot.yaml:2: unknown key "modle" (did you mean model?)`},
		{"key twice", "budget: 1\nbudget: 2\n", `moot.yaml:2: key "budget" is given twice (first on line 1)`},
		{"role twice", "models:\n  judge: a\n  judge: b\n", `moot.yaml:3: key "judge" is given twice (first on line 2)`},
		{"unknown role", "models: {juge: a}\n", `no protocol has a role or group "juge" (did you mean judge?)`},
		{"models not a map", "models: [a]\n", "models: want a mapping"},
		{"empty model", "model: ''\n", "model: want a value"},
		{"null model", "model:\n", "model: want a value"},
		{"list model", "model: [a]\n", "model: want a value"},
		{"bad url", "base_url: localhost:11434\n", "base_url: want an http or https URL"},
		{"zero budget", "budget: 0\n", "budget: want an amount"},
		{"word budget", "budget: lots\n", "budget: want an amount"},
		{"nan budget", "budget: .nan\n", "budget: want an amount"},
		{"research word", "research: maybe\n", "research: want true, false or a mapping"},
		{"research limit", "research: {pages: -1}\n", "research: pages: want a whole number above 0"},
		{"research time", "research: {time: soon}\n", "research: time: want a duration"},
		{"research key", "research: {serch: x}\n", `research: unknown key "serch" (did you mean search?)`},
		{"a key", "api_key: sk-x\n", "from OPENAI_API_KEY only"},
		{"unknown api", "api: completions\n", "moot.yaml:1: api: want chat (Chat Completions) or responses"},
		{"empty api", "api: ''\n", "api: want chat"},
		{"list api", "api: [chat]\n", "api: want chat"},
		{"not a mapping", "- a\n", "want a mapping of settings"},
		{"not yaml", "model: [\n", "moot.yaml"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(path, []byte(tt.text), testRoles)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != ExitUsage {
				t.Fatalf("err = %v, want a usage error (exit 2)", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %q, want it to name %s and say %q", err, path, tt.want)
			}
			if strings.Contains(err.Error(), "sk-x") {
				t.Errorf("err = %q shows the key", err)
			}
		})
	}
}

func TestConfigPaths(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"debates", []string{filepath.Join("debates", "moot.yaml"), "moot.yaml"}},
		{"/srv/d/", []string{"/srv/d/moot.yaml", "/srv/moot.yaml"}},
		{".", []string{"moot.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			if got := configPaths(tt.dir); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("configPaths(%q) = %q, want %q", tt.dir, got, tt.want)
			}
		})
	}
}

// FuzzParseConfig checks that any text either reads or is a usage error
// naming the file, and never panics.
func FuzzParseConfig(f *testing.F) {
	f.Add("model: a\nmodels: {judge: b}\nbudget: 1\nresearch: {searches: 2}\n")
	f.Add("models:\n  judge: a\n  judge: b\n")
	f.Fuzz(func(t *testing.T, text string) {
		_, err := parseConfig("moot.yaml", []byte(text), testRoles)
		var ee *exitError
		if err != nil && (!errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(err.Error(), "moot.yaml")) {
			t.Fatalf("parseConfig(%q) = %v, want nil or a usage error naming moot.yaml", text, err)
		}
	})
}

// TestConfigSaysWhereTheRootComesFrom: moot config names --dir as the
// root's source only when --dir was given, MOOT_DIR when it set the root,
// and else moot's default, with MOOT_DIR unset (as on a user's machine)
// as well as set empty (as in the scripts).
func TestConfigSaysWhereTheRootComesFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"MOOT_DIR unset", nil, nil, "debates  default"},
		{"MOOT_DIR empty", map[string]string{"MOOT_DIR": ""}, nil, "debates  default"},
		{"MOOT_DIR set", map[string]string{"MOOT_DIR": "elsewhere"}, nil, "elsewhere  MOOT_DIR"},
		{"--dir", nil, []string{"--dir", "other"}, "other  --dir"},
		{"--dir over MOOT_DIR", map[string]string{"MOOT_DIR": "elsewhere"}, []string{"--dir", "other"}, "other  --dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var out, errb strings.Builder
			getenv := func(k string) string { return tc.env[k] }
			io := IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: getenv}
			if _, ok := tc.env["MOOT_DIR"]; ok {
				t.Setenv("MOOT_DIR", tc.env["MOOT_DIR"])
			} else {
				t.Setenv("MOOT_DIR", "")
				os.Unsetenv("MOOT_DIR")
			}
			args := append(append([]string{"moot"}, tc.args...), "config")
			if code := Run(context.Background(), args, io); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var line string
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "dir ") {
					line = strings.Join(strings.Fields(l), "  ")
				}
			}
			if line != "dir  "+tc.want {
				t.Errorf("config's dir line is %q, want %q:\n%s", line, "dir  "+tc.want, out.String())
			}
		})
	}
}
