#!/usr/bin/env python3
"""The tool's whole run against shapely's containment alone, on the same fixes (issue 40's end-to-end
row): `perimeter evaluate` from start to exit (reading and indexing the conditions, reading the
observations, evaluating with state, writing the events) against P2's vectorised containment of the
same 1M fixes in `mixed` (`Benchmarks/peers/shapely_peer.py`: STRtree queries and haversine, no
state, no I/O, its trees' build not counted). Rounds alternate the two, so that a noisy machine slows
both alike; the table gives each one's runs, the ratio of the medians and each round's own ratio.

Usage::

    python3 Benchmarks/end_to_end.py [--rounds 5] [--work .build/workloads-text]
                                     [--perimeter .build/release/perimeter] [--input csv|jsonl]
                                     [--index-cache]

The workload directory is the generator's text workload, with the binary files shapely reads and the
text files the tool reads made from the same draw::

    python3 Benchmarks/workloads/generate.py --out .build/workloads-text --text --no-single

and the tool is the README's release build (`swift build -c release --static-swift-stdlib --product
perimeter`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_tool(perimeter: str, work: str, observations: str, cache: str | None = None) -> float:
    """Wall seconds of one whole `perimeter evaluate`, events to /dev/null; with `cache`, its
    `--index-cache` (made before the rounds, so each round loads it)."""
    command = [perimeter, "evaluate", "--conditions", os.path.join(work, "mixed.geojson"),
               "--observations", observations, "--assume", "unsatisfied", "--out", "/dev/null"]
    command += ["--index-cache", cache] if cache else []
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"end_to_end: {' '.join(command)} failed: {done.stderr.strip()}")
    return seconds


def swift_runtime(perimeter: str) -> str:
    """How the tool was linked: the README's release build carries the Swift runtime inside it
    (`--static-swift-stdlib`), which is some 4 % faster than linking the shared one."""
    try:
        linked = subprocess.run(["ldd", perimeter], capture_output=True, text=True).stdout
    except OSError:
        return "unknown"
    return "shared (not built as the README says)" if "libswiftCore" in linked else "inside the binary"


def run_shapely(work: str) -> dict:
    """P2's result line for `mixed`: its `seconds` is the containment query alone."""
    command = [sys.executable, os.path.join(REPO, "Benchmarks", "peers", "shapely_peer.py"), "mixed", work]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"end_to_end: {' '.join(command)} failed: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", default=os.path.join(REPO, ".build", "workloads-text"))
    parser.add_argument("--perimeter", default=os.path.join(REPO, ".build", "release", "perimeter"))
    parser.add_argument("--input", choices=["csv", "jsonl"], default="csv")
    parser.add_argument("--index-cache", action="store_true",
                        help="also time the whole run with the conditions loaded from an index cache (made first, under --work)")
    a = parser.parse_args()
    observations = os.path.join(a.work, "fixes.csv" if a.input == "csv" else "fixes.jsonl")
    for path in [observations, os.path.join(a.work, "mixed.geojson"), os.path.join(a.work, "fixes.bin"), a.perimeter]:
        if not os.path.exists(path):
            sys.exit(f"end_to_end: {path} is missing (see --help for how to make the workload)")

    tool, cached, query, build = [], [], [], []
    fixes = None
    cache = os.path.join(a.work, "mixed.index-cache") if a.index_cache else None
    if cache:
        run_tool(a.perimeter, a.work, observations, cache)  # makes (or refreshes) the cache
    for _ in range(a.rounds):
        tool.append(run_tool(a.perimeter, a.work, observations))
        if cache:
            cached.append(run_tool(a.perimeter, a.work, observations, cache))
        line = run_shapely(a.work)
        fixes = line["fixes"]
        query.append(line["seconds"])
        build.append(line["build_seconds"])

    def cell(values: list[float]) -> str:
        return " ".join(f"{v:.3f}" for v in sorted(values))

    t, q = statistics.median(tool), statistics.median(query)
    print(f"{fixes:,} fixes against {a.work}/mixed.geojson ({a.input}), {a.rounds} rounds, cores: {os.cpu_count()}, "
          f"the tool's Swift runtime: {swift_runtime(a.perimeter)}")
    print(f"| | runs (s) | median | M fixes/s |")
    print(f"|---|---|---:|---:|")
    print(f"| `perimeter evaluate`, the whole run | {cell(tool)} | {t:.3f} s | {fixes / t / 1e6:.2f} |")
    if cached:
        c = statistics.median(cached)
        print(f"| `perimeter evaluate --index-cache`, the whole run | {cell(cached)} | {c:.3f} s | {fixes / c / 1e6:.2f} |")
    print(f"| shapely 2, containment alone (its trees' build: {statistics.median(build):.3f} s, not counted) "
          f"| {cell(query)} | {q:.3f} s | {fixes / q / 1e6:.2f} |")
    # Each round's own ratio too: a round's runs are seconds apart, so a slow spell of the machine
    # weighs on both sides of it, where it may fall on one side only of the medians.
    def rounds(runs: list[float]) -> str:
        ratios = sorted(s / r for s, r in zip(query, runs))
        return f"rounds {min(ratios):.2f}–{max(ratios):.2f}×, median {statistics.median(ratios):.2f}×"

    print(f"\nthe tool's whole run is {q / t:.2f}× shapely's containment alone ({rounds(tool)})")
    if cached:
        print(f"with the index cache, {q / statistics.median(cached):.2f}× shapely's containment alone ({rounds(cached)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
