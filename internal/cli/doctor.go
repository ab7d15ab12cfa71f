package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/model"
)

// doctorShown is how many of an endpoint's models moot doctor names
// before it says how many more there are.
const doctorShown = 30

// doctorCheck is what moot doctor learnt of one model.
type doctorCheck struct {
	Model string `json:"model"`
	// Roles say what the model is configured for.
	Roles []string `json:"roles"`
	OK    bool     `json:"ok"`
	Error string   `json:"error,omitempty"`
	// Mode is the response format that worked: json_schema, json_object
	// or text.
	Mode         string  `json:"response_format,omitempty"`
	JSONSchema   bool    `json:"json_schema"`
	Streaming    bool    `json:"streaming"`
	StreamError  string  `json:"stream_error,omitempty"`
	Usage        bool    `json:"usage"`
	StreamUsage  bool    `json:"stream_usage"`
	CachedTokens bool    `json:"cached_tokens"`
	Listed       *bool   `json:"listed"`
	Seconds      float64 `json:"seconds"`
	ValidJSON    bool    `json:"valid_json"`
	// Deployment is set for a model of Azure OpenAI, where the name is
	// the deployment's.
	Deployment bool `json:"deployment,omitempty"`
	// Responses says whether the endpoint serves the Responses API,
	// when moot speaks it (see servesResponses).
	Responses     *bool `json:"responses,omitempty"`
	hint          string
	streamedParts int
}

// doctorSchema is the schema of the one tiny answer moot doctor asks for,
// made when asked: a map built at start-up would cost every command.
func doctorSchema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"ok": map[string]any{"type": "boolean"}},
		"required":             []any{"ok"},
		"additionalProperties": false,
	}
}

func (a *app) doctorCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "doctor",
		Usage: "check the endpoint: reach it, list its models, and ask each configured model one tiny question (JSON schema, streaming, usage, cached tokens)",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "model", Usage: "check model `NAME` instead of the configured ones (repeatable)"},
			&ucli.DurationFlag{Name: "timeout", Value: time.Minute, Usage: "time limit of each request, a `DURATION`"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts"},
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("doctor takes no argument; --model NAME checks a model of your choice")
			}
			if cmd.Duration("timeout") <= 0 {
				return usageError("--timeout takes a positive duration")
			}
			return a.doctor(ctx, cmd)
		},
	}
}

// doctorModels are the models to check, each with what it is configured
// for: --model's, else the default model and moot.yaml's models.
func (a *app) doctorModels(cmd *ucli.Command) (map[string][]string, error) {
	out := map[string][]string{}
	if names := cmd.StringSlice("model"); len(names) > 0 {
		for _, n := range names {
			if n = strings.TrimSpace(n); n == "" {
				return nil, usageError("--model needs a model's name")
			}
			out[n] = append(out[n], "--model")
		}
		return out, nil
	}
	def := defaultModel(a.io.Getenv)
	from := "moot's default"
	switch {
	case strings.TrimSpace(a.rawEnv("MOOT_MODEL")) != "":
		from = "MOOT_MODEL"
	case def != DefaultModel || a.configModel() != "":
		from = ConfigFile
	}
	out[def] = append(out[def], "every role ("+from+")")
	if cfg, err := a.config(); err == nil && strings.TrimSpace(a.rawEnv("MOOT_MODEL")) == "" {
		for _, role := range slices.Sorted(maps.Keys(cfg.models)) {
			m := cfg.models[role]
			out[m] = append(out[m], role+" ("+ConfigFile+")")
		}
	}
	return out, nil
}

// configModel is moot.yaml's model, "" when it has none.
func (a *app) configModel() string {
	if cfg, err := a.config(); err == nil {
		return cfg.model
	}
	return ""
}

