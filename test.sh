#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every test with the race
# detector. Four kinds of test run in a second pass without it, where
# they take a fraction of the time: the tests that kill moot processes
# (see crashtest.Apart) and the end-to-end scripts of internal/cli, which
# start a moot process for every command (the race detector sees no
# memory shared between processes, and what those processes do in
# parallel goroutines is raced in-process by the packages' own tests),
# the measurements of bench/judgectx and bench/cachemarks, 40-exchange
# debates in one process, and of bench/pipeline, debates at 300 ms a
# call, and schemafake's thirty seeds a case (one runs
# under the race detector). -timeout is a guard for a loaded machine, where
# a package can take longer than go test's default of ten minutes.
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
MOOT_KILLS_APART=1 MOOT_SCRIPTS_APART=1 MOOT_BENCH_APART=1 MOOT_SEEDS_APART=1 go test -race -count=1 -timeout 30m ./...
# The packages whose tests kill moot processes: those that call the
# harness, found afresh so that a new one is never left out.
kills=$(grep -rlE '(Apart|KillAtEveryCall)\(t' --include='*_test.go' . | xargs -n1 dirname | sort -u)
go test -count=1 -timeout 30m -run 'Kill|^TestScripts$|^TestJudgeContext$|^TestCacheMarks$|^TestPipeline$|^TestSchemaInstances$' $kills ./internal/cli ./bench/judgectx ./bench/cachemarks ./bench/pipeline ./internal/testkit/schemafake
