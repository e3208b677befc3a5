#!/usr/bin/env python3
"""Generate Fixtures/approximate/points.csv: test points for the approximate-location grid.

Deterministic (fixed seed, only random.random(), so stable across Python versions). Points are
drawn uniformly on the sphere, near and at the poles, at and near the antimeridian, exactly on
band and column edges (computed with scripts/reference_approximate.py, i.e. docs/approximate.md,
for the cell size of the point), on the equator. Each point has a cell size in km drawn from
CELLS, 5 the most common. Coordinates are printed with repr.

Usage (from the repository root):
    python3 scripts/make_approximate_fixture.py [--out Fixtures/approximate/points.csv]
    python3 scripts/reference_approximate.py Fixtures/approximate/points.csv \
        > Fixtures/approximate/expected.csv
"""

import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_approximate as ra  # noqa: E402

SEED = 20240611
CELLS = [0.5, 1, 2, 5, 10, 25, 100, 1000, 2000]
WEIGHTS = [5, 5, 6, 40, 8, 8, 8, 5, 5]  # 5 km the most common

rng = random.Random(SEED)


def below(n):
    """An integer in [0, n)."""
    return min(int(rng.random() * n), n - 1)


def cell():
    u = rng.random() * sum(WEIGHTS)
    for c, w in zip(CELLS, WEIGHTS):
        if u < w:
            return c
        u -= w
    return CELLS[-1]


def any_lon():
    return rng.random() * 360 - 180


def any_lat():
    """Uniform on the sphere."""
    return math.degrees(math.asin(2 * rng.random() - 1))


def lat_inside_band(c, i):
    south, north = ra.band_edges(c, i)
    return south + (0.05 + 0.9 * rng.random()) * (north - south)


def band_edge_lat(c):
    """-90 + i*h for a random i in [0, bands-1], as the rule computes it."""
    return ra.band_edges(c, below(ra.band_count(c)))[0]


def column_edge(c, i):
    """-180 + j*(360/n) for a random j in [0, n-1] of band i, as the rule computes it."""
    n = ra.column_count(c, i)
    return ra.cell_bounds(c, i, below(n))[2]


def points():
    out = []
    add = out.append
    for _ in range(250):  # uniform on the whole sphere
        add((any_lat(), any_lon(), cell()))
    pole_lons = [-180.0, -179.5, -90.0, 0.0, 33.3, 90.0, 179.5, 180.0]
    for pole in (90.0, -90.0):
        for _ in range(20):  # within 1e-6 of the pole
            add((pole - math.copysign(rng.random() * 1e-6, pole), any_lon(), cell()))
        for lon in pole_lons:  # exactly at the pole
            add((pole, lon, cell()))
        for _ in range(4):
            add((pole, any_lon(), cell()))
    for lon in (180.0, -180.0):
        for _ in range(15):  # exactly on the antimeridian
            add((any_lat(), lon, cell()))
        for _ in range(15):  # within 1e-9 of it
            add((any_lat(), lon - math.copysign(rng.random() * 1e-9, lon), cell()))
    for _ in range(80):  # on a band edge
        c = cell()
        add((band_edge_lat(c), any_lon(), c))
    for _ in range(80):  # on a column edge
        c = cell()
        i = below(ra.band_count(c))
        add((lat_inside_band(c, i), column_edge(c, i), c))
    for _ in range(30):  # on a corner: band edge and column edge
        c = cell()
        i = below(ra.band_count(c))
        add((ra.band_edges(c, i)[0], column_edge(c, i), c))
    for _ in range(20):  # on the equator
        add((0.0, any_lon(), cell()))
    for _ in range(10):  # on the equator and a column edge
        c = cell()
        add((0.0, column_edge(c, ra.cell_of(0.0, 0.0, c)[0]), c))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "Fixtures", "approximate", "points.csv")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.normpath(default))
    args = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    pts = points()
    with open(args.out, "w", newline="") as f:
        f.write("lat,lon,cell\n")
        for lat, lon, c in pts:
            f.write(f"{lat!r},{lon!r},{c!r}\n")
    print(f"wrote {len(pts)} points to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
