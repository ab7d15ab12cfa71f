#!/usr/bin/env python3
"""What each module moot depends on costs, as the README's dependency table
gives it: its share of the binary and its package init at start-up.

The binary is built with the README's build command plus -trimpath. Its
size per module is the size of the symbols named by the module's packages
(`go tool nm -size`), code and data, less what is only reserved at run time
(.bss, .noptrbss), with the function tables (.gopclntab) shared out by code
size. A symbol that names several modules (a generic instantiation) counts
for the one named first. Tables built from literals have no name of their
own: they count as "unnamed", so each module's figure is a floor.

Start-up is the package init of each module, read from
GODEBUG=inittrace=1 over --runs runs of `moot --help`: allocations as
counted (the same every run), time the least of the runs. Times are clock
times: run on a quiet machine, and say its load.

    python3 bench/depcost.py
    python3 bench/depcost.py --runs 30
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "github.com/moot-dev/moot"


def modules():
    """modules returns the module paths of the build, moot's first, the
    longest first among the rest so that a prefix does not take another's
    symbols."""
    out = subprocess.run(["go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./cmd/moot"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    mods = sorted({m for m in out.split() if m and m != MODULE}, key=len, reverse=True)
    return [MODULE] + mods


def sections(binary):
    """sections returns each ELF section's size and address by name."""
    out = subprocess.run(["size", "-A", binary], check=True, capture_output=True, text=True).stdout
    secs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[0].startswith("."):
            secs[f[0]] = (int(f[1]), int(f[2]))
    return secs


def owner(name, mods):
    """owner returns the module a symbol's name names first, or None; the
    standard library's vendored copies (vendor/golang.org/x/net...) are
    the standard library's."""
    best = None
    for m in mods:
        i = name.find(m)
        while i >= 0 and name[max(0, i - 7):i] == "vendor/":
            i = name.find(m, i + 1)
        if i >= 0 and (best is None or i < best[0]):
            best = (i, m)
    return best[1] if best else None


def binary_cost(binary, mods):
    secs = sections(binary)
    bss = min(secs[s][1] for s in (".bss", ".noptrbss") if s in secs)
    code = collections.Counter()
    data = collections.Counter()
    out = subprocess.run(["go", "tool", "nm", "-size", binary], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) < 4:
            continue
        addr, size, kind = int(f[0], 16), int(f[1]), f[2]
        if addr == 0 or addr >= bss:
            continue
        name = " ".join(f[3:]).replace("%2e", ".")
        m = owner(name, mods) or "standard library and unnamed"
        (code if kind in "Tt" else data)[m] += size
    pcln = secs.get(".gopclntab", (0, 0))[0]
    total_code = sum(code.values())
    return {m: code[m] + data[m] + pcln * code[m] / total_code for m in set(code) | set(data)}


def init_cost(binary, mods, runs):
    allocs = collections.Counter()
    nbytes = collections.Counter()
    least = {}
    pattern = re.compile(r"init (\S+) @\S+ ms, ([\d.]+) ms clock, (\d+) bytes, (\d+) allocs")
    env = dict(os.environ, GODEBUG="inittrace=1")
    for run in range(runs):
        p = subprocess.run([binary, "--help"], env=env, capture_output=True, text=True)
        for line in p.stderr.splitlines():
            m = pattern.match(line)
            if not m:
                continue
            pkg = m.group(1)
            least[pkg] = min(least.get(pkg, float("inf")), float(m.group(2)))
            if run == 0:
                mod = owner(pkg, mods) or "standard library and unnamed"
                nbytes[mod] += int(m.group(3))
                allocs[mod] += int(m.group(4))
    ms = collections.Counter()
    for pkg, t in least.items():
        ms[owner(pkg, mods) or "standard library and unnamed"] += t
    return ms, allocs, nbytes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    mods = modules()
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "moot")
        subprocess.run(["go", "build", "-trimpath", "-o", binary, "./cmd/moot"], cwd=ROOT, check=True,
                       env=dict(os.environ, CGO_ENABLED="0"))
        size = os.path.getsize(binary)
        sizes = binary_cost(binary, mods)
        ms, allocs, nbytes = init_cost(binary, mods, args.runs)
    rows = sorted(set(sizes) | set(ms), key=lambda m: -sizes.get(m, 0))
    if args.json:
        json.dump({"binary_bytes": size, "load": os.getloadavg(), "modules": [
            {"module": m, "bytes": round(sizes.get(m, 0)), "init_allocs": allocs[m], "init_bytes": nbytes[m],
             "init_ms": round(ms[m], 3)} for m in rows]}, sys.stdout, indent=2)
        print()
        return
    print(f"binary {size / 1e6:.1f} MB; load {os.getloadavg()[0]:.1f}; init times the least of {args.runs} runs")
    for m in rows:
        print(f"{sizes.get(m, 0) / 1e6:7.2f} MB  init {allocs[m]:5d} allocs {nbytes[m] / 1024:7.1f} KB {ms[m]:6.3f} ms  {m}")


if __name__ == "__main__":
    main()
