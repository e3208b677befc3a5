#!/usr/bin/env python3
"""Run the peers (and optionally Perimeter) on the benchmark workloads, check
that they agree on every (fix, condition) containment, and print a table.

Usage (from the repository root)::

    python3 Benchmarks/peers/compare.py [--work .build/workloads] [--fixes N | --quick]
        [--repeat R] [--workloads LIST] [--perimeter CMD] [--json FILE]

* Generates the workloads with ``Benchmarks/workloads/generate.py`` when
  ``--work`` has no ``manifest.json`` or was generated with other arguments.
* Builds the C peer into ``.build/peers/geos_peer`` (gcc, GEOS from
  ``geos-config``) when the binary is missing or older than its source.
* Runs, for every workload, P1 (``geos_peer``), P2 (``shapely_peer.py``) and,
  with ``--perimeter CMD``, Perimeter.  Each prints one JSON line
  ``{"peer":..,"mode":..,"fixes":N,"conditions":M,"seconds":S,
  "build_seconds":B,"containments":K,"hash":H}``; the last line of standard
  output that parses as JSON is used.  Perimeter's command is run as
  ``CMD MODE WORKDIR [NAME]`` (plus ``--repeat R`` when R > 1), the same
  arguments as the peers; MODE is circles, polygons, mixed, single (NAME is
  the polygon's name) or beacons.  An exit status of 3 means "mode not
  supported" and shows as n/a.
* Every peer's fixes, conditions, containments and hash must be equal, or the
  row prints MISMATCH (no throughput or ratio is printed for it) and the
  script exits 1 after the table.

``--workloads`` is a comma-separated subset of: circles, polygons, mixed,
single (all single polygons), single:NAME, beacons, beacons-dict (P2's
pure-Python dict matcher; P1's numbers are those of the beacons row).
Default: all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GENERATOR = os.path.join(REPO, "Benchmarks", "workloads", "generate.py")
P1_SOURCE = os.path.join(HERE, "geos_peer.c")
P2_SCRIPT = os.path.join(HERE, "shapely_peer.py")
P1_BINARY = os.path.join(REPO, ".build", "peers", "geos_peer")

ALL_WORKLOADS = ["circles", "polygons", "mixed", "mixed-state", "single", "beacons", "beacons-state", "beacons-dict"]


def die(message: str) -> None:
    print(f"compare: {message}", file=sys.stderr)
    sys.exit(2)


def generator_arguments(a) -> dict:
    n = a.fixes
    return {"circles": a.circles, "polygons": a.polygons, "fixes": n, "devices": a.devices,
            "beacons": a.beacons, "sightings": n, "points": n, "uuids": a.uuids,
            "area_km": float(a.area_km), "seed": a.seed}


def ensure_workloads(a) -> dict:
    wanted = generator_arguments(a)
    manifest_path = os.path.join(a.work, "manifest.json")
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        have = manifest.get("arguments", {})
        if all(have.get(k) == v for k, v in wanted.items()) and not have.get("no_single"):
            return manifest
        print(f"compare: {a.work} was generated with other arguments; regenerating", file=sys.stderr)
    cmd = [sys.executable, GENERATOR, "--out", a.work]
    for k, v in wanted.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    print("compare: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    print(f"compare: generated in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    with open(manifest_path) as f:
        return json.load(f)


def build_p1() -> str:
    if os.path.exists(P1_BINARY) and os.path.getmtime(P1_BINARY) >= os.path.getmtime(P1_SOURCE):
        return P1_BINARY
    if not shutil.which("geos-config"):
        die("geos-config not found: apt-get install -y libgeos-dev")
    libs = subprocess.run(["geos-config", "--clibs"], check=True, capture_output=True, text=True).stdout.split()
    cflags = subprocess.run(["geos-config", "--cflags"], check=True, capture_output=True, text=True).stdout.split()
    os.makedirs(os.path.dirname(P1_BINARY), exist_ok=True)
    cmd = ["gcc", "-O2", "-march=native", "-ffp-contract=off", *cflags, "-o", P1_BINARY, P1_SOURCE, *libs, "-lm"]
    print("compare: " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    return P1_BINARY


def last_json_line(text: str):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    return None


def run_peer(label: str, cmd: list[str]):
    """Returns the peer's JSON result, "n/a" (exit 3), or an error string."""
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode == 3:
        return "n/a"
    result = last_json_line(p.stdout)
    if p.returncode != 0 or result is None:
        sys.stderr.write(p.stderr)
        return f"{label} failed (exit {p.returncode}): {' '.join(shlex.quote(c) for c in cmd)}"
    result["wall_seconds"] = round(wall, 3)
    return result


