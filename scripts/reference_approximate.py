#!/usr/bin/env python3
"""Reference oracle for the approximate-location grid of cells.

Written from docs/approximate.md alone (not from the Swift source): for each point and cell
size it gives the cell (band, column), the cell's centre and its radius, as that page defines
them. Standard library only.

    python3 scripts/reference_approximate.py POINTS.csv > EXPECTED.csv
    python3 scripts/reference_approximate.py --check POINTS.csv

POINTS.csv has the header `lat,lon,cell` (degrees, degrees, kilometres). The output has the
header `lat,lon,cell,band,column,centre_lat,centre_lon,radius`: lat, lon and cell copied as
given, band and column as integers, the centre as Python's repr of each float, the radius in
whole metres. A cell outside 0 < c <= 2000 is an error naming the line (exit status 1).

--check writes nothing to stdout; it verifies over every point that the point lies within
its cell's latitude and longitude bounds (to within EDGE_TOL degrees, reporting how many
needed it), that it is within the radius of the centre, that the
band is at most c km high and that the widest parallel's columns are at most c km long. It
exits 0 when all hold, 1 otherwise.
"""

import csv
import math
import sys

EARTH_RADIUS_M = 6371008.8
K = EARTH_RADIUS_M * (math.pi / 180)  # metres per degree of latitude, in this order (docs/approximate.md)
# --check only: in doubles, floor((lon + 180) / (360/n)) and the edge -180 + j*(360/n) can
# disagree by an ulp or so (and -180 + n*(360/n) can be 179.99999999999997 while lon 180 is
# in the last column), so a point counts as inside its cell to within this many degrees.
EDGE_TOL = 1e-9


def haversine_m(lat1, lon1, lat2, lon2):
    """Great-circle distance in metres on the mean Earth sphere."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2) - math.radians(lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


def band_height(c):
    """h = 1000*c/k degrees."""
    return 1000 * c / K


def band_count(c):
    return math.ceil(180 / band_height(c))


def band_edges(c, i):
    """(south, north) of band i."""
    h = band_height(c)
    return -90 + i * h, min(90, -90 + (i + 1) * h)


def widest_parallel(south, north):
    """The equator if the band holds it, else the edge nearer the equator."""
    if south <= 0 <= north:
        return 0.0
    return south if abs(south) < abs(north) else north


def column_count(c, i):
    south, north = band_edges(c, i)
    phi = widest_parallel(south, north)
    return max(1, math.ceil(360 * K * math.cos(math.radians(phi)) / (1000 * c)))


def cell_of(lat, lon, c):
    """(band, column) of a point, each capped to [0, last]."""
    h = band_height(c)
    i = min(max(math.floor((lat + 90) / h), 0), band_count(c) - 1)
    n = column_count(c, i)
    j = min(max(math.floor((lon + 180) / (360 / n)), 0), n - 1)
    return i, j


def cell_bounds(c, i, j):
    """(south, north, west, east) of cell (i, j)."""
    south, north = band_edges(c, i)
    width = 360 / column_count(c, i)
    return south, north, -180 + j * width, -180 + (j + 1) * width


def centre_of(c, i, j):
    south, north = band_edges(c, i)
    n = column_count(c, i)
    return (south + north) / 2, -180 + (j + 0.5) * (360 / n)


def radius_of(c, i, j):
    """Largest haversine distance from the centre to a corner, plus 1 um, rounded up."""
    south, north, west, east = cell_bounds(c, i, j)
    clat, clon = centre_of(c, i, j)
    corners = [(south, west), (south, east), (north, west), (north, east)]
    far = max(haversine_m(clat, clon, la, lo) for la, lo in corners)
    return math.ceil(far + 1e-6)


def read_points(path):
    """Rows (line number, lat text, lon text, cell text, lat, lon, c); exits 1 on a bad cell."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if [h.strip() for h in header] != ["lat", "lon", "cell"]:
            sys.exit(f"{path}: line 1: expected header lat,lon,cell, got {','.join(header)}")
        for row in reader:
            line = reader.line_num
            if not row:
                continue
            if len(row) != 3:
                sys.exit(f"{path}: line {line}: expected 3 fields, got {len(row)}")
            lat_t, lon_t, cell_t = (s.strip() for s in row)
            try:
                lat, lon, c = float(lat_t), float(lon_t), float(cell_t)
            except ValueError:
                sys.exit(f"{path}: line {line}: not a number in {','.join(row)}")
            if not (0 < c <= 2000):
                sys.exit(f"{path}: line {line}: cell {cell_t} km is outside 0 < c <= 2000")
            rows.append((line, lat_t, lon_t, cell_t, lat, lon, c))
    return rows


def write_expected(rows, out):
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["lat", "lon", "cell", "band", "column", "centre_lat", "centre_lon", "radius"])
    for _line, lat_t, lon_t, cell_t, lat, lon, c in rows:
        i, j = cell_of(lat, lon, c)
        clat, clon = centre_of(c, i, j)
        w.writerow([lat_t, lon_t, cell_t, i, j, repr(clat), repr(clon), radius_of(c, i, j)])


def check(rows):
    """Verify the grid's promises over every point; returns the number of failures."""
    failures = ulp_misses = 0

    def fail(line, what):
        nonlocal failures
        failures += 1
        print(f"line {line}: {what}", file=sys.stderr)

    for line, _lat_t, _lon_t, _cell_t, lat, lon, c in rows:
        i, j = cell_of(lat, lon, c)
        south, north, west, east = cell_bounds(c, i, j)
        clat, clon = centre_of(c, i, j)
        r = radius_of(c, i, j)
        if not (south - EDGE_TOL <= lat <= north + EDGE_TOL):
            fail(line, f"lat {lat!r} outside band {i} [{south!r}, {north!r}]")
        if not (west - EDGE_TOL <= lon <= east + EDGE_TOL):
            fail(line, f"lon {lon!r} outside column {j} [{west!r}, {east!r}]")
        if not (south <= lat <= north and west <= lon <= east):
            ulp_misses += 1
        d = haversine_m(lat, lon, clat, clon)
        if not d <= r:
            fail(line, f"distance to centre {d!r} m > radius {r} m")
        if not band_height(c) * K / 1000 <= c + 1e-9:
            fail(line, f"band {i} is {band_height(c) * K / 1000!r} km high > {c!r}")
        phi = widest_parallel(*band_edges(c, i))
        length = K * math.cos(math.radians(phi)) * 360 / column_count(c, i) / 1000
        if not length <= c + 1e-9:
            fail(line, f"column on parallel {phi!r} is {length!r} km > {c!r}")
    if ulp_misses:
        print(f"note: {ulp_misses} point(s) inside their cell only within {EDGE_TOL} deg "
              "(edges and floor() rounded apart)", file=sys.stderr)
    return failures


def main(argv):
    args = argv[1:]
    if len(args) == 2 and args[0] == "--check":
        rows = read_points(args[1])
        failures = check(rows)
        if failures:
            print(f"{failures} check(s) failed over {len(rows)} points", file=sys.stderr)
            return 1
        print(f"all checks hold over {len(rows)} points", file=sys.stderr)
        return 0
    if len(args) == 1 and not args[0].startswith("--"):
        write_expected(read_points(args[0]), sys.stdout)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
