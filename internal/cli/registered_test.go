package cli

import (
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// withDialectic is the protocols a test's moot knows: dialectic, the
// default, first, then ps, as cmd/moot registers them. Run registers
// nothing of its own.
func withDialectic(ps ...sm.Protocol) sm.Protocols {
	return append(sm.Protocols{dialectic.Protocol{}}, ps...)
}
