package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/storetest"

	"github.com/moot-dev/moot/internal/testkit/fixture"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// reportFixture copies the hostile debate of dialectic's report tests into
// a temporary debates root and returns the root and the debate's directory.
func reportFixture(t *testing.T) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "hostile")
	if err := fixture.CopyTree(filepath.Join("..", "..", "statemachine", "dialectic", "testdata", "hostile"), dir); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

type result struct {
	code           int
	stdout, stderr string
}

func moot(t *testing.T, args ...string) result {
	t.Helper()
	return mootWith(t, nil, args...)
}

// mootWith is moot with w, when not nil, as the model that writes report
// --narrative analyses, named "judge-test".
func mootWith(t *testing.T, w NarrativeWriter, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	io := IO{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Now:    func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) },
		Getenv: func(string) string { return "" }, Protocols: withDialectic(),
	}
	if w != nil {
		io.Narrator = func(func(string) string, string) (NarrativeWriter, string, error) {
			return w, "judge-test", nil
		}
	}
	code := Run(context.Background(), append([]string{"moot"}, args...), io)
	return result{code, out.String(), errb.String()}
}

// fileSnapshot reads the files under dir, as fixture.Tree does, without
// folders and without the lock file, which a writing command takes even
// when it then refuses.
func fileSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Without(tree, func(p string) bool { return fixture.Folder(p) || fixture.LockFile(p) })
}

