#!/usr/bin/env python3
"""Deterministic benchmark workloads for Perimeter and its peers (W1 circles,
W2 polygons and single large polygons, W3 beacons).

Usage (from the repository root)::

    python3 Benchmarks/workloads/generate.py --out .build/workloads \\
        [--circles 10000] [--polygons 10000] [--fixes 1000000] [--devices 10000] \\
        [--beacons 100000] [--sightings 1000000] [--points 1000000] \\
        [--area-km 50] [--uuids 64] [--seed 20260301] [--text] [--no-single] [--tg DIR]

Needs Python 3, numpy and shapely 2 (``pip install shapely``; shapely is used to
check validity and to dissolve the world's land).  Every output is a pure
function of the arguments: random numbers come only from numpy's PCG64
``default_rng`` (each part from its own stream, ``default_rng([seed, part])``,
so changing ``--fixes`` does not change the circles) and only through
``Generator.random()`` (uniform doubles, the most stable part of numpy's
stream-compatibility policy; every other draw is derived from those doubles
with plain arithmetic).  Trigonometry that reaches an output uses Python's
``math`` (the platform libm), never numpy's SIMD kernels, so the files are
byte-identical across runs and machines with the same numpy major version
and a glibc libm.  ``world-land`` is computed by GEOS (shapely's
``unary_union``) and so can change with shapely's bundled GEOS version.

Files written into ``--out`` (all binary files little-endian, structure of
arrays, after an 8-byte ASCII magic and a u64 count):

* ``circles.bin``    ``PCIRCLE1``, n, f64 lat[n], f64 lon[n], f64 radius_m[n]
* ``polygons.wkt``   one ``POLYGON ((lon lat, ...))`` per line, floats as Python repr
* ``polygons.geojson`` FeatureCollection, ``id`` "p<i>", exterior CCW, closed
* ``fixes.bin``      ``PFIXES01``, n, f64 lat[n], f64 lon[n], f64 accuracy_m[n],
                     i64 t_ns[n], u32 device[n]
* ``beacons.bin``    ``PBEACON1``, n, u32 uuid_index[n], i32 major[n], i32 minor[n]
                     (-1 = wildcard)
* ``uuids.txt``      one canonical upper-case UUID per line (uuid_index -> UUID)
* ``sightings.bin``  ``PSIGHT01``, n, u32 uuid_index[n], u16 major[n], u16 minor[n],
                     i64 t_ns[n], u32 device[n]
* ``single/<name>.wkt``, ``single/<name>.geojson`` (FeatureCollection with one
  Feature, ``id`` = name) and ``single/<name>.points.bin`` (``PPOINTS1``, n,
  f64 lat[n], f64 lon[n]; uniform in that polygon's bounding box) for
  ``world-land``, ``country-<iso3>`` (the 3 countries with most vertices),
  ``spiky-4096`` and ``random-10000`` (tg's benchmark's random polygon, made
  by tg_shapes.py from our own random numbers); with ``--tg DIR`` (a copy of
  tidwall/tg's source) also ``tg-ri``, ``tg-az``, ``tg-tx``, ``tg-bc`` and
  ``tg-br``: tg's test shapes, read from ``DIR/tests/shapes.h`` at generation
  time and never committed here.  The points of random-10000 and of the tg
  shapes come from streams of their own, so adding them changes no other file.
* ``manifest.json``  the arguments, counts, vertex counts and notes
* with ``--text``: ``fixes.jsonl``, ``fixes.csv``, ``fixes-rfc3339.jsonl``
  (Perimeter observation records), and, for end-to-end runs of the
  ``perimeter`` tool, ``circles.geojson`` (``id`` "c<i>"), ``mixed.geojson``
  (the circles, then the polygons), ``beacons.geojson`` (``id`` "b<i>") and
  ``sightings.jsonl``.

Fixes: ``--devices`` devices start uniformly in the area and walk at a
per-device speed uniform in 1-30 m/s; each second a device turns to a new
random heading with probability 0.05 and reflects off the area's edges.  At
second s every device reports one fix, in one fixed shuffled device order, so
fix k is device ``order[k % devices]`` at second ``k // devices``; its time is
2026-03-01T08:00:00Z + s seconds + floor(rank * 1000 / devices) milliseconds
(the stream is in time order; each device's fixes are 1 s apart).  Accuracy is
uniform 5-65 m per fix.  Positions are moved in a local equirectangular frame
(metres per degree of longitude taken at the area's centre latitude).

Beacons: the UUID table has ``--uuids`` entries (default 64).  Identity
constraints are all distinct.  A uuid-only constraint can exist at most once per
UUID, so with a small table the three forms cannot be a third each: there are
``min(n // 3, uuids // 2)`` uuid-only conditions on UUIDs 0 .. uuids/2-1, and the
rest is split evenly between uuid+major and uuid+major+minor (half of the
full ones reuse the (uuid, major) of a uuid+major condition, as a store's
beacon inside a store's region).  Pass ``--uuids 65536`` for a third of each.
Sightings: 30 % are drawn from a random condition (wildcards filled at random),
the rest have a random identity under a UUID of the second half of the table
(which can still match a uuid+major or full condition by chance); the real
fraction that matches is printed and stored in the manifest.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np

EARTH_RADIUS = 6_371_008.8  # metres, mean Earth radius (IUGG), as Perimeter
METRES_PER_DEGREE = EARTH_RADIUS * math.pi / 180
CENTRE_LAT, CENTRE_LON = 48.85, 2.35  # Paris
T0_SECONDS = 1_772_352_000  # 2026-03-01T08:00:00Z
NS = 1_000_000_000

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NATURAL_EARTH = os.path.join(REPO, "Fixtures", "natural-earth", "countries.geojson")

# Independent random streams, one per part of the workload.
STREAM_CIRCLES, STREAM_POLYGONS, STREAM_FIXES, STREAM_BEACONS, STREAM_SIGHTINGS = 1, 2, 3, 4, 5
STREAM_SPIKY, STREAM_POINTS = 6, 7
# random-10000's vertices; the points of random-10000 (0) and of each tg shape (1 + its position in
# tg_shapes.TG_SHAPES), each from default_rng([seed, STREAM_TG_POINTS, k]).
STREAM_RANDOM, STREAM_TG_POINTS = 8, 9


def rng_for(seed: int, part: int) -> np.random.Generator:
    return np.random.default_rng([seed, part])


def uniform(rng: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    return lo + (hi - lo) * rng.random(n)


def integers(rng: np.random.Generator, n_values: int, n: int) -> np.ndarray:
    """Uniform integers in [0, n_values), derived from uniform doubles only."""
    return np.minimum((rng.random(n) * n_values).astype(np.int64), n_values - 1)


def permutation(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.argsort(rng.random(n), kind="stable")


class Area:
    """A square of side ``km`` kilometres centred on Paris, as a lat/lon box."""

    def __init__(self, km: float):
        half = km * 1000 / 2
        self.cos_lat = math.cos(math.radians(CENTRE_LAT))
        self.metres_per_degree_lon = METRES_PER_DEGREE * self.cos_lat
        self.dlat = half / METRES_PER_DEGREE
        self.dlon = half / self.metres_per_degree_lon
        self.min_lat, self.max_lat = CENTRE_LAT - self.dlat, CENTRE_LAT + self.dlat
        self.min_lon, self.max_lon = CENTRE_LON - self.dlon, CENTRE_LON + self.dlon

    def uniform_points(self, rng: np.random.Generator, n: int):
        lat = uniform(rng, self.min_lat, self.max_lat, n)
        lon = uniform(rng, self.min_lon, self.max_lon, n)
        return lat, lon


def write_soa(path: str, magic: bytes, count: int, arrays) -> None:
    assert len(magic) == 8
    with open(path, "wb") as f:
        f.write(magic)
        f.write(struct.pack("<Q", count))
        for a, dtype in arrays:
            a = np.ascontiguousarray(a, dtype=np.dtype(dtype).newbyteorder("<"))
            assert a.shape == (count,), (a.shape, count)
            f.write(a.tobytes())


# ---------------------------------------------------------------- polygons


def star_polygon(rng: np.random.Generator, n: int, clat: float, clon: float,
                 r_min: float, r_max: float):
    """A star-shaped polygon: n vertices at sorted random angles around the
    centre and random radii in [r_min, r_max] metres.  Returns the closed
    exterior ring as a list of (lon, lat), counter-clockwise."""
    angles = np.sort(rng.random(n)) * (2 * math.pi)
    radii = r_min + (r_max - r_min) * rng.random(n)
    mlon = METRES_PER_DEGREE * math.cos(math.radians(clat))
    ring = []
    for a, r in zip(angles.tolist(), radii.tolist()):
        # x east, y north, angle counter-clockwise from east: increasing angles
        # trace the ring counter-clockwise.
        ring.append((clon + r * math.cos(a) / mlon, clat + r * math.sin(a) / METRES_PER_DEGREE))
    ring.append(ring[0])
    return ring


def ring_wkt(ring) -> str:
    return "(" + ", ".join(f"{x!r} {y!r}" for x, y in ring) + ")"


def ring_json(ring) -> str:
    return "[" + ",".join(f"[{x!r},{y!r}]" for x, y in ring) + "]"


def polygon_wkt(rings) -> str:
    return "POLYGON (" + ", ".join(ring_wkt(r) for r in rings) + ")"


def multipolygon_wkt(polys) -> str:
    return "MULTIPOLYGON (" + ", ".join(
        "(" + ", ".join(ring_wkt(r) for r in p) + ")" for p in polys) + ")"


def geometry_json(polys) -> str:
    if len(polys) == 1:
        return '{"type":"Polygon","coordinates":[' + ",".join(ring_json(r) for r in polys[0]) + "]}"
    return '{"type":"MultiPolygon","coordinates":[' + ",".join(
        "[" + ",".join(ring_json(r) for r in p) + "]" for p in polys) + "]}"


def shapely_to_rings(geom):
    """Polygon/MultiPolygon -> list of polygons, each a list of rings of
    (lon, lat) tuples, exteriors counter-clockwise and holes clockwise."""
    import shapely
    from shapely.geometry.polygon import orient

    parts = [geom] if geom.geom_type == "Polygon" else list(geom.geoms)
    out = []
    for p in parts:
        p = orient(p, 1.0)
        rings = [p.exterior] + list(p.interiors)
        out.append([[(float(x), float(y)) for x, y in shapely.get_coordinates(r).tolist()] for r in rings])
    return out


def vertex_count(polys) -> int:
    """Vertices, leaving out each ring's closing duplicate."""
    return sum(len(r) - 1 for p in polys for r in p)


