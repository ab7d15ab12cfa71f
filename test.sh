#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every test with the race
# detector; the tests that kill moot processes run in a second pass
# without it (see crashtest.Apart), where they take a fraction of the time.
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
MOOT_KILLS_APART=1 go test -race -count=1 ./...
# The packages whose tests kill moot processes: those that call the
# harness, found afresh so that a new one is never left out.
kills=$(grep -rlE '(Apart|KillAtEveryCall)\(t' --include='*_test.go' . | xargs -n1 dirname | sort -u)
go test -count=1 -run Kill $kills
