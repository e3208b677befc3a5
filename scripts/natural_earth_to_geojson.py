#!/usr/bin/env python3
"""Convert Natural Earth 1:110m countries into Perimeter's GeoJSON fixture.

Source: Natural Earth 1:110m "Admin 0 - Countries" (public domain, see
https://www.naturalearthdata.com/about/terms-of-use/) as shipped inside the
geopandas 0.14.4 wheel as the ``naturalearth_lowres`` dataset
(``geopandas/datasets/naturalearth_lowres/naturalearth_lowres.{shp,shx,dbf}``).
The shapefile is read straight out of the wheel zip with pyshp; geopandas is
never installed or imported.

Requirements: Python 3, ``pip install pyshp shapely`` (shapely 2.x).

Usage (from anywhere; default paths are relative to the repository root,
which is found from this script's own location)::

    # Download the wheel (pip download --no-deps geopandas==0.14.4) into a
    # temporary directory and write Fixtures/natural-earth/countries.geojson:
    python3 scripts/natural_earth_to_geojson.py

    # Also write the differential-test sample points (what the repo ships):
    python3 scripts/natural_earth_to_geojson.py \\
        --points Fixtures/natural-earth/points.csv

    # Use an already downloaded wheel instead of calling pip download:
    python3 scripts/natural_earth_to_geojson.py \\
        --wheel /tmp/geopandas-0.14.4-py3-none-any.whl \\
        --out Fixtures/natural-earth/countries.geojson \\
        --points Fixtures/natural-earth/points.csv

Relative ``--out``/``--points`` paths are taken relative to the current
working directory (the defaults are absolute paths inside the repository).

countries.geojson (RFC 7946 FeatureCollection, one Feature per line, in the
shapefile's record order):

* ``id``: the ``iso_a3`` code when it is unique and not ``-99``; otherwise a
  slug of the name (e.g. ``kosovo``), suffixed ``-2``, ``-3``... if needed to
  stay unique.
* ``geometry``: ``Polygon`` when the shape has one exterior ring, else
  ``MultiPolygon``.  Shapefile rings (exteriors clockwise, holes
  counter-clockwise) are grouped so every hole follows the exterior that
  contains it, then reoriented as RFC 7946 recommends (exteriors
  counter-clockwise, holes clockwise).  Coordinates are the shapefile's own
  doubles, [lon, lat], unrounded (Python's shortest round-trip repr).
  Rings are closed.  Nothing is wrapped at the antimeridian: edges are
  straight lines in lon/lat.
* ``properties``: ``{"name": ..., "continent": ...}``.

points.csv (``--points``): 2,000 rows ``lon,lat,covers_id`` from a seeded
generator (see SEED): rows 1-1000 uniform over lon [-180,180] x
lat [-85,85]; rows 1001-1500 uniform inside a random country's bounding box;
rows 1501-1750 exactly on a random ring vertex; rows 1751-2000 exactly on the
midpoint (a+b)/2 of a random ring edge.  ``covers_id`` is the ``|``-joined,
sorted list of ids whose geometry shapely's ``covers`` says contains the
point (boundary included), empty if none.  Floats are written with Python's
repr, so they parse back to the exact same doubles.

After writing, the script prints the feature count, vertex counts, the
result of ``shapely.is_valid`` / ``shapely.is_valid_reason`` for every
geometry, and the 0 / 1 / 2+ covering-country counts of the sample points.
Invalid geometries are reported, never repaired.

Output is deterministic: the same wheel gives byte-identical files.
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from collections import Counter

import shapefile  # pyshp
import shapely
from shapely.geometry import Polygon, shape as to_shape

GEOPANDAS_VERSION = "0.14.4"
DATASET = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO_ROOT, "Fixtures", "natural-earth", "countries.geojson")

SEED = 20240428  # release date of geopandas 0.14.4; any fixed value works
N_UNIFORM, N_BBOX, N_VERTEX, N_MIDPOINT = 1000, 500, 250, 250
LON_RANGE = (-180.0, 180.0)
LAT_RANGE = (-85.0, 85.0)


# ---------------------------------------------------------------- reading

def download_wheel(dest_dir):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
         f"geopandas=={GEOPANDAS_VERSION}", "-d", dest_dir],
        check=True,
    )
    wheels = [f for f in os.listdir(dest_dir)
              if f.startswith(f"geopandas-{GEOPANDAS_VERSION}-") and f.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit(f"expected one geopandas {GEOPANDAS_VERSION} wheel in {dest_dir}, found {wheels}")
    return os.path.join(dest_dir, wheels[0])


def read_wheel(wheel_path):
    """Return [(record dict, shape)] read from the wheel's shapefile."""
    with zipfile.ZipFile(wheel_path) as z:
        blobs = {ext: z.read(f"{DATASET}.{ext}") for ext in ("shp", "shx", "dbf")}
        try:
            encoding = z.read(f"{DATASET}.cpg").decode("ascii").strip()
        except KeyError:
            encoding = "latin-1"
    reader = shapefile.Reader(
        shp=io.BytesIO(blobs["shp"]), shx=io.BytesIO(blobs["shx"]),
        dbf=io.BytesIO(blobs["dbf"]), encoding=encoding,
    )
    out = []
    for sr in reader.iterShapeRecords():
        if sr.shape.shapeType != shapefile.POLYGON:
            sys.exit(f"unexpected shape type {sr.shape.shapeTypeName} for {sr.record['name']}")
        out.append((sr.record.as_dict(), sr.shape))
    reader.close()
    return out