// doctor is `moot doctor`: it reaches the endpoint, lists its models and
// asks each model to check one tiny question twice, whole and streamed,
// and says what each supports. It fails with exit 6 when the endpoint or
// a model fails. The key is never shown.
func (a *app) doctor(ctx context.Context, cmd *ucli.Command) error {
	models, err := a.doctorModels(cmd)
	if err != nil {
		return err
	}
	var remote []string
	for _, m := range slices.Sorted(maps.Keys(models)) {
		if !builtin.Is(m) {
			remote = append(remote, m)
		}
	}
	cfg := model.ConfigFromEnv(a.io.Getenv)
	cfg.Timeout, cfg.MaxRetries = cmd.Duration("timeout"), 1
	endpoint := withoutUserinfo(cmp.Or(strings.TrimSpace(cfg.BaseURL), model.DefaultBaseURL))
	source := "default"
	switch {
	case strings.TrimSpace(a.rawEnv("OPENAI_BASE_URL")) != "":
		source = "OPENAI_BASE_URL"
	case cfg.BaseURL != "":
		source = ConfigFile
	}
	keySet := strings.TrimSpace(a.rawEnv("OPENAI_API_KEY")) != ""
	keyText := "not set"
	if keySet {
		keyText = "set (never shown)"
	}
	azure := strings.TrimSpace(cfg.AzureEndpoint) != ""
	if azure {
		endpoint, source = withoutUserinfo(strings.TrimSpace(cfg.AzureEndpoint)), "AZURE_OPENAI_ENDPOINT"
		keySet, keyText = azureAuth(cfg)
	}
	report := map[string]any{"endpoint": endpoint, "endpoint_source": source, "key_set": keySet, "models": nil, "checks": []doctorCheck{}}
	w := a.io.Stdout
	asJSON := cmd.Bool("json")
	say := func(format string, args ...any) {
		if !asJSON {
			fmt.Fprintln(w, visible(fmt.Sprintf(format, args...), false))
		}
	}
	if azure {
		version := cmp.Or(strings.TrimSpace(cfg.AzureAPIVersion), "not set")
		report["azure_api_version"] = strings.TrimSpace(cfg.AzureAPIVersion)
		say("endpoint: %s (%s), Azure OpenAI, API version %s (OPENAI_API_VERSION); %s", endpoint, source, version, keyText)
	} else {
		say("endpoint: %s (%s); key: %s", endpoint, source, keyText)
	}
	cfgFile, _ := a.config() // never nil; its error stopped the command before
	if api := a.apiSetting(cfgFile); api.Value == string(model.APIResponses) {
		report["api"] = api.Value
		say("api: responses (%s): each model is asked at POST /responses", api.Source)
	}
	for _, m := range slices.Sorted(maps.Keys(models)) {
		if builtin.Is(m) {
			say("%s: moot's built-in model runs in moot, with nothing to check (%s)", m, strings.Join(models[m], ", "))
		}
	}
	if len(remote) == 0 {
		say("no model of the endpoint's is configured; 'moot doctor --model NAME' checks one")
		if asJSON {
			return writeJSON(w, report)
		}
		return nil
	}
	client, err := model.New(cfg)
	if errors.Is(err, model.ErrNoAPIKey) {
		return noKeyError()
	}
	if err != nil {
		return withCode(ExitModel, err)
	}
	fail := func(err error, hints ...string) error {
		if asJSON {
			report["error"] = client.Mask(err.Error())
			if werr := writeJSON(w, report); werr != nil {
				return werr
			}
		}
		return withCode(ExitModel, err, hints...)
	}
	var listed []string
	if azure {
		// Azure's models list holds the models the resource may deploy,
		// not its deployments, which the model names: asking each is the
		// check.
		say("models: Azure OpenAI does not list its deployments; each model below names one")
	} else {
		listed, err = client.ListModels(ctx)
	}
	var api *model.APIError
	switch {
	case azure:
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &api) && api.Status == 404:
		say("models: the endpoint does not list its models (GET /models answered 404)")
		listed = nil
	case errors.As(err, &api) && (api.Status == 401 || api.Status == 403):
		return fail(err)
	case err != nil:
		var un *model.UnreachableError
		if errors.As(err, &un) {
			return fail(err, "start the server, or set OPENAI_BASE_URL (or base_url in "+ConfigFile+") to where it listens")
		}
		return fail(err)
	default:
		report["models"] = listed
		shown := listed[:min(len(listed), doctorShown)]
		line := fmt.Sprintf("models: %d listed: %s", len(listed), strings.Join(shown, ", "))
		if len(listed) > len(shown) {
			line += fmt.Sprintf(", and %d more (--json lists them all)", len(listed)-len(shown))
		}
		say("%s", line)
	}
	var checks []doctorCheck
	failed := 0
	for _, m := range remote {
		c := a.checkModel(ctx, client, m, models[m])
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		c.Deployment = azure
		if err == nil && !azure {
			in := slices.Contains(listed, m)
			c.Listed = &in
		}
		checks = append(checks, c)
		if !c.OK {
			failed++
		}
		if !asJSON {
			printCheck(w, c)
		}
	}
	report["checks"] = checks
	if asJSON {
		if err := writeJSON(w, report); err != nil {
			return err
		}
	}
	if failed > 0 {
		var hints []string
		for _, c := range checks {
			if c.hint != "" && !slices.Contains(hints, c.hint) {
				hints = append(hints, c.hint)
			}
		}
		return withCode(ExitModel, fmt.Errorf("%d of %d models failed at %s", failed, len(checks), endpoint), hints...)
	}
	say("ok: every model answered")
	return nil
}

