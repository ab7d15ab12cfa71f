package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// A --retry-missing pass asks again for the gaps a debate records, one
// step each. A gap asked again may be refused again and stay a gap (with
// --keep-going), so the debate's files alone cannot say which gaps the
// pass has asked: the pass keeps that in a private file, so that a run
// stopped part way (killed, or stopped by a model) and run again asks
// only the gaps it has not asked yet, and, once every gap is asked, none
// (the command goes on with the rest of its work). The command removes
// the file when it ends well (EndRetry).

// retryRecord is what the private file of a --retry-missing pass holds.
type retryRecord struct {
	// Asked lists the gaps asked again whose steps are committed, in
	// order.
	Asked []string `json:"asked"`
	// Done says every gap was asked again.
	Done bool `json:"done"`
}

// retryName is the private file of the --retry-missing pass over the
// debate's own gaps (judge ""), or over those of the re-judging by the
// judge called judge.
func retryName(judge string) string {
	if judge == "" {
		return "retry-missing.json"
	}
	return "retry-missing-" + judge + ".json"
}

// readRetry reads the record of the pass; none is an empty one. A record
// that does not read is an error naming its file.
func readRetry(d *store.Dir, judge string) (retryRecord, error) {
	var rec retryRecord
	raw, err := d.ReadPrivate(retryName(judge))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err == nil {
		err = json.Unmarshal(raw, &rec)
	}
	if err != nil {
		return rec, fmt.Errorf("read %s/%s: %w (remove it to ask every gap again)", store.PrivateDir, retryName(judge), err)
	}
	return rec, nil
}

// writeRetry writes the record of the pass.
func writeRetry(d *store.Dir, judge string, rec retryRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return d.WritePrivate(retryName(judge), append(data, '\n'))
}

// open returns the gaps of gaps the pass has still to ask: none once it
// is done, else those it has not asked.
func (rec retryRecord) open(gaps []string) []string {
	if rec.Done {
		return nil
	}
	var out []string
	for _, g := range gaps {
		if !slices.Contains(rec.Asked, g) {
			out = append(out, g)
		}
	}
	return out
}

// RetryGaps returns the gaps of f, the debate in d or its re-judging by
// the judge called judge (judge "" for the debate's own), that a
// --retry-missing pass asks again: every gap, but those a pass stopped
// part way has already asked.
func RetryGaps(d *store.Dir, f sm.Filler, judge string) ([]string, error) {
	rec, err := readRetry(d, judge)
	if err != nil {
		return nil, err
	}
	return rec.open(f.Gaps()), nil
}

// EndRetry removes the record of the --retry-missing pass over the
// debate in d (judge "") or its re-judging by judge: the command that
// made it ended well, and the next pass asks every gap again.
func EndRetry(d *store.Dir, judge string) error {
	return d.RemovePrivate(retryName(judge))
}
