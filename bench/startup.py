#!/usr/bin/env python3
"""Start-up cost of moot as a whole process, against an empty Go binary and
against dialectic's debate_ops, measured as the project's issue describes:
time.perf_counter around subprocess.run, rounds interleaved, medians.

Each round runs, one after the other: an empty Go binary, `moot status` and
`moot check` on a 9-exchange debate, one deterministic step
(`moot process-judge` on a fresh copy of the debate awaiting its judgment),
and dialectic's `python3 debate_ops process-judge` on a fresh copy of the
same debate. Copying is done before the clock starts. Dialectic is skipped,
with a message, when ../shared/compat/dialectic-skill is not beside the
repository.

Dialectic runs under the real interpreter, named in the output: the
python3 on PATH is asked for its sys.executable once, so that a shim in
front of it (pyenv's adds about 50 ms to every start) is not timed as
dialectic's. --python names another interpreter.

moot is built with the README's build command (CGO_ENABLED=0, a static
binary: no dynamic loader or C library to start, about 1 ms less) plus
-trimpath (BUILD below), which changes only the file paths recorded in the
binary; the empty binary with the same flags. Stripping (-ldflags="-s -w")
was measured and made no difference to start-up, as the symbol tables it
removes are never read at start, so the README does not use it. The
ratios to the empty binary are printed for reference; the one target
(exit 1 when missed) is a moot step at least 4x faster than dialectic's
run with the real interpreter.

--baseline runs another moot binary (an older build, say) in the same
rounds, on the same debates, so that the two compare under the same load.

    python3 bench/startup.py            # 30 rounds after 3 warm-up rounds
    python3 bench/startup.py --runs 60
    python3 bench/startup.py --baseline /tmp/moot-before
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# BUILD is the README's build command (less its -o and package) with
# -trimpath, run with BUILD_ENV added to the environment.
BUILD = ["go", "build", "-trimpath"]
BUILD_ENV = {"CGO_ENABLED": "0"}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIALECTIC = os.path.join(os.path.dirname(ROOT), "shared", "compat", "dialectic-skill", "debate_ops")

DIALECTIC_MIN = 4.0  # dialectic's step, as a multiple of moot's


def run(argv, cwd=None, env=None):
    """run runs argv to completion, with env added to the environment,
    failing loudly on a non-zero exit."""
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        sys.exit("startup.py: %s: exit %d\n%s%s" % (" ".join(argv), p.returncode,
                                                    p.stdout.decode(), p.stderr.decode()))
    return p


def timed(argv, cwd=None):
    """timed returns the wall time in milliseconds of running argv once."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t1 = time.perf_counter()
    if p.returncode != 0:
        sys.exit("startup.py: %s: exit %d" % (" ".join(argv), p.returncode))
    return (t1 - t0) * 1000


def build(work):
    """build writes the empty binary, moot and the debates into work."""
    empty_src = os.path.join(work, "empty")
    os.mkdir(empty_src)
    with open(os.path.join(empty_src, "go.mod"), "w") as f:
        f.write("module empty\n\ngo 1.21\n")
    with open(os.path.join(empty_src, "main.go"), "w") as f:
        f.write("package main\n\nfunc main() {}\n")
    empty = os.path.join(work, "empty.bin")
    run(BUILD + ["-o", empty, "."], cwd=empty_src, env=BUILD_ENV)
    moot = os.path.join(work, "moot")
    run(BUILD + ["-o", moot, "./cmd/moot"], cwd=ROOT, env=BUILD_ENV)
    gen = os.path.join(work, "gendebate")
    run(["go", "build", "-o", gen, "./bench/gendebate"], cwd=ROOT)
    # Exchanges 0 to 8 argued and judged: nine exchanges.
    nine = os.path.join(work, "nine")
    run([gen, "-exchanges", "9", nine])
    answers = os.path.join(work, "answers")
    run([gen, "-print-answers", "9", answers])
    # The same debate with exchange 9 argued, awaiting its judgment.
    awaiting = os.path.join(work, "awaiting")
    shutil.copytree(nine, awaiting)
    run([moot, "process-exchange", awaiting, "9",
         "--prop-file", os.path.join(answers, "prop.json"),
         "--opp-file", os.path.join(answers, "opp.json")])
    return empty, moot, nine, awaiting, os.path.join(answers, "judge.json")


