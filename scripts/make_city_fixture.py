#!/usr/bin/env python3
"""Generate Fixtures/city: conditions.geojson, observations.jsonl and observations.csv.

Deterministic (no randomness, no clock). After writing, it reads the observations back
with the oracle's readers and checks the ambiguity margin of every valid fix against every
geographic condition, under the default policy (H=0, k=1) and under H=20, k=1:

    |d - (-m)| >= 0.02*|d| + 1 m   and   |d - m| >= 0.02*|d| + 1 m

(the one deliberate exception: Bob's fix exactly on a vertex of place-des-vosges with
accuracy 0 under the default policy). It also cross-checks the oracle's polygon distance
against a brute-force one (boundary densified to <= 0.5 m, min haversine).

Usage: python3 scripts/make_city_fixture.py [--out Fixtures/city]
Then regenerate the expected events with the commands in Fixtures/city/README.md.
"""

import argparse
import calendar
import json
import math
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_monitor as rm  # noqa: E402

R = rm.EARTH_RADIUS_M
BASE = calendar.timegm((2026, 3, 1, 8, 0, 0, 0, 0, 0))  # 2026-03-01T08:00:00Z

STORE = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
MUSEUM_LOWER = "f7826da6-4fa2-4e98-8024-bc5b71e0893e"
MUSEUM_UPPER = MUSEUM_LOWER.upper()
KIOSK = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

POLICIES = [("default", 0.0, 1.0), ("H20", 20.0, 1.0)]

# ------------------------------------------------------------------ conditions

CIRCLES = {
    # id: (lon, lat, radius, assuming)
    "louvre": (2.3376, 48.8606, 200, None),
    "home-marais": (2.3615, 48.8590, 80, "satisfied"),
    "office-bastille": (2.3695, 48.8530, 150, "unsatisfied"),
    "gare-de-lyon": (2.3735, 48.8443, 500, None),
}

LUX_OUTER = [(2.3325, 48.8476), (2.3335, 48.8448), (2.3380, 48.8440), (2.3405, 48.8465),
             (2.3395, 48.8490), (2.3340, 48.8492), (2.3325, 48.8476)]
POND_CENTER = (2.3372, 48.8468)  # lon, lat
POND_RADIUS_M = 60.0
VOSGES = [(2.3644, 48.8553), (2.3666, 48.8553), (2.3666, 48.8562), (2.3644, 48.8562),
          (2.3644, 48.8553)]
VOSGES_NE = (2.3666, 48.8562)
JUSSIEU_A = [(2.3540, 48.8460), (2.3556, 48.8460), (2.3556, 48.8470), (2.3540, 48.8470),
             (2.3540, 48.8460)]
JUSSIEU_B = [(2.3568, 48.8452), (2.3586, 48.8452), (2.3586, 48.8466), (2.3568, 48.8466),
             (2.3568, 48.8452)]


def pond_ring():
    """Octagon around the pond, clockwise (a hole), vertices rounded to 1e-6 degree."""
    lon0, lat0 = POND_CENTER
    ring = []
    for i in range(8):
        angle = math.radians(90 - 45 * i)  # start north, go clockwise
        dlat = POND_RADIUS_M * math.sin(angle) / R * 180 / math.pi
        dlon = POND_RADIUS_M * math.cos(angle) / (R * math.cos(math.radians(lat0))) * 180 / math.pi
        ring.append((round(lon0 + dlon, 6), round(lat0 + dlat, 6)))
    ring.append(ring[0])
    return ring


