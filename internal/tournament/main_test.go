package tournament_test

import (
	"os"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

func TestMain(m *testing.M) {
	// The processes these tests start from this test binary run as moot.
	crashtest.AsMoot(dialectic.Protocol{})
	os.Exit(m.Run())
}
