# Longer checks than CI runs. `make test` is what CI runs (./test.sh).

KILLS ?= 500
FUZZTIME ?= 1m

.PHONY: test crash fuzz memory process bench

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

# Peak memory of the read commands on a 1,000-exchange debate.
memory:
	bench/memory.sh

# Wall time of status, check and one step as whole processes (hyperfine).
process:
	bench/process.sh

bench:
	go test -run "^$$" -bench . ./internal/driver ./internal/report ./store ./internal/testkit/crashtest
