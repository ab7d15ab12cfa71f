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

// protocolImportsLeft lists the imports of protocol packages that packages
// outside statemachine/ and cmd/moot still make, as "importer -> protocol
// package", the importer's test files marked " [test]", and the
// dependencies of one protocol on another, as "protocol => protocol". Each is a tie the
// move of issue 28 (every protocol a guest of the house, dialectic
// included) has yet to cut. The list may only shrink: a new import fails
// TestOnlyTheHouseImportsProtocols, and so does one listed here that is
// gone, so that the line is deleted with it.
var protocolImportsLeft = []string{
	"bench/cachemarks [test] -> statemachine/dialectic",
	"bench/gendebate -> statemachine/dialectic",
	"bench/gendebate -> statemachine/dialectic/dialectictest",
	"bench/judgectx -> statemachine/dialectic",
	"bench/judgectx [test] -> statemachine/dialectic",
	"bench/pipeline [test] -> statemachine/dialectic",
	"bench/pipeline [test] -> statemachine/dialectic/dialectictest/sparring",
	"bench/pipeline [test] -> statemachine/forum",
	"bench/pipeline [test] -> statemachine/moderated",
	"bench/pipeline [test] -> statemachine/moderated/moderatedtest",
	"bench/prefix [test] -> statemachine/dialectic",
	"bench/prefix [test] -> statemachine/dialectic/dialectictest/sparring",
	"bench/prefix [test] -> statemachine/forum",
	"bench/prefix [test] -> statemachine/moderated",
	"bench/prefix [test] -> statemachine/moderated/moderatedtest",
	"bench/prefix [test] -> statemachine/panel",
	"bench/prefix [test] -> statemachine/panel/paneltest",
	"bench/prefix [test] -> statemachine/refine",
	"bench/prefix [test] -> statemachine/refine/refinetest",
	"bench/servecache -> statemachine/dialectic",
	"bench/servecache -> statemachine/dialectic/dialectictest",
	"bench/tourney -> statemachine/dialectic/dialectictest/tourneyfake",
	"internal/builtin [test] -> statemachine/dialectic",
	"internal/builtin [test] -> statemachine/forum",
	"internal/builtin [test] -> statemachine/moderated",
	"internal/builtin [test] -> statemachine/panel",
	"internal/builtin [test] -> statemachine/refine",
	"internal/cli -> statemachine/dialectic",
	"internal/cli [test] -> statemachine/dialectic",
	"internal/cli [test] -> statemachine/dialectic/dialectictest",
	"internal/cli [test] -> statemachine/dialectic/dialectictest/judgefake",
	"internal/cli [test] -> statemachine/dialectic/dialectictest/sparring",
	"internal/cli [test] -> statemachine/dialectic/dialectictest/tourneyfake",
	"internal/cli [test] -> statemachine/forum",
	"internal/cli [test] -> statemachine/moderated",
	"internal/cli [test] -> statemachine/moderated/moderatedtest",
	"internal/cli [test] -> statemachine/panel",
	"internal/cli [test] -> statemachine/panel/paneltest",
	"internal/cli [test] -> statemachine/refine",
	"internal/cli [test] -> statemachine/refine/refinetest",
	"internal/driver [test] -> statemachine/dialectic",
	"internal/driver [test] -> statemachine/dialectic/dialectictest",
	"internal/driver [test] -> statemachine/dialectic/dialectictest/judgefake",
	"internal/driver [test] -> statemachine/dialectic/dialectictest/researchdebate",
	"internal/driver [test] -> statemachine/dialectic/dialectictest/sparring",
	"internal/human [test] -> statemachine/dialectic",
	"internal/judging [test] -> statemachine/dialectic",
	"internal/testkit/crashtest [test] -> statemachine/dialectic",
	"internal/testkit/crashtest [test] -> statemachine/dialectic/dialectictest",
	"internal/testkit/crashtest [test] -> statemachine/dialectic/dialectictest/researchdebate",
	"internal/testkit/crashtest [test] -> statemachine/dialectic/dialectictest/sparring",
	"internal/testkit/messy [test] -> statemachine/dialectic",
	"internal/testkit/messy [test] -> statemachine/forum",
	"internal/testkit/messy [test] -> statemachine/moderated",
	"internal/testkit/messy [test] -> statemachine/panel",
	"internal/testkit/messy [test] -> statemachine/refine",
	"internal/testkit/schemafake [test] -> statemachine/dialectic",
	"internal/testkit/schemafake [test] -> statemachine/forum",
	"internal/testkit/schemafake [test] -> statemachine/moderated",
	"internal/testkit/schemafake [test] -> statemachine/panel",
	"internal/testkit/schemafake [test] -> statemachine/refine",
	"internal/tournament [test] -> statemachine/dialectic/dialectictest/tourneyfake",
}

