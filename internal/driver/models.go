package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"

	"github.com/moot-dev/moot/store"
)

// ModelChecker is a model client that can tell, before a run asks
// anything, whether it can reach every model the run may ask: a client
// of several endpoints (moot's own, and its built-in model) that cannot
// make one of them. Advance calls CheckModels with the models of the
// protocol's roles and of the debate's judge panel, and stops with its
// error, asking nothing and writing nothing.
type ModelChecker interface {
	CheckModels(models []string) error
}

// ModelsOf returns, for every role of the debate in d that has spoken,
// each model that wrote its text, as its usage log names them for the
// calls that were answered; for a debate without a usage log, the model
// its stored settings give each role and each judge of its panel (a
// debate written by hand or by dialectic has neither).
func ModelsOf(d *store.Dir) (map[string][]string, error) {
	out := map[string][]string{}
	add := func(role, m string) {
		if role != "" && m != "" && !slices.Contains(out[role], m) {
			out[role] = append(out[role], m)
		}
	}
	data, err := d.ReadPrivate(UsageFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var u Usage
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &u) != nil || !u.OK {
			continue
		}
		add(u.Role, u.Model)
	}
	if len(out) > 0 {
		return out, nil
	}
	s, err := readSettings(d)
	if err != nil {
		return nil, err
	}
	for role, m := range s.Models {
		add(role, m)
	}
	for _, j := range s.panel {
		add(j.Name, j.Model)
	}
	return out, nil
}
