package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nameTestAllowed is the one comparison of a protocol's name outside
// statemachine/: whether a protocol is --protocol's default value, which
// decides what moot's suggested command lines leave out, never what a
// protocol can do.
const nameTestAllowed = "func isDefault(p sm.Protocol) bool { return p.Name() == sm.Default }"

// TestNoCommandTestsAProtocolsName fails when a Go file outside
// statemachine/ (and bench/, see exempt) compares something with the name
// of a protocol moot registers, or with sm.Default but in isDefault: the
// commands, the driver and the reports learn what a protocol can do from
// the step model's optional interfaces, so that a new protocol that
// implements one is treated as the others are. Test files are exempt, as
// they name the protocols they run.
func TestNoCommandTestsAProtocolsName(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH, and the test asks it where the module is")
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	var names []string
	for _, p := range protocols {
		names = append(names, regexp.QuoteMeta(p.Name()))
	}
	if len(names) < 5 {
		t.Fatalf("cmd/moot registers %d protocols: the test reads too few names", len(names))
	}
	name := `(?:"(?:` + strings.Join(names, "|") + `)"|sm\.Default\b|statemachine\.Default\b)`
	compared := regexp.MustCompile(`(?:==|!=)\s*` + name + `|` + name + `\s*(?:==|!=)|\bcase\s+` + name + `|EqualFold\([^)]*` + name)
	read := 0
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if e.IsDir() {
			if path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" || rel == "statemachine" || rel == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		read++
		for i, line := range bytes.Split(data, []byte("\n")) {
			text := strings.TrimSpace(string(line))
			if strings.HasPrefix(text, "//") || text == nameTestAllowed {
				continue
			}
			if m := compared.FindString(text); m != "" {
				t.Errorf("%s:%d tests a protocol's name (%s): say what the protocol can do with an optional interface of the step model (statemachine/)", rel, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if read < 100 {
		t.Fatalf("only %d Go files were read under %s: the test reads too little to prove anything", read, root)
	}
}