// azureAuth says whether an Azure OpenAI endpoint has a key or an Entra
// ID token to sign in with, and which, never showing it.
func azureAuth(cfg model.Config) (set bool, text string) {
	switch {
	case strings.TrimSpace(cfg.APIKey) != "":
		return true, "key: set (never shown) (AZURE_OPENAI_API_KEY)"
	case strings.TrimSpace(cfg.AzureADToken) != "":
		return true, "Entra ID token: set (never shown) (AZURE_OPENAI_AD_TOKEN)"
	}
	return false, "key: not set (AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN)"
}

// checkModel asks m one tiny question whole, with a JSON schema, then
// again as a stream in the format that worked, and says what m and its
// endpoint support.
func (a *app) checkModel(ctx context.Context, client *model.Client, m string, roles []string) doctorCheck {
	c := doctorCheck{Model: m, Roles: roles}
	req := model.Request{
		Model: m,
		Messages: []model.Message{
			{Role: "system", Content: "You check that a connection works. Answer with JSON only."},
			{Role: "user", Content: `Answer with the JSON object {"ok": true}.`},
		},
		Mode: model.ModeSchema, SchemaName: "check", Schema: doctorSchema(),
	}
	resp, err := client.Complete(ctx, req)
	c.Seconds = resp.Latency.Seconds()
	c.Responses = servesResponses(client, err)
	if err != nil {
		c.Error = strings.Join(strings.Fields(client.Mask(err.Error())), " ")
		var api *model.APIError
		if errors.As(err, &api) {
			c.hint = api.Hint()
		}
		return c
	}
	c.OK = true
	c.Mode = string(resp.Mode)
	c.JSONSchema = resp.Mode == model.ModeSchema
	c.Usage, c.CachedTokens = resp.UsageReported, resp.CachedReported
	var v struct {
		OK *bool `json:"ok"`
	}
	c.ValidJSON = json.Unmarshal([]byte(strings.TrimSpace(resp.Text)), &v) == nil && v.OK != nil
	req.Mode = resp.Mode
	req.OnChunk = func(string) { c.streamedParts++ }
	sresp, err := client.Complete(ctx, req)
	if err != nil {
		c.StreamError = strings.Join(strings.Fields(client.Mask(err.Error())), " ")
		return c
	}
	c.Streaming = sresp.Streamed && c.streamedParts > 0
	// Usage that came with an answer the server did not stream is not
	// usage in a stream.
	c.StreamUsage = sresp.Streamed && sresp.UsageReported
	c.CachedTokens = c.CachedTokens || sresp.CachedReported
	return c
}

// printCheck prints what moot doctor learnt of one model.
func printCheck(w interface{ Write([]byte) (int, error) }, c doctorCheck) {
	line := func(what, how string) { fmt.Fprintf(w, "  %-14s %s\n", what, visible(how, false)) }
	name := visible(c.Model, false)
	if c.Deployment {
		name = "deployment " + name
	}
	fmt.Fprintf(w, "%s, for %s:\n", name, visible(strings.Join(c.Roles, ", "), false))
	if c.Listed != nil && !*c.Listed {
		line("listed", "no: the endpoint does not list this model; check its name")
	}
	switch {
	case c.Responses == nil:
	case *c.Responses:
		line("Responses API", "yes")
	default:
		line("Responses API", "no: the endpoint does not serve POST /responses; --api chat speaks Chat Completions")
	}
	if !c.OK {
		line("answer", "FAILED: "+c.Error)
		return
	}
	line("answer", fmt.Sprintf("ok, in %.1f s", c.Seconds))
	switch model.Mode(c.Mode) {
	case model.ModeSchema:
		line("JSON schema", "yes")
	case model.ModeObject:
		line("JSON schema", "no: moot asks for JSON mode (json_object) instead, and checks the shape itself")
	default:
		line("JSON schema", "no, nor JSON mode: moot describes the JSON in the prompt and checks the answer")
	}
	if !c.ValidJSON {
		line("JSON answer", "no: the answer was not the JSON asked for; moot sends such answers back to be repaired")
	}
	switch {
	case c.Streaming:
		line("streaming", fmt.Sprintf("yes (%d chunks)", c.streamedParts))
	case c.StreamError != "":
		line("streaming", "FAILED: "+c.StreamError)
	default:
		line("streaming", "no: the answer came whole; run --json then shows no chunks")
	}
	switch {
	case c.Usage && c.StreamUsage:
		line("usage", "reported, in a stream too")
	case c.Usage && c.Streaming:
		line("usage", "reported, but not in a stream: run --json, which streams, records no tokens")
	case c.Usage:
		line("usage", "reported")
	default:
		line("usage", "not reported: moot records no tokens, and costs and --budget cannot count this model")
	}
	if c.CachedTokens {
		line("cached tokens", "reported")
	} else {
		line("cached tokens", "not reported: cached prompt tokens are counted at the input price")
	}
}
