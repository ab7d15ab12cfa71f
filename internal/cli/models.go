package cli

import (
	"context"
	"errors"
	"slices"
	"sort"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/store"
)

// modelRouter is the model client of the commands that ask models: a
// request for the built-in model (builtin.Name) is answered by it, in
// this process, and any other goes to the endpoint the environment
// configures. A run whose models are all built in needs no key and no
// server.
type modelRouter struct {
	scripted builtin.Client
	// remote is the endpoint's client; nil when it could not be made,
	// and noRemote then says why, with its exit code and hints.
	remote   *model.Client
	noRemote error
}

var (
	_ driver.Completer    = (*modelRouter)(nil)
	_ driver.Embedder     = (*modelRouter)(nil)
	_ driver.ModelChecker = (*modelRouter)(nil)
)

// Complete sends req to the built-in model or to the endpoint, by its
// model.
func (m *modelRouter) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if builtin.Is(req.Model) {
		return m.scripted.Complete(ctx, req)
	}
	if m.remote == nil {
		return model.Response{}, m.noRemote
	}
	return m.remote.Complete(ctx, req)
}

// Embed sends req to the built-in model or to the endpoint, by its
// model.
func (m *modelRouter) Embed(ctx context.Context, req model.EmbedRequest) (model.EmbedResponse, error) {
	if builtin.Is(req.Model) {
		return m.scripted.Embed(ctx, req)
	}
	if m.remote == nil {
		return model.EmbedResponse{}, m.noRemote
	}
	return m.remote.Embed(ctx, req)
}

// Mask hides the endpoint's key in text.
func (m *modelRouter) Mask(text string) string {
	if m.remote == nil {
		return text
	}
	return m.remote.Mask(text)
}

// CheckModels fails, before anything is asked, when one of models is not
// built in and the endpoint's client could not be made.
func (m *modelRouter) CheckModels(models []string) error {
	if m.remote != nil {
		return nil
	}
	for _, name := range models {
		if !builtin.Is(name) {
			return m.noRemote
		}
	}
	return nil
}

// modelClient makes the model client run, step and rejudge use, from
// their flags and the environment. Without a key for the OpenAI API it
// still serves the built-in model; a run that needs the endpoint then
// fails before it asks anything (see modelRouter.CheckModels).
func (a *app) modelClient(cmd *ucli.Command) (*modelRouter, error) {
	if cmd.Int("repairs") < 0 || cmd.Int("retries") < 0 || cmd.Duration("timeout") <= 0 {
		return nil, usageError("--repairs and --retries take a number of 0 or more, --timeout a positive duration")
	}
	cfg := model.ConfigFromEnv(a.io.Getenv)
	cfg.Timeout, cfg.MaxRetries = cmd.Duration("timeout"), cmd.Int("retries")
	client, err := model.New(cfg)
	switch {
	case errors.Is(err, model.ErrNoAPIKey):
		return &modelRouter{noRemote: noKeyError()}, nil
	case err != nil:
		return nil, withCode(ExitModel, err)
	}
	return &modelRouter{remote: client}, nil
}

// scriptedRoles returns the roles of the debate in d whose text moot's
// built-in model wrote, sorted, and whether it wrote all of the debate's
// text (by driver.ModelsOf).
func scriptedRoles(d *store.Dir) (roles []string, all bool, err error) {
	models, err := driver.ModelsOf(d)
	if err != nil {
		return nil, false, err
	}
	all = len(models) > 0
	for role, ms := range models {
		if slices.ContainsFunc(ms, builtin.Is) {
			roles = append(roles, role)
		}
		if slices.ContainsFunc(ms, func(m string) bool { return !builtin.Is(m) }) {
			all = false
		}
	}
	sort.Strings(roles)
	return roles, all, nil
}

// scriptedNote is the sentence a report or status gives the debate in d
// when moot's built-in model wrote some of its text, else "".
func scriptedNote(d *store.Dir) (string, error) {
	roles, all, err := scriptedRoles(d)
	if err != nil {
		return "", err
	}
	return builtin.Note(roles, all), nil
}

// noKeyError is the error of a command that needs the OpenAI API without
// a key for it.
func noKeyError() error {
	return withCode(ExitModel, errors.New("no API key for the OpenAI API"),
		"set OPENAI_API_KEY to use OpenAI (or OpenRouter with OPENAI_BASE_URL=https://openrouter.ai/api/v1)",
		"or point OPENAI_BASE_URL at a local server that needs no key, e.g. http://localhost:11434/v1 for Ollama",
		"or try moot without either: --model "+builtin.Name+" runs moot's scripted built-in model ('moot demo' shows a whole debate)")
}