def conditions_document():
    features = []

    def circle(identifier, name):
        lon, lat, radius, assuming = CIRCLES[identifier]
        properties = {"name": name, "radius": radius}
        if assuming:
            properties["assuming"] = assuming
        features.append({"type": "Feature", "id": identifier,
                         "geometry": {"type": "Point", "coordinates": [lon, lat]},
                         "properties": properties})

    def ring(points):
        return [[lon, lat] for lon, lat in points]

    circle("louvre", "Musée du Louvre")
    circle("home-marais", "Home (Le Marais)")
    circle("office-bastille", "Office near Bastille")
    circle("gare-de-lyon", "Gare de Lyon")
    features.append({"type": "Feature", "id": "jardin-luxembourg",
                     "geometry": {"type": "Polygon",
                                  "coordinates": [ring(LUX_OUTER), ring(pond_ring())]},
                     "properties": {"name": "Jardin du Luxembourg (minus the Grand Bassin)"}})
    features.append({"type": "Feature", "id": "place-des-vosges",
                     "geometry": {"type": "Polygon", "coordinates": [ring(VOSGES)]},
                     "properties": {"name": "Place des Vosges"}})
    features.append({"type": "Feature", "id": "campus-jussieu",
                     "geometry": {"type": "MultiPolygon",
                                  "coordinates": [[ring(JUSSIEU_A)], [ring(JUSSIEU_B)]]},
                     "properties": {"name": "Campus Jussieu (two buildings)"}})

    def beacon(identifier, name, beacon_fields, assuming=None):
        properties = {"name": name, "beacon": beacon_fields}
        if assuming:
            properties["assuming"] = assuming
        features.append({"type": "Feature", "id": identifier, "geometry": None,
                         "properties": properties})

    beacon("store-any", "Any beacon of the store", {"uuid": STORE})
    beacon("store-floor1", "Store, first floor", {"uuid": STORE, "major": 1})
    beacon("store-checkout", "Store checkout", {"uuid": STORE, "major": 1, "minor": 7})
    beacon("museum-gallery", "Museum gallery (lowercase UUID)",
           {"uuid": MUSEUM_LOWER, "major": 100})
    beacon("kiosk", "Kiosk", {"uuid": KIOSK, "major": 5, "minor": 42}, "satisfied")
    beacon("kiosk-lobby", "Kiosk lobby", {"uuid": KIOSK, "major": 5}, "unsatisfied")
    return {"type": "FeatureCollection", "features": features}


# ------------------------------------------------------------------ positions

def destination(lon, lat, bearing_deg, distance_m):
    """Point at distance_m along the great circle from (lon, lat) at bearing_deg."""
    p1, l1 = math.radians(lat), math.radians(lon)
    theta, delta = math.radians(bearing_deg), distance_m / R
    p2 = math.asin(math.sin(p1) * math.cos(delta) + math.cos(p1) * math.sin(delta) * math.cos(theta))
    l2 = l1 + math.atan2(math.sin(theta) * math.sin(delta) * math.cos(p1),
                         math.cos(delta) - math.sin(p1) * math.sin(p2))
    return math.degrees(l2), math.degrees(p2)


def circ(identifier, bearing, d):
    """(lon, lat) at signed distance d from the boundary of circle `identifier`."""
    lon, lat, radius, _ = CIRCLES[identifier]
    return destination(lon, lat, bearing, radius + d)


def offset(point, north_m, east_m):
    lon, lat = point
    return (lon + east_m / (R * math.cos(math.radians(lat))) * 180 / math.pi,
            lat + north_m / R * 180 / math.pi)


# ------------------------------------------------------------------ records

def rounded(point):
    return (round(point[0], 7), round(point[1], 7))


def unambiguous(geo, point, accuracy):
    lon, lat = rounded(point)
    for c in geo:
        d = c.signed_distance_m(lon, lat)
        for _, h, k in POLICIES:
            if not ambiguity_ok(d, max(h, k * accuracy)):
                return False
    return True


class Stream:
    def __init__(self, geo):
        self.geo = geo  # geographic conditions, to keep walking fixes unambiguous
        self.records = []  # dicts with internal keys
        self.order = {}

    def add(self, device, t, kind, style="Z", **fields):
        self.order.setdefault(device, len(self.order))
        self.records.append(dict(device=device, t=Decimal(str(t)), kind=kind, style=style,
                                 seq=len(self.records), **fields))

    def fix(self, device, t, point, accuracy, style="Z", exempt=False, walk=False):
        self.add(device, t, "fix", style, point=point, accuracy=accuracy, exempt=exempt, walk=walk)

    def sighting(self, device, t, uuid, major, minor, rssi, style="Z"):
        self.add(device, t, "sighting", style, uuid=uuid, major=major, minor=minor, rssi=rssi)

    def walk(self, device, t0, dt, start, end, steps, accuracy):
        """`steps` fixes strictly after `start`, the last one at `end`, every dt seconds.

        A fix that would sit within the ambiguity margin of some condition is moved along
        the path by the first of 2, -2, 4, -4, ... metres that makes it unambiguous.
        """
        length = rm.haversine_m(start[0], start[1], end[0], end[1])
        for i in range(1, steps + 1):
            for nudge in [0] + [sign * 2 * j for j in range(1, 8) for sign in (1, -1)]:
                s = i / steps + (nudge / length if i < steps else 0)
                point = (start[0] + (end[0] - start[0]) * s, start[1] + (end[1] - start[1]) * s)
                if unambiguous(self.geo, point, accuracy):
                    break
            self.fix(device, t0 + dt * i, point, accuracy, walk=True)
        return t0 + dt * steps


