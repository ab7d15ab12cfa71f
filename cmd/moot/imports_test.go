package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is moot's module path.
const module = "github.com/moot-dev/moot"

// exempt are the directories whose packages may import a protocol
// package (a package under statemachine/ but the step model itself).
// Test files are exempt too, wherever they are: a test registers the
// protocols it runs (cli.Main(args, protocols...), crashtest.AsMoot), as
// cmd/moot does, and drives them with their fakes, which live with them
// (statemachine/dialectic/dialectictest, statemachine/moderated/moderatedtest, ...).
var exempt = []string{
	// cmd/moot registers every protocol: adding one to moot is one line
	// there.
	"cmd/moot",
	// The step model and the protocols, their fakes and scripted answers
	// among them.
	"statemachine",
	// The measurement programs, set aside from the layout: each measures
	// a named protocol (gendebate and servecache drive dialectic's steps
	// in memory, judgectx's fake answers dialectic's judge, tourney plays
	// dialectic's tournaments).
	"bench",
}

// TestOnlyTheHouseImportsProtocols fails when a package outside
// statemachine/ and cmd/moot (and bench/, see exempt) imports a protocol
// package: the driver, the commands and the reports reach every protocol
// through the step model's interfaces, and a protocol is added by its
// package, its templates and one line in cmd/moot. Nor may a protocol
// depend on another, even through a package outside statemachine/.
func TestOnlyTheHouseImportsProtocols(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH, and the test asks it for every package's imports")
	}
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	found, registered, err := protocolImports(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(registered) == 0 {
		t.Fatal("go list shows cmd/moot importing no protocol package: the test reads nothing")
	}
	for _, f := range found {
		switch {
		case strings.Contains(f, " => "):
			t.Errorf("%s: a protocol depends on no other; move what they share into the step model (statemachine/) or a neutral package", f)
		default:
			t.Errorf("%s: only statemachine/ and cmd/moot may import a protocol package; reach it through the step model's interfaces (statemachine/statemachine.go)", f)
		}
	}
}

// protocolImports reads the packages `go list -json` printed and returns
// the imports of protocol packages by non-test packages outside the
// exempt directories, as "importer -> protocol package", and the
// dependencies of protocols on each other, as "protocol => protocol",
// sorted; and the protocol packages that
// cmd/moot registers, which show that the list was read.
func protocolImports(list []byte) (found, registered []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(list))
	for {
		var p struct {
			ImportPath    string
			Imports, Deps []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, err
		}
		importer := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if own, ok := protocolOf(importer); ok {
			// A protocol depends on no other, not even through a
			// package outside statemachine/.
			for _, dep := range p.Deps {
				if other, ok := protocolOf(strings.TrimPrefix(dep, module+"/")); ok && other != own {
					found = append(found, importer+" => "+other)
				}
			}
			continue
		}
		for _, imp := range p.Imports {
			if !isProtocol(imp) {
				continue
			}
			imp = strings.TrimPrefix(imp, module+"/")
			switch {
			case importer == "cmd/moot":
				registered = append(registered, imp)
			case !isExempt(importer):
				found = append(found, importer+" -> "+imp)
			}
		}
	}
	sort.Strings(found)
	return slices.Compact(found), registered, nil
}

// isExempt reports whether the package at the module-relative path rel
// lies in an exempt directory.
func isExempt(rel string) bool {
	for _, dir := range exempt {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			return true
		}
	}
	return false
}

// protocolOf returns the protocol whose package, or a package under it,
// the module-relative path rel names: "statemachine/panel" for
// "statemachine/panel/paneltest".
func protocolOf(rel string) (string, bool) {
	rest, ok := strings.CutPrefix(rel, "statemachine/")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return "statemachine/" + name, true
}

// isProtocol reports whether the import path names a protocol package: a
// package under statemachine/, which is the step model's own.
func isProtocol(path string) bool {
	return strings.HasPrefix(path, module+"/statemachine/")
}

// TestProtocolImports reads a go list of a few packages: a non-test
// import of a protocol outside the house is found, and so is a protocol's
// dependency on another; test files' imports, cmd/moot's, bench/'s and
// those of packages under statemachine/ are not.
func TestProtocolImports(t *testing.T) {
	list := `{"ImportPath": "github.com/moot-dev/moot/cmd/moot", "Imports": ["github.com/moot-dev/moot/statemachine/forum"]}
{"ImportPath": "github.com/moot-dev/moot/statemachine/forum", "Imports": ["github.com/moot-dev/moot/statemachine"], "TestImports": ["github.com/moot-dev/moot/statemachine/dialectic"]}
{"ImportPath": "github.com/moot-dev/moot/internal/cli", "Imports": ["github.com/moot-dev/moot/statemachine", "github.com/moot-dev/moot/statemachine/dialectic"], "XTestImports": ["github.com/moot-dev/moot/statemachine/panel/paneltest", "github.com/moot-dev/moot/statemachine/dialectic"], "TestImports": ["github.com/moot-dev/moot/statemachine/dialectic"]}
{"ImportPath": "github.com/moot-dev/moot/internal/testkit/helper", "Imports": ["github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"]}
{"ImportPath": "github.com/moot-dev/moot/internal/page", "Imports": ["html/template"]}
{"ImportPath": "github.com/moot-dev/moot/bench/gendebate", "Imports": ["github.com/moot-dev/moot/statemachine/dialectic"]}
{"ImportPath": "github.com/moot-dev/moot/benchmarks", "Imports": ["github.com/moot-dev/moot/statemachine/panel"]}
{"ImportPath": "github.com/moot-dev/moot/statemachine/refine", "Deps": ["github.com/moot-dev/moot/internal/report", "github.com/moot-dev/moot/statemachine", "github.com/moot-dev/moot/statemachine/dialectic", "github.com/moot-dev/moot/statemachine/refine/refinetest"]}
`
	found, registered, err := protocolImports([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"benchmarks -> statemachine/panel",
		"internal/cli -> statemachine/dialectic",
		"internal/testkit/helper -> statemachine/dialectic/dialectictest/sparring",
		"statemachine/refine => statemachine/dialectic",
	}
	if !slices.Equal(found, want) {
		t.Errorf("protocolImports = %q, want %q", found, want)
	}
	if want := []string{"statemachine/forum"}; !slices.Equal(registered, want) {
		t.Errorf("registered = %q, want %q", registered, want)
	}
}
