package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"
	"go.yaml.in/yaml/v3"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/research"
	"github.com/moot-dev/moot/store"
)

// ConfigFile is the name of moot's root config file, looked for in the
// debates root and then in the folder that holds it.
const ConfigFile = "moot.yaml"

// configKeys are the keys moot.yaml may have, in the order `moot config`
// shows them.
var configKeys = []string{"model", "models", "base_url", "budget", "prices", "research", "cache_marks", "api"}

// researchKeys are the keys of moot.yaml's research mapping.
var researchKeys = []string{"search", "searches", "pages", "bytes", "time"}

// config is what moot.yaml says. Every setting is a default: a flag or an
// environment variable that gives the same setting wins.
type config struct {
	// path is the file read, "" when there is none.
	path string
	// model is every role's default model (as MOOT_MODEL), models a
	// role's or group's (as --ROLE-model, for roles the debate has no
	// model stored for).
	model  string
	models map[string]string
	// baseURL is the endpoint (as OPENAI_BASE_URL), api the API moot
	// speaks to it (as MOOT_API).
	baseURL, api string
	// budget is --budget of run and step, 0 for none.
	budget float64
	// prices is a prices file (as --prices), resolved against the
	// folder of moot.yaml.
	prices string
	// research turns research on (as --research); search is the search
	// provider (as MOOT_SEARCH); limits are the --research-* flags'
	// values by their suffix.
	research bool
	search   string
	limits   map[string]string
	// cacheMarks is --cache-marks of run and step, "" when not set.
	cacheMarks string
}

// configPaths are the files moot.yaml may be, for the debates root dir:
// in it, then beside it.
func configPaths(dir string) []string {
	in := filepath.Join(dir, ConfigFile)
	beside := filepath.Join(filepath.Dir(filepath.Clean(dir)), ConfigFile)
	if beside == in {
		return []string{in}
	}
	return []string{in, beside}
}

// loadConfig reads the first of the files configPaths names that exists;
// an empty config when none does. roles lists the names moot.yaml's
// models may use.
func loadConfig(dir string, roles []string) (*config, error) {
	for _, path := range configPaths(dir) {
		data, err := store.ReadInput(path, MaxFlagFileSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, withCode(ExitError, fmt.Errorf("read %s: %w", path, err))
		}
		return parseConfig(path, data, roles)
	}
	return &config{}, nil
}

// configError is a usage error in moot.yaml at the line of node n.
func configError(path string, n *yaml.Node, format string, args ...any) error {
	return badUsage(fmt.Errorf("%s:%d: %s", path, n.Line, fmt.Sprintf(format, args...)),
		"moot.yaml's keys: "+strings.Join(configKeys, ", ")+"; 'moot config' shows the settings in force and where each comes from")
}