def rows_for(selection: list[str], manifest: dict):
    singles = list(manifest.get("single", {}).keys())
    rows = []
    for w in selection:
        if w == "single":
            rows += [("single:" + n, ["single", n]) for n in singles]
        elif w.startswith("single:"):
            name = w.split(":", 1)[1]
            if name not in singles:
                die(f"no single polygon {name!r} in the workload (have {', '.join(singles)})")
            rows.append((w, ["single", name]))
        elif w in ("circles", "polygons", "mixed", "beacons", "beacons-dict"):
            rows.append((w, [w]))
        elif w in ("circles-state", "polygons-state", "mixed-state", "beacons-state"):
            # Perimeter with state (accuracy margins, per-device state machines, events) against the
            # peers' stateless containment of the same records; the hash still checks agreement.
            rows.append((w, [w]))
        else:
            die(f"unknown workload {w!r} (choose from {', '.join(ALL_WORKLOADS)} or single:NAME)")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Compare P1 (GEOS C), P2 (shapely) and Perimeter.",
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--work", default=os.path.join(".build", "workloads"), help="workload directory")
    p.add_argument("--fixes", type=int, default=1_000_000,
                   help="fixes, and also sightings and points per single polygon (default 1M)")
    p.add_argument("--quick", action="store_true", help="100k fixes/sightings/points")
    p.add_argument("--circles", type=int, default=10_000)
    p.add_argument("--polygons", type=int, default=10_000)
    p.add_argument("--beacons", type=int, default=100_000)
    p.add_argument("--devices", type=int, default=10_000)
    p.add_argument("--uuids", type=int, default=64)
    p.add_argument("--area-km", type=float, default=50.0)
    p.add_argument("--seed", type=int, default=20260301)
    p.add_argument("--repeat", type=int, default=1, help="best of R timed runs inside each peer")
    p.add_argument("--workloads", default=",".join(ALL_WORKLOADS))
    p.add_argument("--perimeter", metavar="CMD", help="command printing Perimeter's JSON line")
    p.add_argument("--no-p2", action="store_true", help="skip the shapely peer")
    p.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    a = p.parse_args(argv)
    if a.quick:
        a.fixes = 100_000
    a.work = os.path.abspath(a.work)

    try:
        import shapely  # noqa: F401
    except ImportError:
        die("shapely is missing: pip install shapely numpy")

    manifest = ensure_workloads(a)
    p1 = build_p1()
    rows = rows_for([w.strip() for w in a.workloads.split(",") if w.strip()], manifest)
    perimeter = shlex.split(a.perimeter) if a.perimeter else None

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    print(f"compare: {os.cpu_count()} CPUs, load average {load:.2f} at start"
          + ("  (other work is running: timings will be noisy)" if load > 0.5 else ""), file=sys.stderr)

    repeat = ["--repeat", str(a.repeat)] if a.repeat > 1 else []
    results = []
    p1_cache = {}
    failed = False
    for label, args in rows:
        peer_args = [args[0][:-len("-state")]] + args[1:] if args[0].endswith("-state") else args
        p1_args = ["beacons"] if peer_args == ["beacons-dict"] else peer_args
        key = tuple(p1_args)
        if key not in p1_cache:
            p1_cache[key] = run_peer("P1", [p1, p1_args[0], a.work, *p1_args[1:], *repeat])
        r = {"workload": label, "P1": p1_cache[key]}
        if not a.no_p2:
            r["P2"] = run_peer("P2", [sys.executable, P2_SCRIPT, peer_args[0], a.work, *peer_args[1:], *repeat])
        if perimeter and args != ["beacons-dict"]:
            r["Perimeter"] = run_peer("Perimeter", [*perimeter, args[0], a.work, *args[1:], *repeat])
        # Agreement.
        done = [(k, v) for k, v in r.items() if k != "workload" and isinstance(v, dict)]
        errors = [v for k, v in r.items() if k != "workload" and isinstance(v, str) and v != "n/a"]
        mismatch = []
        for k, v in done:
            if k == "Perimeter" and v.get("peer") != "Perimeter":
                mismatch.append(f'{k} printed "peer":{v.get("peer")!r}')
        if done:
            ref_name, ref = done[0]
            for k, v in done[1:]:
                for field in ("fixes", "conditions", "containments", "hash"):
                    if v.get(field) != ref.get(field):
                        mismatch.append(f"{field}: {ref_name}={ref.get(field)} {k}={v.get(field)}")
        r["mismatch"] = mismatch
        r["errors"] = errors
        if mismatch or errors:
            failed = True
        results.append(r)
        status = "MISMATCH " + "; ".join(mismatch) if mismatch else ("ERROR " + "; ".join(errors) if errors else "ok")
        times = "  ".join(f"{k} {v['seconds']:.3f}s" for k, v in done)
        print(f"compare: {label:22s} {status:4s}  {times}", file=sys.stderr)

    print_table(results, perimeter is not None, not a.no_p2)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"work": a.work, "manifest": manifest, "results": results}, f, indent=1)
    for r in results:
        for m in r["mismatch"]:
            print(f"\n*** MISMATCH in {r['workload']}: {m} ***")
        for e in r["errors"]:
            print(f"\n*** ERROR in {r['workload']}: {e} ***", file=sys.stderr)
    return 1 if failed else 0