def generate_polygons(args, area: Area, out: str) -> dict:
    import shapely

    rng = rng_for(args.seed, STREAM_POLYGONS)
    n = args.polygons
    clat, clon = area.uniform_points(rng, n)
    sizes = 16 + integers(rng, 64 - 16 + 1, n)
    retries = 0
    rings = []
    for i in range(n):
        while True:
            ring = star_polygon(rng, int(sizes[i]), float(clat[i]), float(clon[i]), 50.0, 500.0)
            if shapely.is_valid(shapely.Polygon(ring)):
                break
            retries += 1
        rings.append(ring)
    with open(os.path.join(out, "polygons.wkt"), "w") as f:
        for ring in rings:
            f.write(polygon_wkt([ring]) + "\n")
    with open(os.path.join(out, "polygons.geojson"), "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i, ring in enumerate(rings):
            sep = ",\n" if i + 1 < n else "\n"
            f.write(f'{{"type":"Feature","id":"p{i}","properties":{{}},"geometry":'
                    f'{geometry_json([[ring]])}}}{sep}')
        f.write("]}\n")
    # The WKT must parse back to exactly these doubles.
    check = shapely.from_wkt(polygon_wkt([rings[0]]))
    assert shapely.get_coordinates(check).tolist() == [list(p) for p in rings[0]]
    return {"count": n, "vertices": int(sizes.sum()), "invalid_redrawn": retries}


# ---------------------------------------------------------------- circles


def generate_circles(args, area: Area, out: str) -> dict:
    rng = rng_for(args.seed, STREAM_CIRCLES)
    n = args.circles
    lat, lon = area.uniform_points(rng, n)
    radius = uniform(rng, 50.0, 500.0, n)
    write_soa(os.path.join(out, "circles.bin"), b"PCIRCLE1", n,
              [(lat, "f8"), (lon, "f8"), (radius, "f8")])
    if args.text:
        with open(os.path.join(out, "circles.geojson"), "w") as f:
            f.write('{"type":"FeatureCollection","features":[\n')
            for i, (a, o, r) in enumerate(zip(lat.tolist(), lon.tolist(), radius.tolist())):
                sep = ",\n" if i + 1 < n else "\n"
                f.write(f'{{"type":"Feature","id":"c{i}","properties":{{"radius":{r!r}}},'
                        f'"geometry":{{"type":"Point","coordinates":[{o!r},{a!r}]}}}}{sep}')
            f.write("]}\n")
    return {"count": n}


# ---------------------------------------------------------------- fixes


def interleaved_times(n: int, devices: int, order: np.ndarray):
    """Record k: second k // devices, device order[k % devices], time
    T0 + second + floor(rank * 1000 / devices) ms."""
    k = np.arange(n, dtype=np.int64)
    second = k // devices
    rank = k % devices
    t_ns = (T0_SECONDS + second) * NS + (rank * 1000 // devices) * 1_000_000
    return t_ns, order[rank].astype(np.uint32)


def random_unit_vectors(rng: np.random.Generator, n: int):
    """Uniform random directions without trigonometry (rejection in the disc)."""
    out_x = np.empty(n)
    out_y = np.empty(n)
    filled = 0
    while filled < n:
        m = (n - filled) * 2 + 16
        x = rng.random(m) * 2 - 1
        y = rng.random(m) * 2 - 1
        r2 = x * x + y * y
        ok = (r2 > 1e-6) & (r2 <= 1)
        x, y, r = x[ok], y[ok], np.sqrt(r2[ok])
        take = min(n - filled, len(x))
        out_x[filled:filled + take] = x[:take] / r[:take]
        out_y[filled:filled + take] = y[:take] / r[:take]
        filled += take
    return out_x, out_y


def walk_positions(rng, area: Area, lat, lon, speed, dx, dy, seconds: int):
    """The devices' positions second by second (each yielded before that second's step): straight
    lines at `speed` m/s, a 5 % chance a second of turning to a random heading, reflected at the
    area's edges. Draws from `rng` as it goes."""
    devices = len(lat)
    for _ in range(seconds):
        yield lat, lon
        turn = rng.random(devices) < 0.05
        k = int(turn.sum())
        if k:
            tx, ty = random_unit_vectors(rng, k)
            dx[turn] = tx
            dy[turn] = ty
        lat = lat + speed * dy / METRES_PER_DEGREE
        lon = lon + speed * dx / area.metres_per_degree_lon
        for v, d, lo, hi in ((lat, dy, area.min_lat, area.max_lat), (lon, dx, area.min_lon, area.max_lon)):
            over, under = v > hi, v < lo
            v[over] = 2 * hi - v[over]
            v[under] = 2 * lo - v[under]
            d[over | under] *= -1


def fix_walk(args, area: Area):
    """The fix stream's draws up to its walk: (rng, order, seconds, positions), `order` the devices'
    order within a second and `positions` walk_positions' generator. audiences.py walks the same."""
    rng = rng_for(args.seed, STREAM_FIXES)
    devices = args.devices
    order = permutation(rng, devices)
    lat, lon = area.uniform_points(rng, devices)
    speed = uniform(rng, 1.0, 30.0, devices)
    dx, dy = random_unit_vectors(rng, devices)
    seconds = -(-args.fixes // devices)
    return rng, order, seconds, walk_positions(rng, area, lat, lon, speed, dx, dy, seconds)


def generate_fixes(args, area: Area, out: str) -> dict:
    n, devices = args.fixes, args.devices
    rng, order, seconds, positions = fix_walk(args, area)
    out_lat = np.empty(seconds * devices)
    out_lon = np.empty(seconds * devices)
    for s, (lat, lon) in enumerate(positions):
        out_lat[s * devices:(s + 1) * devices] = lat[order]
        out_lon[s * devices:(s + 1) * devices] = lon[order]
    out_lat, out_lon = out_lat[:n], out_lon[:n]
    accuracy = uniform(rng, 5.0, 65.0, n)
    t_ns, device = interleaved_times(n, devices, order)
    write_soa(os.path.join(out, "fixes.bin"), b"PFIXES01", n,
              [(out_lat, "f8"), (out_lon, "f8"), (accuracy, "f8"), (t_ns, "i8"), (device, "u4")])
    if args.text:
        write_fix_text(out, out_lat, out_lon, accuracy, t_ns, device)
    return {"count": n, "devices": devices, "seconds": seconds}


def unix_text(t_ns: int) -> str:
    s, frac = divmod(t_ns, NS)
    ms = frac // 1_000_000
    return str(s) if ms == 0 else f"{s}.{ms:03d}".rstrip("0")


def rfc3339_text(t_ns: int) -> str:
    s, frac = divmod(t_ns, NS)
    ms = frac // 1_000_000
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s))
    return stamp + ("Z" if ms == 0 else f".{ms:03d}".rstrip("0") + "Z")


def write_fix_text(out, lat, lon, accuracy, t_ns, device) -> None:
    with open(os.path.join(out, "fixes.jsonl"), "w") as fj, \
            open(os.path.join(out, "fixes-rfc3339.jsonl"), "w") as fr, \
            open(os.path.join(out, "fixes.csv"), "w") as fc:
        fc.write("type,device,t,lat,lon,accuracy\n")
        for a, o, acc, t, d in zip(lat.tolist(), lon.tolist(), accuracy.tolist(), t_ns.tolist(), device.tolist()):
            ut = unix_text(t)
            fj.write(f'{{"type":"fix","device":"d{d}","t":{ut},"lat":{a!r},"lon":{o!r},"accuracy":{acc!r}}}\n')
            fr.write(f'{{"type":"fix","device":"d{d}","t":"{rfc3339_text(t)}","lat":{a!r},"lon":{o!r},"accuracy":{acc!r}}}\n')
            fc.write(f"fix,d{d},{ut},{a!r},{o!r},{acc!r}\n")


# ---------------------------------------------------------------- beacons


def dedupe_keep_order(keys: np.ndarray) -> np.ndarray:
    _, first = np.unique(keys, return_index=True)
    return keys[np.sort(first)]


def generate_beacons(args, out: str) -> dict:
    rng = rng_for(args.seed, STREAM_BEACONS)
    n_uuids = args.uuids
    raw = integers(rng, 256, n_uuids * 16).reshape(n_uuids, 16)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    uuids = []
    for row in raw.tolist():
        h = "".join(f"{b:02X}" for b in row)
        uuids.append(f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
    assert len(set(uuids)) == n_uuids
    with open(os.path.join(out, "uuids.txt"), "w") as f:
        f.write("\n".join(uuids) + "\n")

    n = args.beacons
    half = max(1, n_uuids // 2)
    n_uuid_only = min(n // 3, half)
    rest = n - n_uuid_only
    n_major = rest // 2
    n_full = rest - n_major
    # uuid-only: distinct UUIDs of the first half of the table.
    uo_uuid = permutation(rng, half)[:n_uuid_only].astype(np.int64)
    # uuid+major: distinct (uuid, major) keys = uuid << 16 | major.
    assert n_major <= n_uuids * 65536
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < n_major:
        m = (n_major - len(keys)) * 2 + 16
        cand = integers(rng, n_uuids, m) << 16 | integers(rng, 65536, m)
        keys = dedupe_keep_order(np.concatenate([keys, cand]))
    um_keys = keys[:n_major]
    # uuid+major+minor: half reuse a uuid+major key, half random; distinct.
    full = np.empty(0, dtype=np.int64)
    while len(full) < n_full:
        m = (n_full - len(full)) * 2 + 16
        reuse = rng.random(m) < 0.5
        base = np.where(reuse, um_keys[integers(rng, max(1, len(um_keys)), m)] if len(um_keys) else 0,
                        integers(rng, n_uuids, m) << 16 | integers(rng, 65536, m))
        cand = base << 16 | integers(rng, 65536, m)
        full = dedupe_keep_order(np.concatenate([full, cand]))
    full = full[:n_full]

    uuid_index = np.concatenate([uo_uuid, um_keys >> 16, full >> 32])
    major = np.concatenate([np.full(n_uuid_only, -1), um_keys & 0xFFFF, (full >> 16) & 0xFFFF])
    minor = np.concatenate([np.full(n_uuid_only + n_major, -1), full & 0xFFFF])
    shuffle = permutation(rng, n)
    uuid_index, major, minor = uuid_index[shuffle], major[shuffle], minor[shuffle]
    write_soa(os.path.join(out, "beacons.bin"), b"PBEACON1", n,
              [(uuid_index, "u4"), (major, "i4"), (minor, "i4")])
    if args.text:
        with open(os.path.join(out, "beacons.geojson"), "w") as f:
            f.write('{"type":"FeatureCollection","features":[\n')
            for i, (u, ma, mi) in enumerate(zip(uuid_index.tolist(), major.tolist(), minor.tolist())):
                ident = f'"uuid":"{uuids[u]}"' + (f',"major":{ma}' if ma >= 0 else "") + (f',"minor":{mi}' if mi >= 0 else "")
                sep = ",\n" if i + 1 < n else "\n"
                f.write(f'{{"type":"Feature","id":"b{i}","properties":{{"beacon":{{{ident}}}}},"geometry":null}}{sep}')
            f.write("]}\n")

    # ---- sightings
    srng = rng_for(args.seed, STREAM_SIGHTINGS)
    s = args.sightings
    order = permutation(srng, args.devices)
    matched = srng.random(s) < 0.30
    cond = integers(srng, n, s)
    r_major = integers(srng, 65536, s)
    r_minor = integers(srng, 65536, s)
    # Unmatched draws use the second half of the table (no uuid-only conditions).
    r_uuid = half + integers(srng, n_uuids - half, s) if n_uuids > half else integers(srng, n_uuids, s)
    s_uuid = np.where(matched, uuid_index[cond], r_uuid)
    s_major = np.where(matched & (major[cond] >= 0), major[cond], r_major)
    s_minor = np.where(matched & (minor[cond] >= 0), minor[cond], r_minor)
    t_ns, device = interleaved_times(s, args.devices, order)
    write_soa(os.path.join(out, "sightings.bin"), b"PSIGHT01", s,
              [(s_uuid, "u4"), (s_major, "u2"), (s_minor, "u2"), (t_ns, "i8"), (device, "u4")])
    if args.text:
        with open(os.path.join(out, "sightings.jsonl"), "w") as f:
            for u, ma, mi, t, d in zip(s_uuid.tolist(), s_major.tolist(), s_minor.tolist(),
                                       t_ns.tolist(), device.tolist()):
                f.write(f'{{"type":"sighting","device":"d{d}","t":{unix_text(t)},"uuid":"{uuids[u]}",'
                        f'"major":{ma},"minor":{mi},"rssi":-70}}\n')

    # Exact fraction of sightings matching at least one condition.
    uo_set = np.isin(s_uuid, uo_uuid)
    um_set = np.isin(s_uuid << 16 | s_major, um_keys)
    full_set = np.isin((s_uuid << 16 | s_major) << 16 | s_minor, full)
    any_match = uo_set | um_set | full_set
    pairs = int(uo_set.sum() + um_set.sum() + full_set.sum())
    return {"count": n, "uuids": n_uuids, "uuid_only": n_uuid_only, "uuid_major": n_major,
            "uuid_major_minor": n_full, "sightings": s,
            "sightings_matching": round(float(any_match.mean()), 4), "matching_pairs": pairs}


# ---------------------------------------------------------------- single polygons


def points_in_box(rng, n, min_lon, min_lat, max_lon, max_lat):
    lat = uniform(rng, min_lat, max_lat, n)
    lon = uniform(rng, min_lon, max_lon, n)
    return lat, lon


def write_single(out: str, name: str, polys, n_points: int, rng) -> dict:
    import shapely

    single = os.path.join(out, "single")
    os.makedirs(single, exist_ok=True)
    if len(polys) == 1:
        wkt = polygon_wkt(polys[0])
    else:
        wkt = multipolygon_wkt(polys)
    geom = shapely.from_wkt(wkt)
    valid = bool(shapely.is_valid(geom))
    assert valid, f"{name}: {shapely.is_valid_reason(geom)}"
    with open(os.path.join(single, f"{name}.wkt"), "w") as f:
        f.write(wkt + "\n")
    with open(os.path.join(single, f"{name}.geojson"), "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n'
                f'{{"type":"Feature","id":"{name}","properties":{{}},"geometry":{geometry_json(polys)}}}\n'
                "]}\n")
    min_lon, min_lat, max_lon, max_lat = (float(v) for v in shapely.bounds(geom))
    lat, lon = points_in_box(rng, n_points, min_lon, min_lat, max_lon, max_lat)
    write_soa(os.path.join(single, f"{name}.points.bin"), b"PPOINTS1", n_points,
              [(lat, "f8"), (lon, "f8")])
    inside = int(shapely.intersects_xy(geom, lon[:100000], lat[:100000]).sum())
    return {"vertices": vertex_count(polys), "parts": len(polys),
            "rings": sum(len(p) for p in polys),
            "bbox": [min_lon, min_lat, max_lon, max_lat],
            "points": n_points, "inside_fraction_sample": round(inside / min(n_points, 100000), 4)}


def generate_single(args, out: str) -> dict:
    import shapely

    with open(NATURAL_EARTH) as f:
        countries = json.load(f)["features"]
    country_polys = []
    for feat in countries:
        g = feat["geometry"]
        coords = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        polys = [[[(float(x), float(y)) for x, y in ring] for ring in poly] for poly in coords]
        country_polys.append((feat["id"], polys))

    result = {}
    prng = rng_for(args.seed, STREAM_POINTS)
    # world-land: every country's polygons as one MultiPolygon, or, when that is
    # OGC-invalid (parts share borders), the union of all countries.
    all_parts = [p for _, polys in country_polys for p in polys]
    multi = shapely.from_wkt(multipolygon_wkt(all_parts))
    note = {"all_parts": len(all_parts), "all_parts_vertices": vertex_count(all_parts),
            "all_parts_valid": bool(shapely.is_valid(multi)),
            "all_parts_invalid_reason": shapely.is_valid_reason(multi)}
    if note["all_parts_valid"]:
        world = all_parts
        note["method"] = "MultiPolygon of all country polygons"
    else:
        geoms = [shapely.from_wkt(polygon_wkt(p)) for p in all_parts]
        union = shapely.unary_union(geoms)
        world = shapely_to_rings(union)
        note["method"] = "shapely.unary_union of all country polygons (GEOS %d.%d.%d)" % shapely.geos_version
    result["world-land"] = write_single(out, "world-land", world, args.points, prng)
    result["world-land"].update(note)

    ranked = sorted(country_polys, key=lambda c: (-vertex_count(c[1]), c[0]))
    for cid, polys in ranked[:3]:
        name = "country-" + cid.lower()
        result[name] = write_single(out, name, polys, args.points, prng)

    srng = rng_for(args.seed, STREAM_SPIKY)
    while True:
        ring = star_polygon(srng, 4096, CENTRE_LAT, CENTRE_LON, 2500.0, 25000.0)
        if shapely.is_valid(shapely.Polygon(ring)):
            break
    result["spiky-4096"] = write_single(out, "spiky-4096", [[ring]], args.points, prng)
    result.update(generate_tg_single(args, out))
    return result


def generate_tg_single(args, out: str) -> dict:
    """random-10000, and with --tg DIR tg's own test shapes (Benchmarks/peers' P3 column)."""
    import tg_shapes

    def points_rng(k: int):
        return np.random.default_rng([args.seed, STREAM_TG_POINTS, k])

    result = {}
    ring = tg_shapes.random_polygon(rng_for(args.seed, STREAM_RANDOM), 10_000)
    result["random-10000"] = write_single(out, "random-10000", [[ring]], args.points, points_rng(0))
    result["random-10000"]["method"] = "tg's tests/bench.c Random-10000 (make_polygon), numpy random numbers"
    if args.tg:
        digest = tg_shapes.shapes_digest(args.tg)
        for k, (name, ring) in enumerate(tg_shapes.read_shapes(args.tg).items(), start=1):
            # As tg has them: x = longitude, y = latitude, tg's order (az, tx and ri run clockwise).
            result["tg-" + name] = write_single(out, "tg-" + name, [[ring]], args.points, points_rng(k))
            result["tg-" + name]["method"] = f"tg's tests/shapes.h '{name}' (sha256 {digest[:16]})"
    return result


# ---------------------------------------------------------------- main


def write_mixed_geojson(out: str) -> None:
    """circles.geojson then polygons.geojson as one FeatureCollection (W4's mixed conditions)."""
    features = []
    for name in ("circles.geojson", "polygons.geojson"):
        with open(os.path.join(out, name)) as f:
            lines = f.read().split("\n")
        # One feature per line between the collection's opening and closing lines.
        features += [line.rstrip(",") for line in lines[1:] if line.startswith('{"type":"Feature"')]
    with open(os.path.join(out, "mixed.geojson"), "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n' + ",\n".join(features) + "\n]}\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--circles", type=int, default=10_000)
    p.add_argument("--polygons", type=int, default=10_000)
    p.add_argument("--fixes", type=int, default=1_000_000)
    p.add_argument("--devices", type=int, default=10_000)
    p.add_argument("--beacons", type=int, default=100_000)
    p.add_argument("--sightings", type=int, default=1_000_000)
    p.add_argument("--points", type=int, default=1_000_000, help="points per single polygon")
    p.add_argument("--uuids", type=int, default=64, help="size of the beacon UUID table")
    p.add_argument("--area-km", type=float, default=50.0, help="side of the square area (km)")
    p.add_argument("--seed", type=int, default=20260301)
    p.add_argument("--text", action="store_true", help="also write JSONL/CSV/GeoJSON text forms")
    p.add_argument("--no-single", action="store_true", help="skip the single-polygon workload")
    p.add_argument("--tg", metavar="DIR", help="a copy of tidwall/tg's source: adds its test shapes "
                   "as single polygons tg-ri, tg-az, tg-tx, tg-bc, tg-br")
    args = p.parse_args(argv)
    if args.devices <= 0 or args.uuids <= 0:
        p.error("--devices and --uuids must be positive")

    os.makedirs(args.out, exist_ok=True)
    area = Area(args.area_km)
    manifest = {"generator": "Benchmarks/workloads/generate.py", "version": 1,
                "arguments": {k: v for k, v in vars(args).items() if k != "out"},
                "numpy": np.__version__,
                "area": {"min_lat": area.min_lat, "max_lat": area.max_lat,
                         "min_lon": area.min_lon, "max_lon": area.max_lon}}
    steps = [("circles", lambda: generate_circles(args, area, args.out)),
             ("polygons", lambda: generate_polygons(args, area, args.out)),
             ("fixes", lambda: generate_fixes(args, area, args.out)),
             ("beacons", lambda: generate_beacons(args, args.out))]
    if not args.no_single:
        steps.append(("single", lambda: generate_single(args, args.out)))
    for name, step in steps:
        t = time.perf_counter()
        manifest[name] = step()
        print(f"generate: {name:9s} {time.perf_counter() - t:6.2f} s  {json.dumps(manifest[name])}",
              file=sys.stderr)
    if args.text:
        write_mixed_geojson(args.out)
    import shapely
    manifest["shapely"] = shapely.__version__
    manifest["geos"] = "%d.%d.%d" % shapely.geos_version
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