// parseConfig reads moot.yaml's text, whose path is path: a mapping of
// the keys configKeys lists, each once. An unknown key, one given twice
// or a value of the wrong kind is a usage error naming the file, its
// line and the key.
func parseConfig(path string, data []byte, roles []string) (*config, error) {
	cfg := &config{path: path, models: map[string]string{}, limits: map[string]string{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, badUsage(fmt.Errorf("%s: %w", path, err), "moot.yaml is YAML: a mapping such as 'model: gpt-4o-mini'")
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, configError(path, top, "want a mapping of settings, such as 'model: gpt-4o-mini'")
	}
	err := eachPair(path, top, func(key string, k, v *yaml.Node) error {
		switch key {
		case "model":
			return configString(path, key, v, &cfg.model)
		case "models":
			if v.Kind != yaml.MappingNode {
				return configError(path, v, "models: want a mapping of role or group to model, such as 'judge: gpt-4o'")
			}
			return eachPair(path, v, func(role string, rk, rv *yaml.Node) error {
				if !slices.Contains(roles, role) {
					hint := ""
					if near, ok := nearest(role, roles); ok {
						hint = fmt.Sprintf(" (did you mean %s?)", near)
					}
					return configError(path, rk, "models: no protocol has a role or group %q%s; 'moot protocols' lists them", role, hint)
				}
				var m string
				if err := configString(path, "models: "+role, rv, &m); err != nil {
					return err
				}
				cfg.models[role] = m
				return nil
			})
		case "base_url":
			if err := configString(path, key, v, &cfg.baseURL); err != nil {
				return err
			}
			if u, err := url.Parse(cfg.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return configError(path, v, "base_url: want an http or https URL, such as http://localhost:11434/v1")
			}
			return nil
		case "api":
			api, err := model.ParseAPI(v.Value)
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" || err != nil {
				return configError(path, v, "api: want chat (Chat Completions) or responses (the Responses API)")
			}
			cfg.api = string(api)
			return nil
		case "budget":
			f, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || err != nil || !(f > 0) || f > 1e9 {
				return configError(path, v, "budget: want an amount of US dollars above 0, such as 2.50")
			}
			cfg.budget = f
			return nil
		case "prices":
			var p string
			if err := configString(path, key, v, &p); err != nil {
				return err
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			cfg.prices = p
			return nil
		case "research":
			return cfg.parseResearch(path, v)
		case "cache_marks":
			c, err := driver.ParseCacheMarks(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				return configError(path, v, "cache_marks: want auto, on or off")
			}
			cfg.cacheMarks = string(c)
			return nil
		case "api_key", "openai_api_key", "key":
			return configError(path, k, "unknown key %q: moot reads the key from OPENAI_API_KEY only, never from a file", key)
		}
		hint := ""
		if near, ok := nearest(key, configKeys); ok {
			hint = fmt.Sprintf(" (did you mean %s?)", near)
		}
		return configError(path, k, "unknown key %q%s", key, hint)
	})
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// parseResearch reads moot.yaml's research: true or false, as
// --research, or a mapping of search (as MOOT_SEARCH) and the limits of
// --research-searches, -pages, -bytes and -time, any of which turns
// research on, as those flags do.
func (cfg *config) parseResearch(path string, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		on, err := strconv.ParseBool(v.Value)
		if err != nil {
			return configError(path, v, "research: want true, false or a mapping of %s", strings.Join(researchKeys, ", "))
		}
		cfg.research = on
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return configError(path, v, "research: want true, false or a mapping of %s", strings.Join(researchKeys, ", "))
	}
	return eachPair(path, v, func(key string, k, rv *yaml.Node) error {
		switch key {
		case "search":
			return configString(path, "research: search", rv, &cfg.search)
		case "searches", "pages", "bytes":
			n, err := strconv.Atoi(rv.Value)
			if rv.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 1<<30 {
				return configError(path, rv, "research: %s: want a whole number above 0", key)
			}
			cfg.limits[key] = strconv.Itoa(n)
		case "time":
			d, err := time.ParseDuration(rv.Value)
			if rv.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				return configError(path, rv, "research: time: want a duration such as 3m")
			}
			cfg.limits[key] = d.String()
		default:
			hint := ""
			if near, ok := nearest(key, researchKeys); ok {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
			return configError(path, k, "research: unknown key %q%s; its keys: %s", key, hint, strings.Join(researchKeys, ", "))
		}
		cfg.research = true
		return nil
	})
}

// eachPair calls f with every key of the mapping m, refusing a key given
// twice and a key that is not a plain string.
func eachPair(path string, m *yaml.Node, f func(key string, k, v *yaml.Node) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return configError(path, k, "a key must be a plain word")
		}
		if line, ok := seen[k.Value]; ok {
			return configError(path, k, "key %q is given twice (first on line %d)", k.Value, line)
		}
		seen[k.Value] = k.Line
		if err := f(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// configString reads a non-empty string scalar into s.
func configString(path, key string, v *yaml.Node, s *string) error {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
		return configError(path, v, "%s: want a value, such as a model's name", key)
	}
	*s = strings.TrimSpace(v.Value)
	return nil
}

// config returns moot.yaml of the debates root the command line gives,
// read once.
func (a *app) config() (*config, error) {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	if a.cfgRead {
		return a.cfg, a.cfgErr
	}
	a.cfgRead = true
	dir := "debates"
	if a.rootCmd != nil {
		dir = root(a.rootCmd)
	}
	var roles []string
	for _, rp := range a.rolePrefixes() {
		roles = append(roles, rp.name)
	}
	a.cfg, a.cfgErr = loadConfig(dir, roles)
	if a.cfgErr != nil {
		a.cfg = &config{}
	}
	return a.cfg, a.cfgErr
}

// configEnv is what moot.yaml says for the environment variable name,
// which it stands in for when the environment leaves it unset.
func (a *app) configEnv(name string) string {
	cfg, err := a.config()
	if err != nil {
		return ""
	}
	switch name {
	case "MOOT_MODEL":
		return cfg.model
	case "OPENAI_BASE_URL":
		return cfg.baseURL
	case model.APIEnv:
		return cfg.api
	case research.SearchEnv:
		return cfg.search
	}
	return ""
}

// configSource is a flag's value from moot.yaml, below the command line.
type configSource struct {
	a   *app
	key string // "budget", "research", or a research limit's key
}

func (s configSource) Lookup() (string, bool) {
	cfg, err := s.a.config()
	if err != nil {
		return "", false
	}
	switch s.key {
	case "budget":
		if cfg.budget > 0 {
			return strconv.FormatFloat(cfg.budget, 'g', -1, 64), true
		}
	case "research":
		if cfg.research {
			return "true", true
		}
	case "cache-marks":
		return cfg.cacheMarks, cfg.cacheMarks != ""
	default:
		v, ok := cfg.limits[s.key]
		return v, ok
	}
	return "", false
}

func (s configSource) String() string   { return ConfigFile + " " + s.key }
func (s configSource) GoString() string { return "configSource(" + s.key + ")" }

// addConfigSources gives the flags of run and step that moot.yaml sets
// it as their source, below the command line: --budget, --research and
// the research limits.
func (a *app) addConfigSources(root *ucli.Command) {
	for _, c := range root.Commands {
		if c.Name != "run" && c.Name != "step" {
			continue
		}
		for _, f := range c.Flags {
			name := f.Names()[0]
			key, ok := strings.CutPrefix(name, "research-")
			switch {
			case name == "budget" || name == "research" || name == "cache-marks":
				key = name
			case ok && slices.Contains(researchKeys, key):
			default:
				continue
			}
			src := ucli.NewValueSourceChain(configSource{a: a, key: key})
			switch f := f.(type) {
			case *ucli.FloatFlag:
				f.Sources = src
			case *ucli.StringFlag:
				f.Sources = src
			case *ucli.BoolFlag:
				f.Sources = src
			case *ucli.IntFlag:
				f.Sources = src
			case *ucli.DurationFlag:
				f.Sources = src
			}
		}
	}
}

// roleDefaults are the models moot.yaml's models give the roles of a
// protocol whose targets are targets (a group's first, a role's winning),
// unless MOOT_MODEL, which wins over the file, is set.
func (a *app) roleDefaults(targets map[string]roleTarget) map[string]string {
	cfg, err := a.config()
	if err != nil || len(cfg.models) == 0 || strings.TrimSpace(a.rawEnv("MOOT_MODEL")) != "" {
		return nil
	}
	names := slices.Sorted(maps.Keys(cfg.models))
	out := map[string]string{}
	for rank := 1; rank <= 2; rank++ {
		for _, name := range names {
			if t, ok := targets[name]; ok && t.rank == rank {
				for _, r := range t.roles {
					out[r] = cfg.models[name]
				}
			}
		}
	}
	return out
}

// rawEnv is the environment variable name as the environment gives it,
// without moot.yaml.
func (a *app) rawEnv(name string) string {
	if a.env == nil {
		return a.io.Getenv(name)
	}
	return a.env(name)
}

// setting is one line of `moot config`: a setting, its value in force
// and where that comes from.
type setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// configCommand is `moot config`: the settings in force and where each
// comes from. It never shows a key.
func (a *app) configCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "config",
		Usage:        "show the settings in force (moot.yaml, the environment, the defaults) and where each comes from",
		Flags:        jsonFlags(),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("config takes no argument")
			}
			cfg, err := a.config()
			if err != nil {
				return err
			}
			list := a.settings(cmd, cfg)
			if cmd.Bool("json") {
				out := map[string]any{"file": nil, "settings": list}
				if cfg.path != "" {
					out["file"] = cfg.path
				}
				return writeJSON(a.io.Stdout, out)
			}
			w := a.io.Stdout
			if cfg.path != "" {
				fmt.Fprintf(w, "%s: %s\n", ConfigFile, cfg.path)
			} else {
				fmt.Fprintf(w, "%s: none (looked for %s)\n", ConfigFile, strings.Join(configPaths(root(cmd)), " and "))
			}
			kw, vw := 0, 0
			for _, s := range list {
				kw, vw = max(kw, len(s.Key)), max(vw, len(visible(s.Value, false)))
			}
			for _, s := range list {
				fmt.Fprintf(w, "%-*s  %-*s  %s\n", kw, s.Key, vw, visible(s.Value, false), visible(s.Source, false))
			}
			fmt.Fprintf(w, "a command's flags win over all of these; the environment wins over %s\n", ConfigFile)
			return nil
		},
	}
}