def build_stream(geo):
    s = Stream(geo)

    # ---- alice: circles, straddling accuracy, negative accuracy --------------------
    a = "alice"
    s.fix(a, 0, circ("home-marais", 45, -50), 10)
    s.fix(a, 10, circ("home-marais", 100, -40), 8)
    s.fix(a, 20, circ("home-marais", 135, 5), 40)     # straddles the boundary: no change
    s.fix(a, 30, circ("home-marais", 135, 200), -1)   # invalid fix: no change
    s.fix(a, 40, circ("home-marais", 135, 60), 10)    # leaves home
    corner = (2.3690, 48.8578)
    t = s.walk(a, 40, 20, circ("home-marais", 135, 60), corner, 12, 10)
    office_in = circ("office-bastille", 0, -60)
    t = s.walk(a, t, 20, corner, office_in, 14, 10)   # enters the office circle
    for i in range(6):                                # at the office
        t += 30
        s.fix(a, t, circ("office-bastille", 60 * i, -70 - 5 * i), 12)
    office_out = circ("office-bastille", 300, 80)
    t = s.walk(a, t, 20, circ("office-bastille", 300, -90), office_out, 10, 10)
    t += 60
    s.fix(a, t, office_out, -1)                       # in the metro: invalid
    t += 240
    louvre_out = circ("louvre", 90, 150)
    s.fix(a, t, louvre_out, 15)
    louvre_in = circ("louvre", 90, -100)
    t = s.walk(a, t, 15, louvre_out, louvre_in, 10, 15)  # enters the Louvre circle
    for i in range(8):
        t += 30
        s.fix(a, t, circ("louvre", 90 + 25 * i, -110), 15)
    t = s.walk(a, t, 15, circ("louvre", 265, -110), circ("louvre", 265, 60), 8, 20)
    t += 30
    s.fix(a, t, circ("louvre", 265, 90), 20)

    # ---- bob: polygon with a hole, exact vertex ------------------------------------
    b = "bob"
    north = (2.3365, 48.8500)
    s.fix(b, 5, north, 10)
    t = s.walk(b, 5, 15, north, POND_CENTER, 16, 10)  # into the park, to the pond centre
    pond_edge = offset(POND_CENTER, -60, 0)
    t += 15
    s.fix(b, t, offset(POND_CENTER, -55, 0), 45)      # straddles the pond shore: no change
    t += 15
    s.fix(b, t, offset(POND_CENTER, -100, 0), 10)     # back on the lawn
    south = (2.3385, 48.8432)
    t = s.walk(b, t, 15, offset(POND_CENTER, -100, 0), south, 10, 10)  # leaves the park
    t = 700
    east = offset(VOSGES_NE, 0, 60)
    s.fix(b, t, east, 8)
    t += 15
    s.fix(b, t, offset(VOSGES_NE, 0, 25), 5)
    t += 15
    s.fix(b, t, VOSGES_NE, 0, exempt=True)            # exactly on a vertex, accuracy 0
    centre = ((VOSGES[0][0] + VOSGES[2][0]) / 2, (VOSGES[0][1] + VOSGES[2][1]) / 2)
    for i in range(4):
        t += 10
        s.fix(b, t, offset(centre, 5 * i, -8 * i), 5)
    t = s.walk(b, t, 15, offset(centre, 15, -24), offset(centre, -120, -24), 6, 8)

    # ---- carol: multipolygon (second part first) --------------------------------------
    c = "carol"
    b_north = (2.3577, 48.8475)
    b_centre = (2.3577, 48.8459)
    gap = (2.3562, 48.8462)
    a_centre = (2.3548, 48.8465)
    a_north = (2.3548, 48.8480)
    s.fix(c, 60, b_north, 10)
    t = s.walk(c, 60, 10, b_north, b_centre, 8, 10)   # enters part B (second polygon)
    t = s.walk(c, t, 10, b_centre, gap, 5, 8)         # the gap between the buildings
    t = s.walk(c, t, 10, gap, a_centre, 5, 8)         # enters part A
    t = s.walk(c, t, 10, a_centre, a_north, 6, 10)    # leaves the campus
    t += 300
    s.fix(c, t, circ("gare-de-lyon", 250, 100), 30)
    t = s.walk(c, t, 20, circ("gare-de-lyon", 250, 100), circ("gare-de-lyon", 250, -150), 8, 30)
    for i in range(3):
        t += 30
        s.fix(c, t, circ("gare-de-lyon", 250 + 10 * i, -160), 30)

    # ---- dave: store beacons (every wildcard form), exits ---------------------------
    d = "dave"
    shop = (2.3480, 48.8580)
    T0 = 120
    s.fix(d, T0, shop, 15)
    s.sighting(d, T0 + 10, STORE, 1, 3, -71)
    s.sighting(d, T0 + 20, STORE, 1, 7, -65)
    s.fix(d, T0 + 35, offset(shop, 3, 2), 15)
    s.sighting(d, T0 + 50, STORE.lower(), 2, 9, -80)
    s.fix(d, T0 + 58, offset(shop, -2, 4), 15)
    s.sighting(d, T0 + 70, STORE, 1, 7, -62)
    s.sighting(d, T0 + 95, STORE, 1, 4, -77)
    s.fix(d, T0 + 110, offset(shop, 1, -3), 15)
    s.fix(d, T0 + 125, offset(shop, 0, 5), 15)

    # ---- erin: museum beacons, mixed time formats -------------------------------------
    e = "erin"
    gallery = circ("louvre", 170, -120)
    s.sighting(e, "180.25", MUSEUM_UPPER, 100, 3, -68, style="+01:00")
    s.fix(e, "192.25", gallery, 12, style="unix")
    s.sighting(e, "200.25", MUSEUM_UPPER, 100, 8, -74, style="Z")
    s.sighting(e, "205.5", KIOSK.lower(), 5, 42, -60, style="-05:00")
    s.fix(e, "218.125", offset(gallery, 4, 4), 12, style="unix")
    s.fix(e, "240", offset(gallery, -3, 6), 12, style="+01:00")
    s.sighting(e, "250.375", MUSEUM_LOWER, 100, 3, -70, style="Z")
    s.fix(e, "262", offset(gallery, 2, -5), 12, style="unix")
    s.sighting(e, "270.5", KIOSK, 5, 42, -58, style="+01:00 trailing zeros")

    # ---- frank: too short for any timeout; huge accuracy ------------------------------
    f = "frank"
    s.fix(f, 300, (2.3500, 48.8530), -1)
    s.sighting(f, 305, STORE, 1, 3, -66)
    s.fix(f, 312, (2.3500, 48.8530), 5000)
    s.sighting(f, 320, STORE, 1, 7, -64)

    # ---- gina: confirmation / hysteresis (compare the two expected files) -----------
    g = "gina"
    G0 = 360
    plan = [  # (dt, d from the louvre boundary, accuracy)
        (0, -50, 10), (5, 40, 10), (12, 90, 10), (16, 100, 10),
        (25, -60, 10), (30, -80, 8), (37, -100, 8),
        (45, 40, 10), (50, -50, 10),
        (58, 60, 10), (63, 12, 5), (66, 30, 10), (69, 50, 10),
        (76, -30, 10), (80, -10, 5), (84, 35, 10),
        (90, -40, 10), (105, -45, 10), (120, -70, 10),
    ]
    for dt, dist, acc in plan:
        s.fix(g, G0 + dt, circ("louvre", 200, dist), acc)

    return s