func TestReportCommand(t *testing.T) {
	root, dir := reportFixture(t)
	res := moot(t, "--dir", root, "report", "hostile")
	if res.code != ExitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(readme, []byte("# This house would ban cars")) {
		t.Errorf("README.md starts %q", readme[:min(60, len(readme))])
	}
	graph, err := os.ReadFile(filepath.Join(dir, "argument-graph.mmd"))
	if err != nil || !bytes.Contains(readme, graph) {
		t.Errorf("argument-graph.mmd is not the graph in README.md (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("report.html written without --html")
	}

	t.Run("again gives the same bytes", func(t *testing.T) {
		before := fileSnapshot(t, dir)
		if res := moot(t, "--dir", root, "report", dir); res.code != ExitOK {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		after := fileSnapshot(t, dir)
		for name, data := range before {
			if after[name] != data {
				t.Errorf("%s changed on a second run", name)
			}
		}
		if len(after) != len(before) {
			t.Errorf("files before %d, after %d", len(before), len(after))
		}
	})

	t.Run("--stdout writes nothing", func(t *testing.T) {
		before := fileSnapshot(t, dir)
		res := moot(t, "--dir", root, "report", "hostile", "--stdout")
		if res.code != ExitOK || res.stdout != string(readme) {
			t.Errorf("exit %d; stdout is not README.md", res.code)
		}
		res = moot(t, "--dir", root, "report", "hostile", "--stdout", "--html")
		if res.code != ExitOK || !strings.HasPrefix(res.stdout, "<!DOCTYPE html>") {
			t.Errorf("--stdout --html: exit %d, output starts %q", res.code, res.stdout[:min(40, len(res.stdout))])
		}
		after := fileSnapshot(t, dir)
		if len(after) != len(before) {
			t.Errorf("--stdout wrote files")
		}
	})

	t.Run("--html", func(t *testing.T) {
		res := moot(t, "--dir", root, "report", "hostile", "--html")
		if res.code != ExitOK {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		page, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil || !bytes.Contains(page, []byte("<svg")) || bytes.Contains(page, []byte("<script")) {
			t.Errorf("report.html: %v, %d bytes", err, len(page))
		}
	})
}

// TestReportStdoutReadsOnly checks that a report to stdout is a reader: it
// takes no lock, so it creates neither .moot/ nor .moot/lock, leaves the
// tree byte for byte as it was, and prints at once while another process
// writes the debate.
func TestReportStdoutReadsOnly(t *testing.T) {
	root, dir := reportFixture(t)
	if _, err := os.Stat(filepath.Join(dir, ".moot")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the fixture already has .moot/")
	}
	before, err := fixture.Tree(root)
	if err != nil {
		t.Fatal(err)
	}
	res := moot(t, "--dir", root, "report", "hostile", "--stdout")
	if res.code != ExitOK || !strings.HasPrefix(res.stdout, "# This house would ban cars") {
		t.Fatalf("exit %d, stdout starts %q: %s", res.code, res.stdout[:min(40, len(res.stdout))], res.stderr)
	}
	after, err := fixture.Tree(root)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		for name := range after {
			if _, ok := before[name]; !ok {
				t.Errorf("report --stdout created %s", name)
			}
		}
		t.Errorf("report --stdout changed the tree")
	}

	// Another process holds the write lock (a second open file description
	// conflicts with it just like another process).
	d, err := storetest.OpenForWrite(dir, "moot run hostile")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan result, 1)
	go func() { done <- moot(t, "--dir", root, "report", "hostile", "--stdout") }()
	select {
	case res := <-done:
		if res.code != ExitOK || !strings.HasPrefix(res.stdout, "# This house would ban cars") {
			t.Errorf("with the lock held: exit %d: %s", res.code, res.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("report --stdout waited for the writer (a minute)")
	}
}

func TestReportErrors(t *testing.T) {
	root, dir := reportFixture(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no debate", []string{"report"}, ExitUsage, "report takes one debate"},
		{"unknown debate", []string{"report", "nope"}, ExitError, `no debate "nope"`},
		{"narrative without a model", []string{"report", "hostile", "--narrative"}, ExitUsage, "--narrative needs a model: set OPENAI_API_KEY or OPENAI_BASE_URL"},
		{"export format", []string{"export", "hostile", "--format", "xml"}, ExitUsage, `--format "xml" is not json, csv or judges`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fileSnapshot(t, dir)
			res := moot(t, append([]string{"--dir", root}, tc.args...)...)
			if res.code != tc.code || !strings.Contains(res.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", res.code, res.stderr, tc.code, tc.msg)
			}
			if after := fileSnapshot(t, dir); len(after) != len(before) {
				t.Error("files were written")
			}
		})
	}
	t.Run("narrative of an unjudged debate", func(t *testing.T) {
		nw := &fakeWriter{}
		if res := moot(t, "--dir", root, "new", "fresh", "--motion", "This house would test."); res.code != ExitOK {
			t.Fatalf("new: %s", res.stderr)
		}
		res := mootWith(t, nw, "--dir", root, "report", "fresh", "--narrative")
		if res.code != ExitUsage || !strings.Contains(res.stderr, "no exchange has been judged yet") {
			t.Errorf("exit %d, stderr %q", res.code, res.stderr)
		}
		res = moot(t, "--dir", root, "report", "fresh", "--stdout")
		if res.code != ExitOK || !strings.Contains(res.stdout, "**No exchange has been judged yet.**") {
			t.Errorf("a fresh debate's report: exit %d, stderr %q", res.code, res.stderr)
		}
	})
	t.Run("broken narrative.md", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "narrative.md"), []byte("not a narrative\n"), 0o644)
		defer os.Remove(filepath.Join(dir, "narrative.md"))
		res := moot(t, "--dir", root, "report", "hostile")
		if res.code != ExitError || !strings.Contains(res.stderr, "narrative.md") {
			t.Errorf("exit %d, stderr %q; want an error naming narrative.md", res.code, res.stderr)
		}
		// --narrative, which the hint suggests, replaces it.
		if res := mootWith(t, &fakeWriter{}, "--dir", root, "report", "hostile", "--narrative"); res.code != ExitOK {
			t.Errorf("--narrative over a broken narrative.md: exit %d, %s", res.code, res.stderr)
		}
	})
}

// fakeWriter answers the narrative prompt with fixed prose, and counts calls.
type fakeWriter struct {
	calls  int
	prompt string
	fail   error
}

func (f *fakeWriter) Narrative(_ context.Context, prompt string) (string, error) {
	f.calls++
	f.prompt = prompt
	if f.fail != nil {
		return "", f.fail
	}
	para := strings.Repeat("The proposition pressed its health case while the opposition argued about costs. ", 14)
	return para + "\n\n" + strings.Repeat("In the end the exemptions answer carried the day for the proposition side. ", 26), nil
}