// settings lists the settings in force under cfg, the environment and
// moot's defaults, each with where it comes from.
func (a *app) settings(cmd *ucli.Command, cfg *config) []setting {
	var out []setting
	from := func(key, env, inFile, def, defSource string) {
		switch {
		case strings.TrimSpace(a.rawEnv(env)) != "":
			out = append(out, setting{key, strings.TrimSpace(a.rawEnv(env)), env})
		case inFile != "":
			out = append(out, setting{key, inFile, cfg.path})
		default:
			out = append(out, setting{key, def, defSource})
		}
	}
	dir, dirFrom := root(cmd), "default"
	switch {
	case a.rawEnv("MOOT_DIR") != "" && a.rawEnv("MOOT_DIR") == dir:
		dirFrom = "MOOT_DIR"
	case cmd.IsSet("dir") && cmd.String("dir") != "":
		// The flag's value is its default ("debates") when neither
		// --dir nor MOOT_DIR gives one.
		dirFrom = "--dir"
	}
	out = append(out, setting{"dir", dir, dirFrom})
	from("model", "MOOT_MODEL", cfg.model, DefaultModel, "default")
	for _, role := range slices.Sorted(maps.Keys(cfg.models)) {
		src := cfg.path
		if strings.TrimSpace(a.rawEnv("MOOT_MODEL")) != "" {
			src += " (MOOT_MODEL wins over it)"
		}
		out = append(out, setting{"models: " + role, cfg.models[role], src})
	}
	from("base_url", "OPENAI_BASE_URL", cfg.baseURL, model.DefaultBaseURL, "default")
	out[len(out)-1].Value = withoutUserinfo(out[len(out)-1].Value)
	azure := strings.TrimSpace(a.rawEnv("AZURE_OPENAI_ENDPOINT")) != ""
	if azure {
		out[len(out)-1].Source += " (AZURE_OPENAI_ENDPOINT wins over it)"
	}
	out = append(out, a.apiSetting(cfg))
	key := setting{"api key", "not set", "OPENAI_API_KEY"}
	if strings.TrimSpace(a.rawEnv("OPENAI_API_KEY")) != "" {
		key.Value = "set (never shown)"
		if azure {
			key.Source += " (not sent to Azure OpenAI)"
		}
	}
	out = append(out, key)
	out = append(out, a.azureSettings()...)
	if cfg.budget > 0 {
		out = append(out, setting{"budget", prices.USD(cfg.budget), cfg.path})
	} else {
		out = append(out, setting{"budget", "none", "default"})
	}
	from("prices", "MOOT_PRICES", cfg.prices, "moot's built-in table", "default")
	on := setting{"research", "off", "default"}
	if cfg.research {
		on = setting{"research", "on", cfg.path}
	}
	out = append(out, on)
	for _, k := range researchKeys[1:] {
		if v, ok := cfg.limits[k]; ok {
			out = append(out, setting{"research: " + k, v, cfg.path})
		}
	}
	from("research: search", research.SearchEnv, cfg.search, "not set", research.SearchEnv)
	marks := setting{"cache_marks", string(driver.CacheAuto), "default"}
	if cfg.cacheMarks != "" {
		marks = setting{"cache_marks", cfg.cacheMarks, cfg.path}
	}
	out = append(out, marks)
	return out
}

