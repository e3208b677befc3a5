#!/usr/bin/env python3
"""Conditions per device (SPEC 5.6): a workload in which every device watches private circles of
its own besides a few shared ones, and a baseline of shared circles only (`Benchmarks/audiences.sh`).

    python3 Benchmarks/workloads/audiences.py --out DIR [--devices 100000] [--fixes 10000000]
        [--private 20] [--shared 1000] [--baseline 20000] [--offset 3] [--area-km 50] [--seed 20260301]

Writes into DIR:

* ``fixes.csv``          the stream: ``--fixes`` fixes of ``--devices`` devices, exactly as
                         ``generate.py --text --devices N --fixes F --seed S`` writes its fixes.csv
                         (same walk, same random stream, same bytes): CSV ``type,device,t,lat,lon,
                         accuracy``, one fix a device a second in one shuffled device order,
                         devices ``d<i>``, unix times with milliseconds, 1-30 m/s walkers in the
                         50 km square centred on Paris, accuracy 5-65 m.
* ``shared.geojson``     the baseline: ``--baseline`` circles (ids ``s<k>``, radius 50-500 m)
                         uniform over the square, no ``devices`` property.  They are the circles of
                         ``generate.py --circles 20000`` (same stream), under other ids.
* ``audiences.geojson``  the first ``--shared`` of those circles (same ids and geometry), then for
                         every device ``d<i>`` ``--private`` circles with ids ``p<i>-<k>`` and
                         ``"properties": {"radius": R, "devices": ["d<i>"]}``, R uniform 50-500 m,
                         each centred near the device's own track: at its position at a random
                         second of the stream, moved in a random direction by a distance uniform in
                         0-3 R (``--offset``).  With 100 fixes a device (1-30 m/s for 100 s), about
                         96 % of the fixes fall inside at least one of their device's circles, ~4
                         of them on average (against ~2.3 of the 20k shared circles).
* ``manifest.json``      the arguments, counts, seconds taken, and how many fixes fall inside
                         their own device's private circles.

Deterministic: numpy PCG64 ``default_rng([seed, part])`` per part, uniform doubles only, as
generate.py (whose helpers it imports).  Needs Python 3 and numpy.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import (METRES_PER_DEGREE, STREAM_CIRCLES, T0_SECONDS, Area, fix_walk,  # noqa: E402
                      random_unit_vectors, rng_for, uniform)

STREAM_PRIVATE = 21
CHUNK = 200_000  # records or features formatted per write


def walk(args, area: Area):
    """generate.py's generate_fixes, kept by device: returns (order, lat[seconds, devices],
    lon[seconds, devices], accuracy[n]) with the same random draws in the same order."""
    n, devices = args.fixes, args.devices
    rng, order, seconds, positions = fix_walk(args, area)
    track_lat = np.empty((seconds, devices))
    track_lon = np.empty((seconds, devices))
    for s, (lat, lon) in enumerate(positions):
        track_lat[s] = lat
        track_lon[s] = lon
    accuracy = uniform(rng, 5.0, 65.0, n)
    return order, track_lat, track_lon, accuracy


def time_texts(devices: int, seconds: int):
    """The text of every record time, as generate.unix_text: second, then '.mmm' without trailing
    zeros (nothing when the milliseconds are 0)."""
    ms = np.arange(devices, dtype=np.int64) * 1000 // devices
    frac = ["" if m == 0 else f".{m:03d}".rstrip("0") for m in range(1000)]
    return [str(T0_SECONDS + s) for s in range(seconds)], [frac[m] for m in ms.tolist()]


def write_fixes(path: str, args, order, track_lat, track_lon, accuracy) -> None:
    n, devices = args.fixes, args.devices
    seconds = track_lat.shape[0]
    second_text, rank_frac = time_texts(devices, seconds)
    names = [f"d{d}" for d in order.tolist()]  # by rank
    # Record k: second k // devices, rank k % devices, device order[rank].
    lat = track_lat[:, order].reshape(-1)[:n]
    lon = track_lon[:, order].reshape(-1)[:n]
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("type,device,t,lat,lon,accuracy\n")
        for start in range(0, n, CHUNK):
            stop = min(n, start + CHUNK)
            ks = range(start, stop)
            f.write("".join(
                f"fix,{names[k % devices]},{second_text[k // devices]}{rank_frac[k % devices]},{a!r},{o!r},{c!r}\n"
                for k, a, o, c in zip(ks, lat[start:stop].tolist(), lon[start:stop].tolist(),
                                      accuracy[start:stop].tolist())))


def circle_json(ident: str, lat: float, lon: float, radius: float, device: str | None = None) -> str:
    props = f'"radius":{radius!r}' + ("" if device is None else f',"devices":["{device}"]')
    return (f'{{"type":"Feature","id":"{ident}","properties":{{{props}}},'
            f'"geometry":{{"type":"Point","coordinates":[{lon!r},{lat!r}]}}}}')


def private_circles(args, area: Area, track_lat, track_lon):
    """For device i and k < private: centre near the track at a random second, radius 50-500 m.
    Arrays of shape (devices, private)."""
    rng = rng_for(args.seed, STREAM_PRIVATE)
    devices, m = args.devices, args.private
    seconds = track_lat.shape[0]
    count = devices * m
    radius = uniform(rng, 50.0, 500.0, count).reshape(devices, m)
    second = np.minimum((rng.random(count) * seconds).astype(np.int64), seconds - 1).reshape(devices, m)
    distance = rng.random(count).reshape(devices, m) * args.offset * radius
    ux, uy = random_unit_vectors(rng, count)
    ux, uy = ux.reshape(devices, m), uy.reshape(devices, m)
    device = np.arange(devices)[:, None]
    lat = track_lat[second, device] + distance * uy / METRES_PER_DEGREE
    lon = track_lon[second, device] + distance * ux / area.metres_per_degree_lon
    return lat, lon, radius


def own_coverage(args, area: Area, rank, track_lat, track_lon, p_lat, p_lon, p_radius):
    """How many of the stream's fixes fall inside at least one circle of their own device, and the
    mean number of own circles around a fix (local equirectangular distances)."""
    n, devices = args.fixes, args.devices
    seconds = track_lat.shape[0]
    inside_any = 0
    inside_sum = 0
    near_any = 0
    step = max(1, 4_000_000 // max(1, seconds * args.private))
    for d0 in range(0, devices, step):
        d1 = min(devices, d0 + step)
        # (seconds, devices in chunk, private)
        ny = (track_lat[:, d0:d1, None] - p_lat[None, d0:d1, :]) * METRES_PER_DEGREE
        ex = (track_lon[:, d0:d1, None] - p_lon[None, d0:d1, :]) * area.metres_per_degree_lon
        dist2 = ny * ny + ex * ex
        r = p_radius[None, d0:d1, :]
        inside = dist2 <= r * r
        near = dist2 <= (r + 200.0) ** 2
        inside_count = inside.sum(axis=2)
        # A device's fix at second s is in the stream when s * devices + its rank < n (the last
        # second may be partial).
        present = np.arange(seconds)[:, None] * devices + rank[None, d0:d1] < n
        inside_any += int(((inside_count > 0) & present).sum())
        inside_sum += int((inside_count * present).sum())
        near_any += int((near.any(axis=2) & present).sum())
    return {"fixes_inside_own": round(inside_any / n, 4),
            "fixes_within_200m_of_own": round(near_any / n, 4),
            "own_circles_per_fix": round(inside_sum / n, 3)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--devices", type=int, default=100_000)
    p.add_argument("--fixes", type=int, default=10_000_000)
    p.add_argument("--private", type=int, default=20, help="private circles per device")
    p.add_argument("--shared", type=int, default=1_000, help="shared circles in audiences.geojson")
    p.add_argument("--baseline", type=int, default=20_000, help="shared circles in shared.geojson")
    p.add_argument("--offset", type=float, default=3.0,
                   help="a private centre is up to this many radii from its device's track")
    p.add_argument("--area-km", type=float, default=50.0, help="side of the square area (km)")
    p.add_argument("--seed", type=int, default=20260301)
    args = p.parse_args(argv)
    if args.devices <= 0 or args.fixes <= 0 or args.private < 0:
        p.error("--devices and --fixes must be positive")
    if not 0 <= args.shared <= args.baseline:
        p.error("--shared must be between 0 and --baseline")
    os.makedirs(args.out, exist_ok=True)
    area = Area(args.area_km)
    manifest = {"generator": "Benchmarks/workloads/audiences.py", "version": 1,
                "arguments": {k: v for k, v in vars(args).items() if k != "out"},
                "numpy": np.__version__, "seconds_taken": {}}

    def step(name, fn):
        t = time.perf_counter()
        result = fn()
        manifest["seconds_taken"][name] = round(time.perf_counter() - t, 2)
        print(f"audiences: {name:10s} {time.perf_counter() - t:7.2f} s", file=sys.stderr)
        return result

    order, track_lat, track_lon, accuracy = step("walk", lambda: walk(args, area))
    rank = np.empty(args.devices, dtype=np.int64)
    rank[order] = np.arange(args.devices)

    # Shared circles: generate.py's circles stream, so shared.geojson is generate.py --circles N.
    crng = rng_for(args.seed, STREAM_CIRCLES)
    s_lat, s_lon = area.uniform_points(crng, args.baseline)
    s_radius = uniform(crng, 50.0, 500.0, args.baseline)
    shared_lines = [circle_json(f"s{i}", a, o, r)
                    for i, (a, o, r) in enumerate(zip(s_lat.tolist(), s_lon.tolist(), s_radius.tolist()))]

    def write_shared():
        with open(os.path.join(args.out, "shared.geojson"), "w", encoding="utf-8", newline="\n") as f:
            f.write('{"type":"FeatureCollection","features":[\n' + ",\n".join(shared_lines) + "\n]}\n")
    step("shared", write_shared)

    p_lat, p_lon, p_radius = step("private", lambda: private_circles(args, area, track_lat, track_lon))

    def write_audiences():
        with open(os.path.join(args.out, "audiences.geojson"), "w", encoding="utf-8", newline="\n") as f:
            f.write('{"type":"FeatureCollection","features":[\n')
            f.write(",\n".join(shared_lines[:args.shared]))
            first = args.shared == 0
            per_chunk = max(1, CHUNK // max(1, args.private))
            for d0 in range(0, args.devices, per_chunk):
                d1 = min(args.devices, d0 + per_chunk)
                lines = [circle_json(f"p{d}-{k}", a, o, r, f"d{d}")
                         for d, (la, lo, ra) in enumerate(zip(p_lat[d0:d1].tolist(), p_lon[d0:d1].tolist(),
                                                              p_radius[d0:d1].tolist()), start=d0)
                         for k, (a, o, r) in enumerate(zip(la, lo, ra))]
                if lines:
                    f.write(("" if first else ",\n") + ",\n".join(lines))
                    first = False
            f.write("\n]}\n")
    step("audiences", write_audiences)

    step("fixes", lambda: write_fixes(os.path.join(args.out, "fixes.csv"), args, order, track_lat, track_lon,
                                      accuracy))
    manifest["coverage"] = step("coverage", lambda: own_coverage(args, area, rank, track_lat, track_lon,
                                                                 p_lat, p_lon, p_radius))
    manifest["counts"] = {"fixes": args.fixes, "devices": args.devices,
                          "seconds": int(track_lat.shape[0]),
                          "shared_conditions": args.baseline,
                          "audiences_conditions": args.shared + args.devices * args.private}
    print(f"audiences: {json.dumps(manifest['counts'])} {json.dumps(manifest['coverage'])}", file=sys.stderr)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