// TestOnlyTheHouseImportsProtocols fails when a package outside
// statemachine/ and cmd/moot imports a protocol package (a package under
// statemachine/ but the step model itself): the driver, the commands and
// the reports reach every protocol through the step model's interfaces,
// and a protocol is added by its package, its templates and one line in
// cmd/moot. Test files count too. Nor may a protocol depend on another,
// even through a package outside statemachine/.
func TestOnlyTheHouseImportsProtocols(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH, and the test asks it for every package's imports")
	}
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	found, err := protocolImports(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("go list found no import of a protocol package at all, not even cmd/moot's: the test reads nothing")
	}
	for _, f := range found {
		if !slices.Contains(protocolImportsLeft, f) {
			t.Errorf("%s: only statemachine/ and cmd/moot may import a protocol package; reach it through the step model's interfaces (statemachine/statemachine.go)", f)
		}
	}
	for _, l := range protocolImportsLeft {
		if !slices.Contains(found, l) {
			t.Errorf("%s: the import is gone; delete its line from protocolImportsLeft", l)
		}
	}
}

// protocolImports reads the packages `go list -json` printed and returns
// the imports of protocol packages by packages outside statemachine/ and
// cmd/moot, as protocolImportsLeft spells them, sorted.
func protocolImports(list []byte) ([]string, error) {
	var found []string
	dec := json.NewDecoder(bytes.NewReader(list))
	for {
		var p struct {
			ImportPath                               string
			Imports, Deps, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
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
		if importer == "cmd/moot" || importer == "statemachine" || strings.HasPrefix(importer, "statemachine/") {
			continue
		}
		add := func(imports []string, tag string) {
			for _, imp := range imports {
				if isProtocol(imp) {
					found = append(found, importer+tag+" -> "+strings.TrimPrefix(imp, module+"/"))
				}
			}
		}
		add(p.Imports, "")
		add(append(slices.Clone(p.TestImports), p.XTestImports...), " [test]")
	}
	sort.Strings(found)
	return slices.Compact(found), nil
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

func TestProtocolImports(t *testing.T) {
	list := `{"ImportPath": "github.com/moot-dev/moot/cmd/moot", "Imports": ["github.com/moot-dev/moot/statemachine/forum"]}
{"ImportPath": "github.com/moot-dev/moot/statemachine/forum", "Imports": ["github.com/moot-dev/moot/statemachine"], "TestImports": ["github.com/moot-dev/moot/statemachine/dialectic"]}
{"ImportPath": "github.com/moot-dev/moot/internal/cli", "Imports": ["github.com/moot-dev/moot/statemachine", "github.com/moot-dev/moot/statemachine/dialectic"], "XTestImports": ["github.com/moot-dev/moot/statemachine/panel/paneltest", "github.com/moot-dev/moot/statemachine/dialectic"], "TestImports": ["github.com/moot-dev/moot/statemachine/dialectic"]}
{"ImportPath": "github.com/moot-dev/moot/internal/page", "Imports": ["html/template"]}
{"ImportPath": "github.com/moot-dev/moot/statemachine/refine", "Deps": ["github.com/moot-dev/moot/internal/report", "github.com/moot-dev/moot/statemachine", "github.com/moot-dev/moot/statemachine/dialectic", "github.com/moot-dev/moot/statemachine/refine/refinetest"]}
`
	got, err := protocolImports([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"internal/cli -> statemachine/dialectic",
		"internal/cli [test] -> statemachine/dialectic",
		"internal/cli [test] -> statemachine/panel/paneltest",
		"statemachine/refine => statemachine/dialectic",
	}
	if !slices.Equal(got, want) {
		t.Errorf("protocolImports = %q, want %q", got, want)
	}
}