// azureSettings are the lines of moot config that say how moot reaches
// Azure OpenAI: only whether AZURE_OPENAI_ENDPOINT is set when it is not,
// and with it the API version and whether a key or an Entra ID token is
// set, never either.
func (a *app) azureSettings() []setting {
	endpoint := strings.TrimSpace(a.rawEnv("AZURE_OPENAI_ENDPOINT"))
	if endpoint == "" {
		return []setting{{"azure endpoint", "not set", "AZURE_OPENAI_ENDPOINT"}}
	}
	set := func(name string) string {
		if strings.TrimSpace(a.rawEnv(name)) != "" {
			return "set (never shown)"
		}
		return "not set"
	}
	version := cmp.Or(strings.TrimSpace(a.rawEnv("OPENAI_API_VERSION")), "not set (needed)")
	token := setting{"azure token", set("AZURE_OPENAI_AD_TOKEN"), "AZURE_OPENAI_AD_TOKEN"}
	if set("AZURE_OPENAI_API_KEY") != "not set" && token.Value != "not set" {
		token.Source += " (the key wins over it)"
	}
	return []setting{
		{"azure endpoint", withoutUserinfo(endpoint), "AZURE_OPENAI_ENDPOINT"},
		{"azure api version", version, "OPENAI_API_VERSION"},
		{"azure key", set("AZURE_OPENAI_API_KEY"), "AZURE_OPENAI_API_KEY"},
		token,
	}
}

// withoutUserinfo hides the user and password an endpoint's URL may hold
// behind "***".
func withoutUserinfo(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	scheme, rest, _ := strings.Cut(u.String(), "//")
	return scheme + "//***@" + rest
}
