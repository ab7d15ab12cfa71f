package tournament_test

import (
	"os"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

func TestMain(m *testing.M) {
	// The processes these tests start from this test binary run as moot.
	// The tournaments' debates are dialectic's, which cli.Main no longer
	// adds of its own.
	crashtest.AsMoot(dialectic.Protocol{})
	os.Exit(m.Run())
}
