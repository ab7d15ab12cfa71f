package tournament_test

import (
	"os"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
)

func TestMain(m *testing.M) {
	// The processes these tests start from this test binary run as moot.
	crashtest.AsMoot()
	os.Exit(m.Run())
}