# ------------------------------------------------------------------ writing

def format_time(t, style):
    """t: Decimal seconds after BASE. Returns (json_text, csv_text)."""
    unix = Decimal(BASE) + t
    if style == "unix":
        text = str(unix)
        return text, text
    whole = int(unix // 1)
    fraction = unix - whole
    zone = {"Z": 0, "+01:00": 3600, "+01:00 trailing zeros": 3600, "-05:00": -5 * 3600}[style]
    import datetime
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=whole + zone)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        digits = str(fraction)[2:]
        if style == "+01:00 trailing zeros":
            digits = digits.ljust(3, "0")
        text += "." + digits
    elif style == "+01:00 trailing zeros":
        text += ".000"
    text += "Z" if style == "Z" else style.split()[0]
    return json.dumps(text), text


def number(x):
    if isinstance(x, int):
        return str(x)
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def coordinate(x):
    return repr(round(x, 7))


def write(stream, out_dir):
    records = sorted(stream.records, key=lambda r: (r["t"], stream.order[r["device"]], r["seq"]))
    jsonl, rows = [], ["type,device,t,lat,lon,accuracy,uuid,major,minor,rssi"]
    for r in records:
        t_json, t_csv = format_time(r["t"], r["style"])
        head = '{"type":"%s","device":"%s","t":%s' % (r["kind"], r["device"], t_json)
        if r["kind"] == "fix":
            lon, lat = r["point"]
            lat_s, lon_s, acc_s = coordinate(lat), coordinate(lon), number(r["accuracy"])
            jsonl.append(head + ',"lat":%s,"lon":%s,"accuracy":%s}' % (lat_s, lon_s, acc_s))
            rows.append(",".join(["fix", r["device"], t_csv, lat_s, lon_s, acc_s, "", "", "", ""]))
        else:
            jsonl.append(head + ',"uuid":"%s","major":%d,"minor":%d,"rssi":%d}'
                         % (r["uuid"], r["major"], r["minor"], r["rssi"]))
            rows.append(",".join(["sighting", r["device"], t_csv, "", "", "", r["uuid"],
                                  str(r["major"]), str(r["minor"]), str(r["rssi"])]))
    with open(os.path.join(out_dir, "observations.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(jsonl) + "\n")
    with open(os.path.join(out_dir, "observations.csv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(rows) + "\n")
    return records


# ------------------------------------------------------------------ checks

def ambiguity_ok(d, m):
    need = 0.02 * abs(d) + 1.0
    return abs(d + m) >= need and abs(d - m) >= need


def brute_force_distance(condition, lon, lat):
    best = math.inf
    for ring in condition.rings:
        for (lon_a, lat_a), (lon_b, lat_b) in zip(ring, ring[1:]):
            n = max(1, int(math.ceil(rm.haversine_m(lon_a, lat_a, lon_b, lat_b) / 0.5)))
            for i in range(n + 1):
                s = i / n
                best = min(best, rm.haversine_m(lon, lat, lon_a + (lon_b - lon_a) * s,
                                                lat_a + (lat_b - lat_a) * s))
    return best


def check(out_dir, records):
    conditions = rm.load_conditions(os.path.join(out_dir, "conditions.geojson"))
    geo = [c for c in conditions if c.kind != "beacon"]
    parsed = list(rm.read_jsonl(os.path.join(out_dir, "observations.jsonl")))
    parsed_csv = list(rm.read_csv(os.path.join(out_dir, "observations.csv")))
    assert len(parsed) == len(parsed_csv) == len(records)
    for p, q in zip(parsed, parsed_csv):
        assert (p.kind, p.device, p.t, p.lat, p.lon, p.accuracy, p.uuid, p.major, p.minor) == \
               (q.kind, q.device, q.t, q.lat, q.lon, q.accuracy, q.uuid, q.major, q.minor)
        assert q.line == p.line + 1
    last = {}
    for p in parsed:
        assert p.t >= last.get(p.device, p.t), "time order, line %d" % p.line
        last[p.device] = p.t
    problems = 0
    worst = 0.0  # largest |oracle - brute force| in metres
    for p, r in zip(parsed, records):
        if p.kind != "fix" or p.accuracy < 0:
            continue
        for c in geo:
            d = c.signed_distance_m(p.lon, p.lat)
            if c.kind == "polygon" and abs(d) < 2000:
                brute = brute_force_distance(c, p.lon, p.lat)
                error = abs(abs(d) - brute)
                worst = max(worst, error)
                if error > 0.005 * abs(d) + 0.3:
                    print("distance check: line %d %s oracle %.3f brute %.3f"
                          % (p.line, c.identifier, d, brute))
                    problems += 1
            for name, h, k in POLICIES:
                m = max(h, k * p.accuracy)
                if r["exempt"] and name == "default" and c.identifier == "place-des-vosges":
                    assert d <= 0 and abs(d) < 1e-6 and p.accuracy == 0
                    continue
                if not ambiguity_ok(d, m):
                    print("AMBIGUOUS line %d %s %s: d=%.3f m=%.3f (%s %s)"
                          % (p.line, p.device, c.identifier, d, m, name, r["walk"]))
                    problems += 1
    print("checked %d records (%d fixes); largest polygon distance difference to brute force %.3f m"
          % (len(parsed), sum(1 for p in parsed if p.kind == "fix"), worst), file=sys.stderr)
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "city"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "conditions.geojson"), "w", encoding="utf-8", newline="\n") as f:
        text = json.dumps(conditions_document(), indent=2, ensure_ascii=False)
        # one [lon, lat] pair per line instead of one number per line
        text = re.sub(r"\[\s+(-?[\d.]+),\s+(-?[\d.]+)\s+\]", r"[\1, \2]", text)
        f.write(text + "\n")
    geo = [c for c in rm.load_conditions(os.path.join(args.out, "conditions.geojson"))
           if c.kind != "beacon"]
    records = write(build_stream(geo), args.out)
    problems = check(args.out, records)
    if problems:
        print("%d problem(s); fix the fixture" % problems, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
