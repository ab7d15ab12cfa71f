// Command moot runs structured debates between language models and keeps
// each debate as a plain directory of files. See the README for its use.
package main

import (
	"os"

	"github.com/moot-dev/moot/internal/cli"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/refine"
)

// protocols are the protocols moot knows, dialectic, the default, first.
// A file built only with a tag may add one in its init, as example.go
// does.
var protocols = []sm.Protocol{dialectic.Protocol{}, forum.Protocol{}, moderated.Protocol{}, refine.Protocol{}, panel.Protocol{}}

func main() {
	os.Exit(cli.Main(os.Args, protocols...))
}
