package prices

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// modelFlag matches a model flag of an example command and its value.
var modelFlag = regexp.MustCompile(`--(?:[a-z-]+-)?(?:model|models|judges)[ =]([A-Za-z0-9_.:/,-]+)`)

// TestExampleModelsArePriced: every hosted model that the README, the
// docs or moot's help name in an example has a price, so that a user who
// copies the example sees a cost and can set a --budget. Models served
// locally (no provider in their id: llama3.1:8b, qwen3) cost nothing and
// are passed over, as are placeholders (M, FAST) and the built-in model.
func TestExampleModelsArePriced(t *testing.T) {
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "internal", "cli", "help.go"))
	hosted := regexp.MustCompile(`^(gpt-|o[0-9]|claude-|[a-z0-9-]+/)`)
	table := Builtin()
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modelFlag.FindAllStringSubmatch(string(data), -1) {
			for _, id := range strings.Split(m[1], ",") {
				if !hosted.MatchString(id) {
					continue
				}
				checked++
				if _, _, ok := table.Lookup(id); !ok {
					t.Errorf("%s: the example model %s has no price", filepath.Base(f), id)
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d example models were found: the pattern no longer reads the examples", checked)
	}
}
