module github.com/moot-dev/moot

go 1.26.0

require (
	github.com/gofrs/flock v0.13.1
	github.com/openai/openai-go/v3 v3.96.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/urfave/cli/v3 v3.14.0
	github.com/yuin/goldmark v1.8.7
	golang.org/x/sys v0.48.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
