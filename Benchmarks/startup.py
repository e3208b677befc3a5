#!/usr/bin/env python3
"""Start-up (issue 40): `perimeter evaluate` from start to exit on the first record of the fixes, so
that the run is reading and indexing the conditions (10k circles + 10k polygons, `mixed`), against
the same run with `--index-cache` (made before the rounds, so each round loads it), and optionally
against another build of the tool (`--baseline BIN`, e.g. one built before the cache existed).
Rounds alternate the runs, so that a noisy machine slows each alike; the table gives each one's runs,
wall and CPU, and the ratios of the medians.

Usage::

    python3 Benchmarks/startup.py [--rounds 10] [--work .build/workloads-text]
                                  [--perimeter .build/release/perimeter] [--baseline BIN]
                                  [--conditions mixed.geojson]

The workload directory is the generator's text workload::

    python3 Benchmarks/workloads/generate.py --out .build/workloads-text --text --no-single
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"startup: {' '.join(command)} failed: {done.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--work", default=os.path.join(REPO, ".build", "workloads-text"))
    parser.add_argument("--perimeter", default=os.path.join(REPO, ".build", "release", "perimeter"))
    parser.add_argument("--baseline", help="another build of the tool, run the same way without the cache")
    parser.add_argument("--conditions", default="mixed.geojson")
    a = parser.parse_args()
    conditions = os.path.join(a.work, a.conditions)
    for path in [conditions, os.path.join(a.work, "fixes.csv"), a.perimeter] + ([a.baseline] if a.baseline else []):
        if not os.path.exists(path):
            sys.exit(f"startup: {path} is missing (see --help for how to make the workload)")

    with tempfile.TemporaryDirectory() as scratch:
        first = os.path.join(scratch, "first.csv")
        with open(os.path.join(a.work, "fixes.csv")) as source, open(first, "w") as out:
            out.write(source.readline() + source.readline())
        cache = os.path.join(scratch, "conditions.index-cache")

        def command(binary: str, cached: bool) -> list[str]:
            return ([binary, "evaluate", "--conditions", conditions, "--observations", first, "--out", "/dev/null",
                     "--summary", os.devnull] + (["--index-cache", cache] if cached else []))

        runs = {"baseline": [], "built": [], "cached": []}
        run(command(a.perimeter, True))  # makes the cache
        for _ in range(a.rounds):
            if a.baseline:
                runs["baseline"].append(run(command(a.baseline, False)))
            runs["built"].append(run(command(a.perimeter, False)))
            runs["cached"].append(run(command(a.perimeter, True)))
        cache_bytes = os.path.getsize(cache)

    def cell(values: list[float]) -> str:
        return " ".join(f"{v:.3f}" for v in sorted(values))

    names = {"baseline": f"`{a.baseline}` (no cache)", "built": "`perimeter evaluate`, conditions read and indexed",
             "cached": "`perimeter evaluate --index-cache`, conditions loaded"}
    print(f"{conditions}, first record, {a.rounds} alternating rounds, cores: {os.cpu_count()}, cache {cache_bytes / 1e6:.1f} MB")
    print("| run | wall (s) | median | CPU median (s) |")
    print("|---|---|---:|---:|")
    medians = {}
    for key, values in runs.items():
        if not values:
            continue
        wall = [w for w, _ in values]
        medians[key] = statistics.median(wall)
        print(f"| {names[key]} | {cell(wall)} | {medians[key]:.3f} | {statistics.median([c for _, c in values]):.3f} |")
    print(f"\nthe cache loads {medians['built'] / medians['cached']:.2f}× faster than reading and indexing")
    if "baseline" in medians:
        print(f"and {medians['baseline'] / medians['cached']:.2f}× faster than the baseline build")
    return 0


if __name__ == "__main__":
    sys.exit(main())
