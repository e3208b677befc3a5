#!/usr/bin/env python3
"""Run the peers (and optionally Perimeter) on the benchmark workloads, check
that they agree on every (fix, condition) containment, and print a table.

Usage (from the repository root)::

    python3 Benchmarks/peers/compare.py [--work .build/workloads] [--fixes N | --quick]
        [--repeat R] [--workloads LIST] [--perimeter CMD [--per-point]]
        [--tg DIR [--tg-index ystripes|natural|none]] [--json FILE]

* Generates the workloads with ``Benchmarks/workloads/generate.py`` when
  ``--work`` has no ``manifest.json`` or was generated with other arguments.
* Builds the C peer into ``.build/peers/geos_peer`` (gcc, GEOS from
  ``geos-config``) when the binary is missing or older than its source.
* With ``--tg DIR`` (a copy of tidwall/tg's source, never committed here)
  builds ``.build/peers/tg_peer`` from ``DIR/tg.c`` and ``tg_peer.c``, has the
  generator add tg's test shapes (single polygons ``tg-ri``, ``tg-az``,
  ``tg-tx``, ``tg-bc``, ``tg-br``; ``random-10000`` is always there), and runs
  P3 (tg, one ``tg_geom_intersects_xy`` call per point) on the single
  polygons.
* Runs, for every workload, P1 (``geos_peer``), P2 (``shapely_peer.py``) and,
  with ``--perimeter CMD``, Perimeter (its batch query, or one call per point
  with ``--per-point``; on the rows P3 runs, both).  Each prints one JSON line
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
single (all single polygons), single:NAME, tg (random-10000 and the tg-*
polygons), beacons, beacons-dict (P2's pure-Python dict matcher; P1's numbers
are those of the beacons row).  Default: all of them.

With ``--tg`` a second table follows, one row per single polygon: P3's and
Perimeter's throughput (batch and one call per point), build time and index
bytes, and their ratios.
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
P3_SOURCE = os.path.join(HERE, "tg_peer.c")
P3_BINARY = os.path.join(REPO, ".build", "peers", "tg_peer")
# The single polygons P3 is about: tg's benchmark's random polygon, always generated, and tg's test
# shapes, generated from the --tg copy.
RANDOM_SINGLES = ["random-10000"]
TG_SINGLES = ["tg-ri", "tg-az", "tg-tx", "tg-bc", "tg-br"]

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
        # A directory from before random-10000, or without tg's shapes when --tg asks for them, is
        # generated again (the other files come out byte-identical).
        needed = RANDOM_SINGLES + (TG_SINGLES if a.tg else [])
        missing = [n for n in needed if n not in manifest.get("single", {})]
        if all(have.get(k) == v for k, v in wanted.items()) and not have.get("no_single") and not missing:
            return manifest
        reason = f"lacks {', '.join(missing)}" if missing else "was generated with other arguments"
        print(f"compare: {a.work} {reason}; regenerating", file=sys.stderr)
    cmd = [sys.executable, GENERATOR, "--out", a.work]
    for k, v in wanted.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    if a.tg:
        cmd += ["--tg", a.tg]
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


def build_p3(tg_dir: str) -> str:
    """tg_peer from the caller's copy of tg (DIR/tg.c, DIR/tg.h) and tg_peer.c; rebuilt when either
    is newer than the binary or the binary was built from another DIR (recorded beside it)."""
    tg_c, tg_h = os.path.join(tg_dir, "tg.c"), os.path.join(tg_dir, "tg.h")
    if not (os.path.exists(tg_c) and os.path.exists(tg_h)):
        die(f"--tg {tg_dir}: no tg.c and tg.h there (extract tidwall/tg's source into it)")
    stamp = P3_BINARY + ".source"
    sources = [P3_SOURCE, tg_c, tg_h]
    if (os.path.exists(P3_BINARY) and os.path.exists(stamp)
            and all(os.path.getmtime(P3_BINARY) >= os.path.getmtime(f) for f in sources)):
        with open(stamp) as f:
            if f.read().strip() == tg_dir:
                return P3_BINARY
    os.makedirs(os.path.dirname(P3_BINARY), exist_ok=True)
    # -ffp-contract=off: tg's arithmetic as its portable build does it (no fused multiply-adds).
    cmd = ["gcc", "-O2", "-march=native", "-ffp-contract=off", "-I", tg_dir, "-o", P3_BINARY, tg_c, P3_SOURCE, "-lm"]
    print("compare: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    with open(stamp, "w") as f:
        f.write(tg_dir + "\n")
    return P3_BINARY


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
        elif w == "tg":
            rows += [("single:" + n, ["single", n]) for n in RANDOM_SINGLES + TG_SINGLES if n in singles]
        elif w in ("circles", "polygons", "mixed", "beacons", "beacons-dict"):
            rows.append((w, [w]))
        elif w in ("circles-state", "polygons-state", "mixed-state", "beacons-state"):
            # Perimeter with state (accuracy margins, per-device state machines, events) against the
            # peers' stateless containment of the same records; the hash still checks agreement.
            rows.append((w, [w]))
        else:
            die(f"unknown workload {w!r} (choose from {', '.join(ALL_WORKLOADS)}, tg or single:NAME)")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Compare P1 (GEOS C), P2 (shapely), P3 (tg) and Perimeter.",
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
    p.add_argument("--per-point", action="store_true",
                   help="Perimeter makes one query call per point or sighting (P1's and P3's way) "
                   "instead of one batch call")
    p.add_argument("--tg", metavar="DIR", help="a copy of tidwall/tg's source: adds P3 (tg) on the "
                   "single polygons, and tg's test shapes to the workload")
    p.add_argument("--tg-index", default="ystripes", choices=["ystripes", "natural", "none"],
                   help="P3's ring index (default ystripes, what tg's README benchmarks)")
    p.add_argument("--no-p2", action="store_true", help="skip the shapely peer")
    p.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    a = p.parse_args(argv)
    if a.quick:
        a.fixes = 100_000
    a.work = os.path.abspath(a.work)
    if a.tg:
        a.tg = os.path.abspath(a.tg)

    try:
        import shapely  # noqa: F401
    except ImportError:
        die("shapely is missing: pip install shapely numpy")

    manifest = ensure_workloads(a)
    p1 = build_p1()
    p3 = build_p3(a.tg) if a.tg else None
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
        with_p3 = p3 is not None and args[0] == "single"
        if with_p3:
            r["P3"] = run_peer("P3", [p3, "single", a.work, args[1], "--index", a.tg_index, *repeat])
        if perimeter and args != ["beacons-dict"]:
            per_point = ["--per-point"] if a.per_point else []
            r["Perimeter"] = run_peer("Perimeter", [*perimeter, args[0], a.work, *args[1:], *repeat, *per_point])
            if with_p3:
                # P3 has only one call per point; its table puts it next to both of Perimeter's ways.
                other = "Perimeter batch" if a.per_point else "Perimeter per-point"
                r[other] = run_peer(other, [*perimeter, args[0], a.work, *args[1:], *repeat,
                                            *([] if a.per_point else ["--per-point"])])
        # Agreement.
        done = [(k, v) for k, v in r.items() if k != "workload" and isinstance(v, dict)]
        errors = [v for k, v in r.items() if k != "workload" and isinstance(v, str) and v != "n/a"]
        mismatch = []
        for k, v in done:
            if k.startswith("Perimeter") and v.get("peer") != "Perimeter":
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

    print_table(results, perimeter is not None, not a.no_p2, p3 is not None)
    if p3 is not None:
        print()
        print_p3_table(results, manifest, perimeter is not None, a.per_point)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"work": a.work, "manifest": manifest, "perimeter_per_point": a.per_point,
                       "tg_index": a.tg_index if a.tg else None, "results": results}, f, indent=1)
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


def print_markdown(lines) -> None:
    """A Markdown table: the first column left-aligned, the others right-aligned."""
    head = lines[0]
    widths = [max(len(str(l[i])) for l in lines) for i in range(len(head))]
    print("| " + " | ".join(str(c).ljust(w) for c, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")
    for l in lines[1:]:
        print("| " + " | ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                                for i, (c, w) in enumerate(zip(l, widths))) + " |")


def print_table(results, with_perimeter: bool, with_p2: bool, with_p3: bool = False) -> None:
    peers = ["P1"] + (["P2"] if with_p2 else []) + (["P3"] if with_p3 else [])
    head = ["workload", "fixes", "conditions", "containments"] + [f"{p} M fixes/s" for p in peers]
    if with_perimeter:
        head += ["Perimeter M fixes/s"] + [f"Perimeter/{p}" for p in peers]
    lines = [head]
    for r in results:
        ref = next((v for k, v in r.items() if k in ("P1", "P2", "P3", "Perimeter") and isinstance(v, dict)), {})
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

        row += [cell(p) for p in peers]
        if with_perimeter:
            row.append(cell("Perimeter"))
            pr = rate(r.get("Perimeter"))
            for other in peers:
                o = rate(r.get(other))
                row.append("—" if bad or pr is None or o is None else f"{pr / o:.2f}×")
        lines.append(row)
    print_markdown(lines)


def print_p3_table(results, manifest: dict, with_perimeter: bool, per_point: bool) -> None:
    """The rows P3 ran: throughput of P3 (one call per point) against Perimeter's batch query and
    Perimeter one call per point; build time and index bytes, and Perimeter's multiple of P3's
    (speed: Perimeter/P3, above 1× = Perimeter faster; build and bytes: Perimeter ÷ P3, above 1× =
    Perimeter slower or bigger). The build ratio is against P3's build from coordinates, as
    Perimeter's excludes reading its file; P3's parse+build (tg_parse_wkt_ix) is shown beside it,
    with the ratio to it too (``build ×P3 p+b``)."""
    head = ["polygon", "vertices", "P3 M pts/s"]
    if with_perimeter:
        head += ["Perimeter batch M pts/s", "Perimeter 1/call M pts/s", "batch/P3", "1/call/P3"]
    head += ["P3 parse+build ms", "P3 build ms"]
    if with_perimeter:
        head += ["Perimeter build ms", "build ×P3", "build ×P3 p+b"]
    head += ["P3 index bytes"]
    if with_perimeter:
        head += ["Perimeter index bytes", "bytes ×P3"]
    lines = [head]
    batch_key, one_key = ("Perimeter batch", "Perimeter") if per_point else ("Perimeter", "Perimeter per-point")
    for r in results:
        p3 = r.get("P3")
        if p3 is None:
            continue
        name = r["workload"].split(":", 1)[1]
        vertices = manifest.get("single", {}).get(name, {}).get("vertices")
        bad = bool(r["mismatch"])
        batch, one = r.get(batch_key), r.get(one_key)
        built = batch if isinstance(batch, dict) else one  # the build is the same either way

        def num(v, field, scale, fmt):
            if bad:
                return "MISMATCH"
            if not isinstance(v, dict) or v.get(field) is None:
                return "—"
            return fmt.format(v[field] * scale)

        def speed(v):
            x = rate(v)
            return "MISMATCH" if bad else ("—" if x is None else f"{x:.3f}")

        def ratio(x, y):
            return "—" if bad or x is None or y is None or y == 0 else f"{x / y:.2f}×"

        def field(v, f):
            return v.get(f) if isinstance(v, dict) else None

        row = [name, f"{vertices:,}" if vertices is not None else "?", speed(p3)]
        if with_perimeter:
            row += [speed(batch), speed(one), ratio(rate(batch), rate(p3)), ratio(rate(one), rate(p3))]
        row += [num(p3, "parse_build_seconds", 1e3, "{:.3f}"), num(p3, "build_seconds", 1e3, "{:.3f}")]
        if with_perimeter:
            row += [num(built, "build_seconds", 1e3, "{:.3f}"),
                    ratio(field(built, "build_seconds"), field(p3, "build_seconds")),
                    ratio(field(built, "build_seconds"), field(p3, "parse_build_seconds"))]
        row.append(num(p3, "index_bytes", 1, "{:,.0f}"))
        if with_perimeter:
            row += [num(built, "index_bytes", 1, "{:,.0f}"),
                    ratio(field(built, "index_bytes"), field(p3, "index_bytes"))]
        lines.append(row)
    if len(lines) > 1:
        index = next((r["P3"].get("index") for r in results if isinstance(r.get("P3"), dict)), "?")
        print(f"P3 = tg, {index} index, one tg_geom_intersects_xy call per point; build = from coordinates, "
              "best of the runs")
        print_markdown(lines)


if __name__ == "__main__":
    sys.exit(main())
