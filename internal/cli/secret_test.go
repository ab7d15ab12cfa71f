package cli_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// TestKeyNeverLeaks runs moot with a distinctive API key against servers
// that succeed and fail in several ways, and checks that the key is in no
// output and no file.
func TestKeyNeverLeaks(t *testing.T) {
	const key = "sk-test-DO-NOT-LEAK-4242"
	good := sparring.Handler(sparring.Options{})
	servers := map[string]modeltest.Handler{
		"answers": good,
		"401": func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 401, ErrorMessage: "Incorrect API key provided: " + key}
		},
		"404": func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 404, ErrorMessage: "model not found"}
		},
		"500": func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 500, ErrorMessage: "server error for " + key}
		},
		"not JSON": func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Content: "I will not answer in JSON, " + key}
		},
	}
	for name, h := range servers {
		for _, asJSON := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				srv := modeltest.NewServer(t, h)
				dir := t.TempDir()
				env := map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": srv.URL}
				var out, errb bytes.Buffer
				io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
					Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
				if code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "new", "k", "--motion", "M."}, io); code != 0 {
					t.Fatalf("new: exit %d: %s", code, errb.String())
				}
				args := []string{"moot", "--dir", dir, "run", "k", "--retries", "0", "--repairs", "1"}
				if asJSON {
					args = append(args, "--json")
				}
				cli.Run(context.Background(), args, io)
				cli.Run(context.Background(), []string{"moot", "--dir", dir, "status", "k", "--json"}, io)
				if strings.Contains(out.String(), key) || strings.Contains(errb.String(), key) {
					t.Errorf("the key was printed:\nstdout: %s\nstderr: %s", out.String(), errb.String())
				}
				filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
					if err == nil && !e.IsDir() {
						// Even a model that writes the key in its own answer
						// (only the fake can) does not get it written.
						if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
							t.Errorf("the key was written to %s", p)
						}
					}
					return nil
				})
			})
		}
	}
}