# ---------------------------------------------------------------- geometry

def signed_area(ring):
    """Shoelace area; > 0 for counter-clockwise rings in lon/lat."""
    s = 0.0
    for i in range(len(ring) - 1):
        s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
    return s / 2.0


def split_rings(shp):
    bounds = list(shp.parts) + [len(shp.points)]
    rings = []
    for i in range(len(shp.parts)):
        ring = [[float(p[0]), float(p[1])] for p in shp.points[bounds[i]:bounds[i + 1]]]
        if ring[0] != ring[-1]:
            ring.append(list(ring[0]))
        rings.append(ring)
    return rings


def to_polygons(shp, name):
    """Group a shapefile polygon's rings into [[exterior, hole...], ...]."""
    rings = split_rings(shp)
    exteriors = [r for r in rings if signed_area(r) < 0]  # clockwise
    holes = [r for r in rings if signed_area(r) >= 0]
    polys = [[ext] for ext in exteriors]
    ext_shapes = [Polygon(ext) for ext in exteriors]
    for hole in holes:
        hole_ring = shapely.LinearRing(hole)
        candidates = [i for i, p in enumerate(ext_shapes) if p.covers(hole_ring)]
        if not candidates:
            # An orphan "hole" is really an exterior with the wrong winding.
            print(f"warning: {name}: counter-clockwise ring not inside any exterior; "
                  "treated as an exterior", file=sys.stderr)
            polys.append([hole])
            continue
        best = min(candidates, key=lambda i: abs(signed_area(exteriors[i])))
        polys[best].append(hole)
    for poly in polys:
        for k, ring in enumerate(poly):
            ccw = signed_area(ring) > 0
            if ccw != (k == 0):  # exterior CCW, holes CW
                ring.reverse()
    return polys


def geometry_of(polys):
    if len(polys) == 1:
        return {"type": "Polygon", "coordinates": polys[0]}
    return {"type": "MultiPolygon", "coordinates": polys}


def slug(name):
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    out, dash = [], False
    for ch in ascii_name.lower():
        if ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).strip("-") or "feature"


def build_features(rows):
    iso_counts = Counter(rec["iso_a3"] for rec, _ in rows)
    used, features = set(), []
    for rec, shp in rows:
        name, iso = rec["name"].strip(), rec["iso_a3"].strip()
        if iso and iso != "-99" and iso_counts[rec["iso_a3"]] == 1:
            fid = iso
        else:
            fid = slug(name)
        base, n = fid, 1
        while fid in used:
            n += 1
            fid = f"{base}-{n}"
        used.add(fid)
        features.append({
            "type": "Feature",
            "id": fid,
            "properties": {"name": name, "continent": rec["continent"].strip()},
            "geometry": geometry_of(to_polygons(shp, name)),
        })
    return features