def rate(v) -> float | None:
    if isinstance(v, dict) and v.get("seconds", 0) > 0:
        return v["fixes"] / v["seconds"] / 1e6
    return None


def print_table(results, with_perimeter: bool, with_p2: bool) -> None:
    head = ["workload", "fixes", "conditions", "containments", "P1 M fixes/s"]
    if with_p2:
        head.append("P2 M fixes/s")
    if with_perimeter:
        head += ["Perimeter M fixes/s", "Perimeter/P1"]
        if with_p2:
            head.append("Perimeter/P2")
    lines = [head]
    for r in results:
        ref = next((v for k, v in r.items() if k in ("P1", "P2", "Perimeter") and isinstance(v, dict)), {})
        row = [r["workload"], f"{ref.get('fixes', '?'):,}" if ref else "?",
               f"{ref.get('conditions', '?'):,}" if ref else "?",
               f"{ref.get('containments', '?'):,}" if ref else "?"]
        bad = bool(r["mismatch"])

        def cell(name):
            v = r.get(name)
            if v is None:
                return "—"
            if v == "n/a":
                return "n/a"
            if isinstance(v, str):
                return "ERROR"
            return "MISMATCH" if bad else f"{rate(v):.3f}"

        row.append(cell("P1"))
        if with_p2:
            row.append(cell("P2"))
        if with_perimeter:
            row.append(cell("Perimeter"))
            pr = rate(r.get("Perimeter"))
            for other in (["P1", "P2"] if with_p2 else ["P1"]):
                o = rate(r.get(other))
                row.append("—" if bad or pr is None or o is None else f"{pr / o:.2f}×")
        lines.append(row)
    widths = [max(len(str(l[i])) for l in lines) for i in range(len(head))]
    print("| " + " | ".join(str(c).ljust(w) for c, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")
    for l in lines[1:]:
        print("| " + " | ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                                for i, (c, w) in enumerate(zip(l, widths))) + " |")


if __name__ == "__main__":
    sys.exit(main())
