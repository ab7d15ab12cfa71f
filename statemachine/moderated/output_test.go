package moderated_test

import (
	"encoding/json"
	"strings"
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

// TestOutputFormats: a debate run to its end in each output format makes
// the same calls, writes its message, score and derived files with that
// extension, and reads them back: check passes, and show, the report and
// the export see every message and score.
func TestOutputFormats(t *testing.T) {
	_, mdFiles, mdReqs := runAll(t, map[string]string{"rounds": "1", "transcript": "true"}, moderatedtest.Options{Marks: []float64{8, 6, 7, 7, 9}})
	mdCSV := ""
	for _, f := range []string{"md", "json", "txt"} {
		t.Run(f, func(t *testing.T) {
			dir, fs, reqs := runAll(t, map[string]string{"rounds": "1", "transcript": "true", "output-format": f}, moderatedtest.Options{Marks: []float64{8, 6, 7, 7, 9}})
			if len(reqs) != len(mdReqs) {
				t.Errorf("%d requests, want %d as in Markdown", len(reqs), len(mdReqs))
			}
			if !strings.Contains(fs["debate.md"], `"output_format": "`+f+`"`) {
				t.Errorf("debate.md does not keep the output format:\n%s", fs["debate.md"])
			}
			msgs := messageFiles(fs)
			if len(msgs) != len(messageFiles(mdFiles)) {
				t.Errorf("%d message files, want %d", len(msgs), len(messageFiles(mdFiles)))
			}
			for i, name := range msgs {
				if want := strings.TrimSuffix(messageFiles(mdFiles)[i], ".md") + "." + f; name != want {
					t.Errorf("message file %q, want %q", name, want)
				}
			}
			for _, base := range []string{"index", "metadata", "summary", "transcript"} {
				data, ok := fs[base+"."+f]
				if !ok {
					t.Errorf("no %s.%s", base, f)
				}
				if f == "json" && !json.Valid([]byte(data)) {
					t.Errorf("%s.json is not JSON:\n%s", base, data)
				}
			}
			scores := 0
			for name, data := range fs {
				if strings.HasPrefix(name, "scores/") && !strings.HasSuffix(name, "/") {
					scores++
					if !strings.HasSuffix(name, "."+f) {
						t.Errorf("score file %s", name)
					}
					if f == "json" {
						var sc struct {
							Total float64 `json:"total"`
							Reply string  `json:"reply"`
						}
						if err := json.Unmarshal([]byte(data), &sc); err != nil || sc.Total != 7.3 || sc.Reply == "" {
							t.Errorf("%s: %+v, %v", name, sc, err)
						}
					}
				}
			}
			if scores != 4 {
				t.Errorf("%d score files, want 4", scores)
			}
			if f == "txt" {
				first := fs["messages/"+msgs[0]]
				head, body, ok := strings.Cut(first, "\n\n")
				if !ok || !strings.HasPrefix(head, "number: 1\nparticipant: ") || !strings.Contains(head, "\nrole: moderator\n") || strings.TrimSpace(body) == "" {
					t.Errorf("%s is not a header, a blank line and the content:\n%s", msgs[0], first)
				}
			}

			deb := loaded(t, dir)
			if findings := deb.Check(); !findings.OK() {
				t.Errorf("check: %v", findings.Problems)
			}
			if st := deb.Status(); !st.Complete {
				t.Errorf("status: %+v", st)
			}
			shown, ok := deb.(sm.Shower).Show("8")
			if !ok || !strings.Contains(shown, "score: 7.30") || !strings.Contains(shown, "<<A-argument-r1>>") {
				t.Errorf("show 8:\n%s", shown)
			}
			files, err := deb.(sm.Reporter).Report()
			if err != nil || len(files) != 1 || !strings.Contains(string(files[0].Data), "| **total** | **7.30** |") {
				t.Errorf("report: %v\n%s", err, files)
			}
			csv, err := deb.(sm.Exporter).Export("csv")
			if err != nil {
				t.Fatal(err)
			}
			if f == "md" {
				mdCSV = string(csv)
			} else if got := strings.ReplaceAll(string(csv), "."+f+",", ".md,"); got != mdCSV {
				t.Errorf("export differs from the Markdown debate's:\n%s\nwant\n%s", csv, mdCSV)
			}
		})
	}
}

// TestOutputFormatOtherFiles: in a JSON debate a message file in another
// format is not read as a message; check names it.
func TestOutputFormatOtherFiles(t *testing.T) {
	dir, fs, _ := runAll(t, map[string]string{"rounds": "1", "output-format": "json"}, moderatedtest.Options{})
	name := messageFiles(fs)[0]
	if err := writeTree(dir, map[string]string{"messages/" + strings.TrimSuffix(name, ".json") + ".md": "---\n{}\n---\nx\n"}); err != nil {
		t.Fatal(err)
	}
	findings := loaded(t, dir).Check()
	if findings.OK() || !strings.Contains(findings.Problems[0].Message, "want NNN_role_id8.json") {
		t.Errorf("check: %v", findings.Problems)
	}
}
