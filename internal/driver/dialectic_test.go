package driver

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// The driver names no protocol: what follows is dialectic's use of it, as
// moot's commands make it, under the short names the driver's tests (the
// compat tests among them) call. Each is the driver's generic path with
// dialectic's pieces, nothing of its own.

// ReadRaw reads the files of a dialectic debate as one commit left them.
func ReadRaw(d *store.Dir) (dialectic.Raw, error) {
	var raw dialectic.Raw
	err := ReadFiles(d, func(files fs.FS) error {
		var err error
		raw, err = dialectic.ReadRaw(files)
		return err
	})
	return raw, err
}

// Load reads the dialectic debate in d; a writer is refused a broken one.
func Load(d *store.Dir) (*dialectic.Debate, error) {
	return dialectic.Loaded(LoadDebate(d, dialectic.Protocol{}))
}

// Create makes a new dialectic debate at dir, locked for writing.
func Create(dir, slug string, m dialectic.Motion) (*store.Dir, error) {
	if strings.TrimSpace(m.Text) == "" {
		return nil, errors.New("the motion is empty")
	}
	return CreateDebate(dir, dialectic.Protocol{}, dialectic.NewInput(slug, m))
}

// ProcessExchange is moot process-exchange: both sides' answers by hand.
func ProcessExchange(d *store.Dir, exchange int, prop, opp []byte) (Result, error) {
	return HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(exchange, prop, opp))
}

// ProcessJudge is moot process-judge: the judge's answer by hand.
func ProcessJudge(d *store.Dir, answer []byte, now time.Time) (Result, error) {
	return HandStep(d, dialectic.Protocol{}, true, dialectic.HandJudgment(answer, now))
}

// Goal says when a dialectic run stops: after Steps steps when Steps > 0,
// else when Exchange exchanges are judged.
type Goal struct {
	Exchange int
	Steps    int
}

// Run advances the dialectic debate in d until goal, as moot run does.
func Run(ctx context.Context, d *store.Dir, goal Goal, opts Options) (Summary, error) {
	return Advance(ctx, d, dialectic.Protocol{Templates: opts.Templates}, UnitGoal{Done: goal.Exchange, Steps: goal.Steps}, opts)
}