def write_geojson(features, path):
    lines = ['{"type":"FeatureCollection","features":[']
    for i, f in enumerate(features):
        text = json.dumps(f, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        lines.append(text + ("," if i < len(features) - 1 else ""))
    lines.append("]}")
    write_text(path, "\n".join(lines) + "\n")


def write_text(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def rings_of(feature):
    g = feature["geometry"]
    polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
    return [ring for poly in polys for ring in poly]


# ---------------------------------------------------------------- points

class Rng:
    """Seeded generator using only random.random(), stable across Pythons."""

    def __init__(self, seed):
        import random
        self._r = random.Random(seed)

    def uniform(self, lo, hi):
        return lo + (hi - lo) * self._r.random()

    def index(self, n):
        return min(int(self._r.random() * n), n - 1)


def sample_points(features):
    rng = Rng(SEED)
    pts = []
    for _ in range(N_UNIFORM):
        lon = rng.uniform(*LON_RANGE)
        lat = rng.uniform(*LAT_RANGE)
        pts.append((lon, lat))
    for _ in range(N_BBOX):
        rings = rings_of(features[rng.index(len(features))])
        xs = [p[0] for r in rings for p in r]
        ys = [p[1] for r in rings for p in r]
        lon = rng.uniform(min(xs), max(xs))
        lat = rng.uniform(min(ys), max(ys))
        pts.append((lon, lat))
    for _ in range(N_VERTEX):
        rings = rings_of(features[rng.index(len(features))])
        ring = rings[rng.index(len(rings))]
        v = ring[rng.index(len(ring) - 1)]  # skip the closing duplicate
        pts.append((v[0], v[1]))
    for _ in range(N_MIDPOINT):
        rings = rings_of(features[rng.index(len(features))])
        ring = rings[rng.index(len(rings))]
        i = rng.index(len(ring) - 1)
        a, b = ring[i], ring[i + 1]
        pts.append(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
    return pts


def covering_ids(features, geoms, pts):
    points = shapely.points([p[0] for p in pts], [p[1] for p in pts])
    covers = [shapely.covers(g, points) for g in geoms]
    out = []
    for j in range(len(pts)):
        out.append(sorted(features[i]["id"] for i in range(len(features)) if covers[i][j]))
    return out


def write_points(pts, ids, path):
    lines = ["lon,lat,covers_id"]
    for (lon, lat), cid in zip(pts, ids):
        lines.append(f"{float(lon)!r},{float(lat)!r},{'|'.join(cid)}")
    write_text(path, "\n".join(lines) + "\n")


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", help="geopandas 0.14.4 wheel to read (default: pip download it)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="GeoJSON output (default: %(default)s)")
    ap.add_argument("--points", help="also write the sample-point CSV to this path")
    args = ap.parse_args()

    if args.wheel:
        rows = read_wheel(args.wheel)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            rows = read_wheel(download_wheel(tmp))

    features = build_features(rows)
    write_geojson(features, args.out)

    # Validate what was written (re-read, so the check sees the file's doubles).
    with open(args.out, encoding="utf-8") as fh:
        written = json.load(fh)["features"]
    geoms = [to_shape(f["geometry"]) for f in written]
    n_pos = sum(len(r) for f in written for r in rings_of(f))
    n_rings = sum(len(rings_of(f)) for f in written)
    kinds = Counter(f["geometry"]["type"] for f in written)
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")
    print(f"features: {len(written)} ({kinds['Polygon']} Polygon, {kinds['MultiPolygon']} MultiPolygon), "
          f"rings: {n_rings}, positions: {n_pos} (incl. closing), vertices: {n_pos - n_rings} (excl. closing)")
    invalid = [(f["id"], f["properties"]["name"], shapely.is_valid_reason(g))
               for f, g in zip(written, geoms) if not shapely.is_valid(g)]
    print(f"shapely {shapely.__version__} / GEOS {shapely.geos_version_string}: "
          f"{len(written) - len(invalid)} valid, {len(invalid)} invalid")
    for fid, name, reason in invalid:
        print(f"  INVALID {fid} ({name}): {reason}")

    if args.points:
        pts = sample_points(written)
        ids = covering_ids(written, geoms, pts)
        write_points(pts, ids, args.points)
        hist = Counter(min(len(c), 2) for c in ids)
        print(f"wrote {args.points} ({os.path.getsize(args.points)} bytes): {len(pts)} points; "
              f"covered by 0: {hist[0]}, 1: {hist[1]}, 2+: {hist[2]}")
        for label, lo, hi in (("uniform", 0, N_UNIFORM),
                              ("bbox", N_UNIFORM, N_UNIFORM + N_BBOX),
                              ("vertex", N_UNIFORM + N_BBOX, N_UNIFORM + N_BBOX + N_VERTEX),
                              ("midpoint", N_UNIFORM + N_BBOX + N_VERTEX, len(pts))):
            h = Counter(min(len(c), 2) for c in ids[lo:hi])
            print(f"  {label:8s} rows {lo + 1}-{hi}: 0: {h[0]}, 1: {h[1]}, 2+: {h[2]}")


if __name__ == "__main__":
    main()