func TestReportNarrative(t *testing.T) {
	root, dir := reportFixture(t)
	w := &fakeWriter{}
	res := mootWith(t, w, "--dir", root, "report", "hostile", "--narrative")
	if res.code != ExitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if w.calls != 1 || !strings.Contains(w.prompt, "prop_001") || !strings.Contains(w.prompt, "500 to 600 words") {
		t.Errorf("the model was called %d times with a prompt lacking the record or the length", w.calls)
	}
	stored, err := os.ReadFile(filepath.Join(dir, "narrative.md"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := dialectic.ParseNarrative(stored)
	if err != nil || n.Model != "judge-test" || n.Judged != 4 || !strings.Contains(string(stored), `"written_by": "model"`) {
		t.Fatalf("narrative.md: %v %+v\n%s", err, n, stored)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !bytes.Contains(readme, []byte("## Analysis\n\n*Written by a language model (judge-test)")) || !bytes.Contains(readme, []byte("exemptions answer carried the day")) {
		t.Error("README.md lacks the model-written analysis")
	}

	// A later plain report keeps it without asking the model again.
	w.fail = errors.New("must not be called")
	if res := mootWith(t, w, "--dir", root, "report", "hostile"); res.code != ExitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if w.calls != 1 || !bytes.Equal(again, readme) {
		t.Errorf("a plain report called the model (%d calls) or dropped the narrative", w.calls)
	}

	// A failing model leaves every file as it was.
	before := fileSnapshot(t, dir)
	res = mootWith(t, w, "--dir", root, "report", "hostile", "--narrative")
	if res.code != ExitModel || !strings.Contains(res.stderr, "must not be called") {
		t.Errorf("exit %d, stderr %q; want exit %d", res.code, res.stderr, ExitModel)
	}
	after := fileSnapshot(t, dir)
	for name, data := range before {
		if after[name] != data {
			t.Errorf("%s changed after a failed --narrative", name)
		}
	}
}

func TestExportCommand(t *testing.T) {
	root, dir := reportFixture(t)
	res := moot(t, "--dir", root, "export", "hostile")
	var rows []map[string]any
	if res.code != ExitOK || json.Unmarshal([]byte(res.stdout), &rows) != nil || len(rows) != 14 {
		t.Fatalf("json: exit %d, %d rows, stderr %s", res.code, len(rows), res.stderr)
	}
	res = moot(t, "--dir", root, "export", "hostile", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(res.stdout)).ReadAll()
	if res.code != ExitOK || err != nil || len(recs) != 15 {
		t.Fatalf("csv: exit %d, %d records, %v", res.code, len(recs), err)
	}
	out := filepath.Join(t.TempDir(), "rows.csv")
	res = moot(t, "--dir", root, "export", "hostile", "--format", "csv", "-o", out)
	data, err := os.ReadFile(out)
	if res.code != ExitOK || err != nil || res.stdout != "" {
		t.Fatalf("-o: exit %d, %v, stdout %q", res.code, err, res.stdout)
	}
	if string(data) != moot(t, "--dir", root, "export", "hostile", "--format", "csv").stdout {
		t.Error("-o wrote something else than stdout gets")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Error("export wrote into the debate")
	}
}

// TestReportNarrativeFails checks that a failed --narrative still writes
// the report, and says that it lacks the narrative.
func TestReportNarrativeFails(t *testing.T) {
	root, dir := reportFixture(t)
	var nw NarrativeWriter = &fakeWriter{fail: errors.New("the endpoint is down")}
	res := mootWith(t, nw, "--dir", root, "report", "hostile", "--narrative")
	if res.code != ExitModel || !strings.Contains(res.stderr, "the endpoint is down") ||
		!strings.Contains(res.stderr, "the report was written without a narrative") {
		t.Errorf("exit %d, stderr %q; want exit %d saying the report was written without a narrative", res.code, res.stderr, ExitModel)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || !bytes.HasPrefix(readme, []byte("# This house would ban cars")) || bytes.Contains(readme, []byte("## Analysis")) {
		t.Errorf("README.md: %v; want the report without an analysis", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "narrative.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("narrative.md written by a failed --narrative: %v", err)
	}

	res = mootWith(t, nw, "--dir", root, "report", "hostile", "--narrative", "--stdout")
	if res.code != ExitModel || !bytes.Equal([]byte(res.stdout), readme) {
		t.Errorf("--stdout: exit %d, stdout %d bytes; want exit %d and the report", res.code, len(res.stdout), ExitModel)
	}

	// With a narrative from an earlier run, the report keeps it and says so.
	nw = &fakeWriter{}
	if res := mootWith(t, nw, "--dir", root, "report", "hostile", "--narrative"); res.code != ExitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	stored, _ := os.ReadFile(filepath.Join(dir, "narrative.md"))
	nw = &fakeWriter{fail: errors.New("the endpoint is down")}
	res = mootWith(t, nw, "--dir", root, "report", "hostile", "--narrative")
	again, _ := os.ReadFile(filepath.Join(dir, "narrative.md"))
	if res.code != ExitModel || !strings.Contains(res.stderr, "with the narrative written before") || !bytes.Equal(again, stored) {
		t.Errorf("exit %d, stderr %q; want exit %d, the earlier narrative kept", res.code, res.stderr, ExitModel)
	}
}
