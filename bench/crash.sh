#!/usr/bin/env bash
# Kill moot with SIGKILL at random instants, COUNT times (default 500; half
# as many again for moot run against a fake model server),
# over as many runs of a scripted 3-exchange debate as that takes, and
# check after every kill that the debate is valid and that the finished
# debates equal an uninterrupted run. Extra arguments go to `go test`
# (for instance -seed N to replay a run, or -exchanges 5).
#   bench/crash.sh 2000
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-500}"
shift || true
exec go test -count=1 -timeout 60m -run '^TestRandomKills(DuringRun)?$' ./internal/testkit/crashtest -v -kills "$count" "$@"
