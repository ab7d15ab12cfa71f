#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every test, in two passes
# run at the same time: one with the race detector (go test -race ./...),
# one without it for the tests set apart below, where they take a
# fraction of the time. Nothing is left out: every test runs in one pass
# or the other. Set apart:
# - the tests that kill moot processes (crashtest.Apart, "Kill" in their
#   names, MOOT_KILLS_APART) and internal/cli's end-to-end scripts (MOOT_SCRIPTS_APART),
#   which start a moot process a command: the detector sees no memory
#   shared between processes, and what those processes do in goroutines
#   is raced in-process by the packages' own tests;
# - the measurements of bench/judgectx, bench/cachemarks, bench/pipeline
#   and bench/prefix (its tests named ...Share), whole debates in one
#   process (MOOT_BENCH_APART);
# - all but one of schemafake's thirty seeds a case (MOOT_SEEDS_APART);
#   cmd/moot's hostile files, and all but the panel's of internal/cli's
#   demos run twice, of internal/builtin's debates of every protocol and
#   of schemafake's walk of every call kind, and all but the middle and
#   the last of internal/cli's hand-ins failed at every write
#   (MOOT_CASES_APART);
# - all but the middle and the last of the in-process interruptions at
#   every call (crashtest.InterruptAt, MOOT_INTERRUPTS_APART);
# - the tests named in $whole: whole debates run one step after another,
#   which race nothing the tests kept under the detector (a panel's
#   parallel judges, pipelined calls, interruptions) do not.
# Only in CI (CI=true, as .ci/run and CI services set it) do the kill
# tests kill at every call, the in-process interruptions stop at every
# call, schemafake run thirty seeds a case and bench/cachemarks measure
# both judge contexts; elsewhere (MOOT_SAMPLE)
# the kill tests kill at a sample of each run's calls, the same every time
# (the first, the middle, the last, and the first and the last of each
# kind) or exit at every fourth write and the last, the interruptions
# stop at the first, the middle and the last, schemafake runs seeds 0 to
# 4, and bench/cachemarks measures the default judge context alone.
# go test's own vet is off (-vet=off), as go vet ./... runs every check it
# would; the test binaries are linked without DWARF (-w), which only
# debuggers read. -timeout is a guard for a loaded machine, where a
# package can take longer than go test's default of ten minutes.
set -euo pipefail
cd "$(dirname "$0")"
# Every build of the run, the go builds some tests make included, is
# made with -trimpath: what is compiled then names no folder of this
# clone, so another clone, or this one moved, takes every package, race
# and plain, and every vet result from the build cache. Without it each
# new clone compiles everything again (in a second clone, go vet ./...
# took 101 s of CPU without it, 1.7 s with it).
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
# The tests' temporary folders, where every test debate is written, and
# go's own (GOTMPDIR: the test binaries, linked there) go on a tmpfs when
# /dev/shm has 2 GB free (a run used 375 MB of it at most): each step's
# writes, renames and fsyncs are the same, but cost no disk. Both must
# point there, as t.TempDir makes its folders under GOTMPDIR when it is
# set. On an ext4 disk most of the kernel's time went to creating files
# (a whole run: 4 m 27 s and 495 s of CPU with both on the tmpfs, 7 m 15 s
# and 766 s with GOTMPDIR on disk). MOOT_TEST_DISK=1 keeps both where
# they were.
if [ -z "${MOOT_TEST_DISK:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] &&
  [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge 2097152 ] 2>/dev/null; then
  shm=$(mktemp -d /dev/shm/moot-test.XXXXXX)
  trap 'rm -rf "$shm"' EXIT
  export TMPDIR="$shm" GOTMPDIR="$shm"
fi
# The moots that tests run as a user does, built once here for both
# passes, where each pass's package would otherwise link its own: with
# -tags moot_faults for internal/testkit/crashtest, with -tags
# moot_example (the example protocol added, cmd/moot/example.go) for
# that protocol's tests, and without tags for crashtest's check that a
# release build ignores MOOT_FAULT. Without these variables (go test
# alone) the tests build them.
bins=$(mktemp -d "${GOTMPDIR:-${TMPDIR:-/tmp}}/moot-bins.XXXXXX")
trap 'rm -rf "$bins" ${shm:+"$shm"}' EXIT
mkdir "$bins/faults" "$bins/example" "$bins/release"
go build -ldflags=-w -tags moot_faults -o "$bins/faults/moot" ./cmd/moot &
faults=$!
go build -ldflags=-w -o "$bins/release/moot" ./cmd/moot &
release=$!
go build -ldflags=-w -tags moot_example -o "$bins/example/moot" ./cmd/moot ||
  { wait "$faults" "$release"; exit 1; }
wait "$faults" && wait "$release"
export MOOT_TEST_FAULTS_BIN="$bins/faults/moot" MOOT_TEST_EXAMPLE_BIN="$bins/example/moot" MOOT_TEST_RELEASE_BIN="$bins/release/moot"
# A binary built with the race detector sleeps a second as it exits
# (GORACE's atexit_sleep_ms): every race test binary, and every moot a
# test starts from one. A race found still fails the run (exit 66).
export GORACE="${GORACE:+$GORACE }atexit_sleep_ms=0"
# The packages whose tests kill moot processes or interrupt runs at every
# call: those that call the harness, found afresh so that a new one is
# never left out.
kills=$(grep -rlE '(Apart|KillAtEveryCall|InterruptAt)\(t' --include='*_test.go' . | xargs -n1 dirname | sort -u)
# The tests the race pass skips (go test -skip) and the second pass runs
# (-run), in the packages that define them. Each runs whole debates one
# step at a time; under the detector it cost (CPU seconds, alone):
# moderated's TestCounts 13, TestOutputFormats 5.8, TestOutcome 5.2,
# TestHandOversCarryTheLastStatement 6.3, TestTemperatures 2.7 (refine's
# 0.4), TestRunCountsExchanges 2.7, TestRebuttalsAnswerTheRoundsArgument
# 2.6, TestAdvocatesMarkTheirHistory 2.4, TestMaxTokens 2.4; forum's
# TestRequestCounts 4.6, TestOutcome 3.2, TestPromptWording 2.9; messy's
# TestEveryProtocolAnswersAsModelsWrite 22.6, which runs every protocol
# twice. What these debates run in parallel (a panel's judges,
# pipelined calls) other tests of each protocol race.
whole='TestCounts|TestOutputFormats|TestOutcome|TestHandOversCarryTheLastStatement|TestTemperatures|TestRunCountsExchanges|TestRebuttalsAnswerTheRoundsArgument|TestAdvocatesMarkTheirHistory|TestMaxTokens|TestRequestCounts|TestPromptWording|TestEveryProtocolAnswersAsModelsWrite'
wholepkgs=$(grep -rlE "^func ($whole)\(" --include='*_test.go' . | xargs -n1 dirname | sort -u)
# Samples of the kills, interruptions and seeds, but all of them in CI.
if [ "${CI:-}" != true ]; then
  export MOOT_SAMPLE=1
fi
# The race pass runs beside go vet and then the second pass: the second
# pass's moot processes wait on their fakes and their kills while the
# race pass has CPU work, the race pass's last packages would otherwise
# run alone on one core, and vet compiles, without the race detector,
# the packages the second pass then takes from the build cache.
MOOT_KILLS_APART=1 MOOT_SCRIPTS_APART=1 MOOT_BENCH_APART=1 MOOT_SEEDS_APART=1 MOOT_INTERRUPTS_APART=1 MOOT_CASES_APART=1 \
  go test -race -count=1 -vet=off -ldflags=-w -timeout 60m -skip "^($whole)\$" ./... &
race=$!
{
  go vet ./... || { echo "test.sh: go vet failed" >&2; exit 1; }
  go test -count=1 -vet=off -ldflags=-w -timeout 60m \
    -run 'Kill|InterruptedAtEveryCall|^TestScripts$|^TestJudgeContext$|^TestCacheMarks$|^TestPipeline$|Share$|^TestSchemaInstances$|^TestHostileFiles$|^TestDemoDeterministic$|^TestAnswerHandedInAgainAfterAFault$|^TestEveryProtocol$|^TestEveryCallKindHasASchema$|^('"$whole"')$' \
    $(printf '%s\n' $kills $wholepkgs | sort -u) ./internal/cli ./internal/builtin ./bench/judgectx ./bench/cachemarks ./bench/pipeline ./bench/prefix ./internal/testkit/schemafake ./cmd/moot
} &
apart=$!
# Ctrl-C reaches both: go re-arms the SIGINT that a script's background
# commands start with ignored.
failed=0
wait "$race" || { failed=1; echo "test.sh: the pass under the race detector failed" >&2; }
wait "$apart" || { failed=1; echo "test.sh: go vet or the pass without the race detector failed" >&2; }
exit "$failed"
