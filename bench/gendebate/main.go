// Command gendebate writes a scripted debate of many exchanges through
// moot's engine, for measuring how moot copes with large debates:
//
//	go run ./bench/gendebate -exchanges 1000 /tmp/debates/big
//
// Each step is checked and committed as moot process-exchange and
// process-judge would (journal, atomic writes), but the debate is kept in
// memory between steps instead of being read back from disk each time.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

func main() {
	exchanges := flag.Int("exchanges", 1000, "how many exchanges to argue and judge")
	answers := flag.Int("print-answers", -1, "instead, write the scripted answers of exchange `N` (prop.json, opp.json, judge.json) into DIR")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gendebate [-exchanges N] DIR\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *answers >= 0 {
		if err := writeAnswers(flag.Arg(0), *answers); err != nil {
			fmt.Fprintln(os.Stderr, "gendebate:", err)
			os.Exit(1)
		}
		return
	}
	if err := generate(flag.Arg(0), *exchanges); err != nil {
		fmt.Fprintln(os.Stderr, "gendebate:", err)
		os.Exit(1)
	}
}

func generate(dir string, exchanges int) error {
	slug := filepath.Base(dir)
	d, err := driver.CreateDebate(dir, dialectic.Protocol{}, dialectic.NewInput(slug, dialectic.Motion{Text: "This house would keep every debate as plain files."}))
	if err != nil {
		return err
	}
	defer d.Close() // engine.Create hands the new debate over locked
	deb, err := dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{}))
	if err != nil {
		return err
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for e := 0; e < exchanges; e++ {
		c, err := dialectic.ApplyArguments(deb, e, map[dialectic.Side][]byte{dialectic.Prop: dialectictest.Answer(dialectic.Prop, e), dialectic.Opp: dialectictest.Answer(dialectic.Opp, e)})
		if err == nil {
			err = driver.Commit(d, c)
		}
		if err != nil {
			return fmt.Errorf("exchange %d: %w", e, err)
		}
		c, err = dialectic.ApplyJudgment(deb, dialectictest.Judgment(e), now.Add(time.Duration(e)*time.Minute))
		if err == nil {
			err = driver.Commit(d, c)
		}
		if err != nil {
			return fmt.Errorf("judgment %d: %w", e, err)
		}
	}
	return nil
}

// writeAnswers writes the scripted answers of exchange e into dir.
func writeAnswers(dir string, e int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"prop.json":  dialectictest.Answer(dialectic.Prop, e),
		"opp.json":   dialectictest.Answer(dialectic.Opp, e),
		"judge.json": dialectictest.Judgment(e),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
