package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/model"
)

// This file is the choice of the API moot speaks to the endpoint: --api
// (a flag of every command), else MOOT_API, else moot.yaml's api, else
// chat. The choice reaches every model client through the environment
// moot reads (app.io.Getenv), which model.ConfigFromEnv reads MOOT_API
// from: --api stands in for it there, as moot.yaml does below it.

// apiFlag is --api, a flag of the root and so of every command.
func (a *app) apiFlag() *ucli.StringFlag {
	return &ucli.StringFlag{
		Name: "api",
		Usage: "the `API` moot speaks to the endpoint: chat (Chat Completions, which every OpenAI-compatible server serves) " +
			"or responses (OpenAI's Responses API, which its reasoning models favour) (default: $" + model.APIEnv + ", else moot.yaml's api, else chat)",
		Action: func(_ context.Context, _ *ucli.Command, v string) error {
			api, err := model.ParseAPI(v)
			if err != nil {
				return badUsage(fmt.Errorf("--api: %w", err))
			}
			a.api = string(api)
			return nil
		},
	}
}

// apiFor is --api's value when name is MOOT_API and --api was given,
// which then wins over the environment and moot.yaml.
func (a *app) apiFor(name string) (string, bool) {
	return a.api, name == model.APIEnv && a.api != ""
}

// checkAPI fails when MOOT_API, or moot.yaml's api under it, names no
// API.
func (a *app) checkAPI() error {
	v := strings.TrimSpace(a.rawEnv(model.APIEnv))
	if v == "" {
		return nil
	}
	if _, err := model.ParseAPI(v); err != nil {
		return badUsage(fmt.Errorf("%s: %w", model.APIEnv, err), "set "+model.APIEnv+" to chat or responses, or unset it")
	}
	return nil
}

// apiSetting is the line of moot config that says which API moot speaks
// and what says so.
func (a *app) apiSetting(cfg *config) setting {
	switch {
	case a.api != "":
		return setting{"api", a.api, "--api"}
	case strings.TrimSpace(a.rawEnv(model.APIEnv)) != "":
		api, _ := model.ParseAPI(a.rawEnv(model.APIEnv))
		return setting{"api", string(api), model.APIEnv}
	case cfg.api != "":
		return setting{"api", cfg.api, cfg.path}
	}
	return setting{"api", string(model.APIChat), "default"}
}

// servesResponses says what a model's check at the Responses API tells
// of the endpoint: it serves POST /responses when the model answered
// there, and does not when the path was not found (404 or 405, not for
// a model it does not have); nil when the check tells neither, or the
// client speaks Chat Completions.
func servesResponses(client *model.Client, err error) *bool {
	if client.API() != model.APIResponses {
		return nil
	}
	yes := err == nil
	var api *model.APIError
	if !yes && (!errors.As(err, &api) || (api.Status != 404 && api.Status != 405) || api.Code == "model_not_found") {
		return nil
	}
	return &yes
}
