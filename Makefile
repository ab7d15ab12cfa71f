# Longer checks than CI runs. `make test` is what CI runs (./test.sh).

KILLS ?= 500
FUZZTIME ?= 1m

.PHONY: test crash fuzz memory process tournament bench

test:
	./test.sh

# SIGKILL moot at random instants $(KILLS) times (make crash KILLS=2000).
crash:
	bench/crash.sh $(KILLS)

# Run every fuzz target for $(FUZZTIME) each.
fuzz:
	go test ./internal/frontmatter -run "^$$" -fuzz "^FuzzParse$$" -fuzztime $(FUZZTIME)
	go test ./internal/frontmatter -run "^$$" -fuzz "^FuzzObjectSplit$$" -fuzztime $(FUZZTIME)
	go test ./statemachine/dialectic -run "^$$" -fuzz "^FuzzParseSubmissions$$" -fuzztime $(FUZZTIME)
	go test ./statemachine/dialectic -run "^$$" -fuzz "^FuzzParseJudgment$$" -fuzztime $(FUZZTIME)
	go test ./statemachine/dialectic -run "^$$" -fuzz "^FuzzParseID$$" -fuzztime $(FUZZTIME)
	go test ./internal/cli -run "^$$" -fuzz "^FuzzValidSlug$$" -fuzztime $(FUZZTIME)
	go test ./internal/cli -run "^$$" -fuzz "^FuzzParseConfig$$" -fuzztime $(FUZZTIME)

# Peak memory of the read commands on a 1,000-exchange debate.
memory:
	bench/memory.sh

# Wall time of status, check and one step as whole processes (hyperfine).
process:
	bench/process.sh

# Tournaments against a fake server: run (100 debates, 500 ms calls,
# --jobs 16), --rpm 120 and the report of 1,800 debates (bench/tourney),
# all three even when one misses its target.
tournament:
	go run ./bench/tourney run; a=$$?; go run ./bench/tourney rpm; b=$$?; go run ./bench/tourney report; exit $$((a | b | $$?))

bench:
	go test -run "^$$" -bench . ./internal/driver ./statemachine/dialectic ./store ./internal/testkit/crashtest
