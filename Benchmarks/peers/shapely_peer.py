#!/usr/bin/env python3
"""P2: the benchmark workloads evaluated with shapely 2 and numpy, vectorised,
as a data engineer would write them.

Usage::

    python3 Benchmarks/peers/shapely_peer.py MODE WORKDIR [NAME] [--repeat R] [--strategy S]

MODE is ``circles``, ``polygons``, ``mixed``, ``single NAME``, ``beacons`` or
``beacons-dict``.  Prints one JSON line like the C peer::

    {"peer":"P2","mode":..,["name":..,]"fixes":N,"conditions":M,"seconds":S,
     "build_seconds":B,"containments":K,"hash":H,"strategy":..}

``seconds`` is the query part only, best of R runs, and includes turning the
fixes' coordinate arrays into shapely points (that is part of answering the
query); ``build_seconds`` is building the trees and preparing the polygons.
Loading files and parsing WKT are excluded.  ``hash`` is the wrapping u64 sum
over every containing (fix i, condition j) of ``i * 1000003 + j``; in mixed
mode circles are conditions 0..C-1 and polygons C..C+P-1.

How each mode works:

* circles: ``STRtree`` of each circle's conservative lat/lon box
  (``shapely.box``; the same box formula as Perimeter's ``Geodesy.boundingBox``)
  queried with all fixes at once (``tree.query(points)``; for a point against
  an axis-aligned box the envelope test already is the ``intersects``
  predicate, so no predicate is passed), then the haversine distance on the
  candidate pairs with numpy, ``d <= r``, in the same operation order as
  Perimeter's ``Geodesy.distance(centre, fix)``.
* polygons (``--strategy``):
  ``points-tree`` (default, the fastest here): an STRtree of the fixes, queried
  with all prepared polygons at once, ``predicate="covers"`` (shapely
  evaluates ``predicate(input, tree_geometry)``, so this is "polygon covers
  fix" with the polygon prepared).  Building the fixes' tree is part of the
  timed query.
  ``polygon-tree``: an STRtree of the polygons queried with the fixes (bounding
  boxes only), candidate pairs sorted by polygon, then ``shapely.covers`` with
  the prepared polygons.
  ``covered-by``: ``tree.query(points, predicate="covered_by")``, the literal
  one-liner; correct but slow, because shapely prepares the *input* geometry
  (each point), not the tree's polygons.
* mixed: both of the above on one set of points.
* single: ``shapely.intersects_xy(prepared polygon, lon, lat)``.  For a point
  ``intersects`` and ``covers`` are the same predicate (interior or boundary),
  and the ``_xy`` form skips creating a million point objects;
  ``--strategy covers`` uses ``shapely.covers(polygon, points)`` instead.
* beacons: numpy: per wildcard form the conditions' keys sorted once, each
  sighting's key looked up with ``np.searchsorted``.
* beacons-dict: pure Python, no numpy in the loop: one ``dict`` per wildcard
  form from key to condition indices, three lookups per sighting.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import shapely

EARTH_RADIUS = 6_371_008.8
RAD = math.pi / 180
METRES_PER_DEGREE = EARTH_RADIUS * RAD
HASH_MUL = np.uint64(1_000_003)


# ------------------------------------------------------------------ files

def read_soa(path: str, magic: bytes, fields):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != magic:
        sys.exit(f"shapely_peer: {path}: bad magic (want {magic.decode()})")
    n = int.from_bytes(data[8:16], "little")
    if len(data) != 16 + n * sum(np.dtype(d).itemsize for d in fields):
        sys.exit(f"shapely_peer: {path}: size does not match count {n}")
    out, offset = [], 16
    for d in fields:
        dt = np.dtype(d).newbyteorder("<")
        out.append(np.frombuffer(data, dtype=dt, count=n, offset=offset).copy())
        offset += n * dt.itemsize
    return n, out


def load_fixes(work):
    n, (lat, lon, _acc, _t, _dev) = read_soa(os.path.join(work, "fixes.bin"), b"PFIXES01",
                                             ["f8", "f8", "f8", "i8", "u4"])
    return lat, lon


def load_circles(work):
    _, (lat, lon, radius) = read_soa(os.path.join(work, "circles.bin"), b"PCIRCLE1", ["f8", "f8", "f8"])
    return lat, lon, radius


def load_wkt(path):
    with open(path) as f:
        lines = [line for line in f.read().split("\n") if line]
    return shapely.from_wkt(lines)


def pair_hash(i: np.ndarray, j: np.ndarray) -> int:
    """Wrapping u64 sum of i * 1000003 + j over the pairs."""
    if len(i) == 0:
        return 0
    return int((i.astype(np.uint64) * HASH_MUL + j.astype(np.uint64)).sum(dtype=np.uint64))


# ---------------------------------------------------------------- circles

class CircleIndex:
    def __init__(self, lat, lon, radius):
        self.lat, self.lon, self.radius = lat, lon, radius
        # Perimeter's Geodesy.boundingBox, vectorised (the workloads stay far
        # from the poles and the antimeridian; boxes that would reach them are
        # widened to the whole range of longitudes).
        m = radius * (1 + 1e-9) + 1e-6
        dlat = m / METRES_PER_DEGREE
        min_lat, max_lat = lat - dlat, lat + dlat
        phi_max = np.maximum(np.abs(min_lat), np.abs(max_lat))
        with np.errstate(invalid="ignore", divide="ignore"):
            s = np.sin(m / (2 * EARTH_RADIUS)) / np.cos(phi_max * RAD)
            dlon = 2 * np.arcsin(np.minimum(s, 1.0)) / RAD * (1 + 1e-9) + 1e-9
        whole = (phi_max >= 90) | (s >= 1) | (dlon >= 180)
        min_lon = np.where(whole, -180.0, lon - dlon)
        max_lon = np.where(whole, 180.0, lon + dlon)
        self.cos_phi = np.cos(lat * RAD)
        self.boxes = shapely.box(min_lon, np.maximum(-90.0, min_lat), max_lon, np.minimum(90.0, max_lat))
        self.tree = shapely.STRtree(self.boxes, node_capacity=10)
        self.tree.query(shapely.points(0.0, 0.0))  # builds the tree

    def contains(self, i, j, fix_lat, fix_lon):
        """Haversine d <= r for fix i and circle j, as Geodesy.distance(centre, fix)."""
        phi2 = fix_lat[i] * RAD
        dphi = phi2 - self.lat[j] * RAD
        dlambda = (fix_lon[i] - self.lon[j]) * RAD
        s1 = np.sin(dphi / 2)
        s2 = np.sin(dlambda / 2)
        h = s1 * s1 + self.cos_phi[j] * np.cos(phi2) * s2 * s2
        d = 2 * EARTH_RADIUS * np.arcsin(np.minimum(1.0, np.sqrt(h)))
        return d <= self.radius[j]

    def query(self, points, fix_lat, fix_lon):
        i, j = self.tree.query(points)
        ok = self.contains(i, j, fix_lat, fix_lon)
        return i[ok], j[ok]


# --------------------------------------------------------------- polygons

class PolygonIndex:
    def __init__(self, polygons, strategy):
        self.polygons = polygons
        self.strategy = strategy
        shapely.prepare(polygons)
        if strategy != "points-tree":
            self.tree = shapely.STRtree(polygons, node_capacity=10)
            self.tree.query(shapely.points(0.0, 0.0))
        # Prepared geometries build their point-in-area index lazily: warm it.
        first = shapely.get_point(shapely.get_exterior_ring(polygons), 0)
        shapely.covers(polygons, first)

    def query(self, points):
        if self.strategy == "points-tree":
            tree = shapely.STRtree(points, node_capacity=10)
            j, i = tree.query(self.polygons, predicate="covers")
            return i, j
        if self.strategy == "polygon-tree":
            i, j = self.tree.query(points)
            order = np.argsort(j, kind="stable")
            i, j = i[order], j[order]
            ok = shapely.covers(self.polygons[j], points[i])
            return i[ok], j[ok]
        if self.strategy == "covered-by":
            i, j = self.tree.query(points, predicate="covered_by")
            return i, j
        raise SystemExit(f"shapely_peer: unknown polygon strategy {self.strategy}")


# ---------------------------------------------------------------- beacons

def load_beacons(work):
    _, (b_uuid, b_major, b_minor) = read_soa(os.path.join(work, "beacons.bin"), b"PBEACON1", ["u4", "i4", "i4"])
    _, (s_uuid, s_major, s_minor, _t, _d) = read_soa(os.path.join(work, "sightings.bin"), b"PSIGHT01",
                                                      ["u4", "u2", "u2", "i8", "u4"])
    return (b_uuid.astype(np.int64), b_major.astype(np.int64), b_minor.astype(np.int64),
            s_uuid.astype(np.int64), s_major.astype(np.int64), s_minor.astype(np.int64))


def beacon_keys(u, major, minor):
    """Key of each wildcard form: 0 uuid, 1 uuid+major, 2 uuid+major+minor."""
    return [u, u << 16 | major, u << 32 | major << 16 | minor]


class BeaconNumpy:
    def __init__(self, b_uuid, b_major, b_minor):
        form = np.where(b_major < 0, 0, np.where(b_minor < 0, 1, 2))
        keys = beacon_keys(b_uuid, np.maximum(b_major, 0), np.maximum(b_minor, 0))
        self.tables = []
        for f in range(3):
            idx = np.flatnonzero(form == f)
            k = keys[f][idx]
            order = np.argsort(k, kind="stable")
            self.tables.append((k[order], idx[order]))

    def query(self, s_uuid, s_major, s_minor):
        keys = beacon_keys(s_uuid, s_major, s_minor)
        all_i, all_j = [], []
        for f, (sorted_keys, conds) in enumerate(self.tables):
            lo = np.searchsorted(sorted_keys, keys[f], "left")
            hi = np.searchsorted(sorted_keys, keys[f], "right")
            count = hi - lo
            hit = np.flatnonzero(count)
            if len(hit) == 0:
                continue
            c = count[hit]
            i = np.repeat(hit, c)
            starts = np.repeat(lo[hit] - (np.cumsum(c) - c), c)
            j = conds[starts + np.arange(len(i))]
            all_i.append(i)
            all_j.append(j)
        if not all_i:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        return np.concatenate(all_i), np.concatenate(all_j)


class BeaconDict:
    def __init__(self, b_uuid, b_major, b_minor):
        self.maps = ({}, {}, {})
        for j, (u, ma, mi) in enumerate(zip(b_uuid.tolist(), b_major.tolist(), b_minor.tolist())):
            if ma < 0:
                self.maps[0].setdefault(u, []).append(j)
            elif mi < 0:
                self.maps[1].setdefault((u, ma), []).append(j)
            else:
                self.maps[2].setdefault((u, ma, mi), []).append(j)

    def query(self, sightings):
        by_uuid, by_major, by_minor = self.maps
        count = 0
        total = 0
        for i, (u, ma, mi) in enumerate(sightings):
            base = i * 1_000_003
            for m, key in ((by_uuid, u), (by_major, (u, ma)), (by_minor, (u, ma, mi))):
                hit = m.get(key)
                if hit:
                    count += len(hit)
                    for j in hit:
                        total += base + j
        return count, total & 0xFFFF_FFFF_FFFF_FFFF


# ------------------------------------------------------------------- main

def timed(repeat, fn):
    """Best time of `repeat` runs of fn() -> (containments, hash); checks the
    runs agree."""
    best, result = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        r = fn()
        t = time.perf_counter() - t
        if result is not None and r != result:
            sys.exit("shapely_peer: runs disagree")
        result = r
        best = min(best, t)
    return best, result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="P2: shapely 2 peer")
    p.add_argument("mode", choices=["circles", "polygons", "mixed", "single", "beacons", "beacons-dict"])
    p.add_argument("work")
    p.add_argument("name", nargs="?")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--strategy", help="polygons/mixed: points-tree (default), polygon-tree, covered-by; "
                                      "single: intersects-xy (default), covers")
    a = p.parse_args(argv)
    out = {"peer": "P2", "mode": a.mode}
    if a.mode in ("circles", "polygons", "mixed"):
        lat, lon = load_fixes(a.work)
        circles = load_circles(a.work) if a.mode != "polygons" else None
        polygons = load_wkt(os.path.join(a.work, "polygons.wkt")) if a.mode != "circles" else None
        strategy = a.strategy or "points-tree"
        t = time.perf_counter()
        ci = CircleIndex(*circles) if circles is not None else None
        pi = PolygonIndex(polygons, strategy) if polygons is not None else None
        build = time.perf_counter() - t
        offset = len(circles[0]) if circles is not None else 0

        def run():
            points = shapely.points(lon, lat)
            k = h = 0
            if ci is not None:
                i, j = ci.query(points, lat, lon)
                k += len(i)
                h += pair_hash(i, j)
            if pi is not None:
                i, j = pi.query(points)
                k += len(i)
                h += pair_hash(i, j + offset)
            return k, h % 2**64

        seconds, (k, h) = timed(a.repeat, run)
        out.update(fixes=len(lat), conditions=offset + (len(polygons) if polygons is not None else 0))
        if polygons is not None:
            out["strategy"] = strategy
    elif a.mode == "single":
        if not a.name:
            p.error("single needs a NAME")
        (polygon,) = load_wkt(os.path.join(a.work, "single", f"{a.name}.wkt"))
        n, (lat, lon) = read_soa(os.path.join(a.work, "single", f"{a.name}.points.bin"), b"PPOINTS1",
                                 ["f8", "f8"])
        strategy = a.strategy or "intersects-xy"
        t = time.perf_counter()
        shapely.prepare(polygon)
        shapely.intersects_xy(polygon, 0.0, 0.0)
        build = time.perf_counter() - t

        def run():
            if strategy == "intersects-xy":
                inside = shapely.intersects_xy(polygon, lon, lat)
            elif strategy == "covers":
                inside = shapely.covers(polygon, shapely.points(lon, lat))
            else:
                raise SystemExit(f"shapely_peer: unknown single strategy {strategy}")
            i = np.flatnonzero(inside)
            return len(i), pair_hash(i, np.zeros_like(i))

        seconds, (k, h) = timed(a.repeat, run)
        out.update(name=a.name, fixes=n, conditions=1, strategy=strategy)
    else:
        b_uuid, b_major, b_minor, s_uuid, s_major, s_minor = load_beacons(a.work)
        if a.mode == "beacons":
            t = time.perf_counter()
            index = BeaconNumpy(b_uuid, b_major, b_minor)
            build = time.perf_counter() - t

            def run():
                i, j = index.query(s_uuid, s_major, s_minor)
                return len(i), pair_hash(i, j)
        else:
            sightings = list(zip(s_uuid.tolist(), s_major.tolist(), s_minor.tolist()))
            t = time.perf_counter()
            index = BeaconDict(b_uuid, b_major, b_minor)
            build = time.perf_counter() - t

            def run():
                return index.query(sightings)

        seconds, (k, h) = timed(a.repeat, run)
        out.update(fixes=len(s_uuid), conditions=len(b_uuid))
    out.update(seconds=round(seconds, 6), build_seconds=round(build, 6), containments=int(k), hash=int(h))
    # Keep the documented key order: peer, mode, [name], fixes, conditions, seconds, ...
    order = ["peer", "mode", "name", "fixes", "conditions", "seconds", "build_seconds", "containments", "hash"]
    line = {key: out[key] for key in order if key in out}
    line.update({key: v for key, v in out.items() if key not in line})
    print(json.dumps(line, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