def real_python(name):
    """real_python returns the interpreter that name (found on PATH, maybe
    a shim) really runs, and how it was found."""
    found = shutil.which(name)
    if found is None:
        sys.exit("startup.py: %s is not on PATH; give --python" % name)
    p = run([found, "-c", "import sys, platform; print(sys.executable); print(platform.python_version())"])
    exe, version = p.stdout.decode().split("\n")[:2]
    exe = os.path.realpath(exe)
    how = "found as %s" % found
    if exe != os.path.realpath(found):
        how += " (a shim or a link, not timed)"
    return exe, version, how


def fresh(work, awaiting, judge):
    """fresh copies the awaiting debate and the judge's answer (dialectic
    removes the answer it reads) and returns their paths."""
    d = os.path.join(work, "step")
    j = os.path.join(work, "step-judge.json")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(awaiting, d)
    shutil.copyfile(judge, j)
    return d, j


def main():
    ap = argparse.ArgumentParser(description="start-up cost of moot against an empty Go binary and dialectic")
    ap.add_argument("--runs", type=int, default=30, help="measured rounds (default 30)")
    ap.add_argument("--warmup", type=int, default=3, help="rounds run first and not counted (default 3)")
    ap.add_argument("--baseline", metavar="MOOT", help="another moot binary to run in the same rounds, for comparison")
    ap.add_argument("--python", default="python3", metavar="PYTHON",
                    help="the interpreter dialectic runs under (default: the one python3 on PATH really runs)")
    args = ap.parse_args()
    baseline = os.path.abspath(args.baseline) if args.baseline else None

    work = tempfile.mkdtemp(prefix="moot-startup-")
    try:
        empty, moot, nine, awaiting, judge = build(work)
        have_dialectic = os.path.isdir(DIALECTIC)
        if not have_dialectic:
            print("startup.py: %s is absent: dialectic not measured" % DIALECTIC)
        else:
            python, version, how = real_python(args.python)
            print("dialectic runs under %s (Python %s), %s" % (python, version, how))

        def step_moot():
            d, j = fresh(work, awaiting, judge)
            return [moot, "process-judge", d, "--json-file", j]

        def step_dialectic():
            d, j = fresh(work, awaiting, judge)
            return [python, DIALECTIC, "process-judge", d, "--json-file", j]

        def step_baseline():
            d, j = fresh(work, awaiting, judge)
            return [baseline, "process-judge", d, "--json-file", j]

        cases = [
            ("empty Go binary", lambda: [empty]),
            ("moot status", lambda: [moot, "status", nine]),
            ("moot check", lambda: [moot, "check", nine]),
            ("moot process-judge", step_moot),
        ]
        if baseline:
            cases += [
                ("baseline status", lambda: [baseline, "status", nine]),
                ("baseline check", lambda: [baseline, "check", nine]),
                ("baseline process-judge", step_baseline),
            ]
        if have_dialectic:
            cases.append(("dialectic process-judge", step_dialectic))

        load_before = os.getloadavg()[0]
        times = {name: [] for name, _ in cases}
        for r in range(args.warmup + args.runs):
            for name, prepare in cases:
                argv = prepare()  # copies, if any, before the clock starts
                ms = timed(argv)
                if r >= args.warmup:
                    times[name].append(ms)

        med = {name: statistics.median(ts) for name, ts in times.items()}
        base = med["empty Go binary"]
        size = os.path.getsize(moot) / (1 << 20)
        load = os.getloadavg()[0]
        env = " ".join("%s=%s" % kv for kv in BUILD_ENV.items())
        print("%d interleaved rounds (after %d warm-up), %d cores, load %.2f before and %.2f after, moot %.1f MiB, built with: %s %s"
              % (args.runs, args.warmup, os.cpu_count(), load_before, load, size, env, " ".join(BUILD)))
        if baseline:
            print("baseline: %s, %.1f MiB" % (baseline, os.path.getsize(baseline) / (1 << 20)))
        print("%-24s %9s %9s %9s %12s" % ("", "median ms", "min ms", "x empty", "x dialectic"))
        dia = med.get("dialectic process-judge")
        for name, _ in cases:
            vs_dia = "%12.2f" % (med[name] / dia) if dia else ""
            print("%-24s %9.2f %9.2f %9.2f %s" % (name, med[name], min(times[name]), med[name] / base, vs_dia))

        missed = []
        if dia:
            faster = dia / med["moot process-judge"]
            print("a moot step is %.2fx faster than dialectic's (target >= %.0fx)" % (faster, DIALECTIC_MIN))
            if faster < DIALECTIC_MIN:
                missed.append("a step is only %.2fx faster than dialectic's (target >= %.0fx)" % (faster, DIALECTIC_MIN))
        for m in missed:
            print("missed: " + m)
        return 1 if missed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
