#!/usr/bin/env python3
"""Generate Fixtures/live (live updates, docs/live.md) and Fixtures/approximate/reports
(approximate reports, docs/approximate.md "Reports").

Each live scenario is a folder Fixtures/live/NN-short-name/ with observations.jsonl, optional
conditions.geojson and density.geojson, optional args.txt (one line of whitespace-separated
flags, no file paths), expected-updates.jsonl (the output of scripts/reference_live.py) and,
when there are conditions, expected-events.jsonl (the monitoring events of the same run, which
must be byte for byte those of scripts/reference_monitor.py).

Each reports scenario is a folder Fixtures/approximate/reports/NN-short-name/ with
observations.jsonl, optional density.geojson and args.txt, and expected-approximate.jsonl (the
output of `reference_live.py --approximate-fixes`).

Checks made before anything is accepted:
- every oracle line equals, byte for byte, the line built from an expectation written by hand
  below (which fix's location or which fix's cell, stationary, locationUnavailable and its date,
  accuracyLimited, diagnostics, cause); the expected line is put together here, from the
  observation's own number literals (which are the shortest decimals of their doubles) and the
  grid of scripts/reference_approximate.py, not by the oracle's formatter;
- for the random walk, whose expectation is too long to write by hand, a separate
  re-computation here of which fix each report comes from, and the report's circle holding
  that fix;
- with conditions, the events file equals reference_monitor.py's output and the events written
  by hand;
- the spots a scenario names for a cell are in that cell (and the others are not);
- a second oracle run gives byte-identical output.

Usage: python3 scripts/make_live_fixtures.py [--root .] (needs shapely 2, like the oracles).
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_approximate as ra  # noqa: E402
import reference_monitor as rm  # noqa: E402

DAY = "2026-03-02"
DESK_UUID = "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"
K = ra.K  # metres per degree of latitude

# ------------------------------------------------------------------ geography (Lyon)

LYON = (45.7600, 4.8420)  # (lat, lon): the Presqu'ile
HOME = (45.7578, 4.8320)  # circle r = 80 m (conditions of 15)


def at(north_m, east_m, base=LYON):
    """A point north_m north and east_m east of base (local plane), 7 decimals (about 1 cm)."""
    lat = base[0] + north_m / K
    lon = base[1] + east_m / (K * math.cos(math.radians(base[0])))
    return round(lat, 7), round(lon, 7)


def metres(p, q):
    return rm.haversine_m(p[1], p[0], q[1], q[0])


# Points of the reduced-accuracy scenarios: A* in one 5 km cell, B* in the cell east of it.
A1 = at(0, 0)
A2 = at(300, -300)
B = [at(100 * i, 5500) for i in range(8)]

# ------------------------------------------------------------------ record helpers


def T(hms):
    return "%sT%sZ" % (DAY, hms)


def number_text(x):
    return "%d" % x if isinstance(x, int) else repr(x)


def F(t, spot, dev="ana", accuracy=10):
    return {"type": "fix", "device": dev, "t": T(t), "lat": spot[0], "lon": spot[1],
            "accuracy": accuracy}


def X(t, dev="ana", spot=(95.0, 4.842)):
    """An invalid fix (negative accuracy); its position is not checked."""
    return F(t, spot, dev, accuracy=-1)


def B_(t, minor, dev="ana"):
    return {"type": "sighting", "device": dev, "t": T(t), "uuid": DESK_UUID, "major": 1,
            "minor": minor, "rssi": -62}


def A(t, state, dev="ana"):
    return {"type": "app", "device": dev, "t": T(t), "state": state}


def Q(t, what, dev="ana"):
    return {"type": "request", "device": dev, "t": T(t), "what": what}


def ANS(t, choice, dev="ana", precise=None):
    record = {"type": "answer", "device": dev, "t": T(t), "choice": choice}
    if precise is not None:
        record["precise"] = precise
    return record


def S(t, dev="ana", **fields):
    record = {"type": "settings", "device": dev, "t": T(t)}
    for name in ("status", "precise", "locationServices"):
        if name in fields:
            record[name] = fields[name]
    return record


def C(t, live, dev="ana"):
    return {"type": "config", "device": dev, "t": T(t), "live": live}


def record_line(record):
    head = '{"type":"%s","device":"%s","t":"%s"' % (record["type"], record["device"], record["t"])
    if record["type"] == "fix":
        return head + ',"lat":%s,"lon":%s,"accuracy":%s}' % (
            number_text(record["lat"]), number_text(record["lon"]),
            number_text(record["accuracy"]))
    rest = {k: v for k, v in record.items() if k not in ("type", "device", "t")}
    body = json.dumps(rest, separators=(",", ":"))
    return head + "," + body[1:]


# ------------------------------------------------------------------ expectations
# An expectation names the record (observation line, 1-based) that causes the line; the device
# and, for a fix's update, the date and the position come from that record.

DIAG = {
    "": [],
    "notInUse": ["insufficientlyInUse"],
    "prompt": ["authorizationRequestInProgress"],
    "denied": ["authorizationDenied"],
    "servicesOff": ["authorizationDenied", "authorizationDeniedGlobally"],
    "restricted": ["authorizationRestricted"],
}


def UF(cause, stationary=False):
    """The fix of line `cause`, as it is, given to the app."""
    return ("fix", cause, stationary)


def UN(cause, diag, stationary=False):
    """The update of the fix of line `cause`, without its location."""
    return ("null", cause, stationary, diag)


def UA(cause, source, cell=5, stationary=False):
    """The update of the fix of line `cause` with the approximate location: the cell (size
    `cell` km) of the fix of line `source`; accuracyLimited."""
    return ("approx", cause, stationary, source, cell)


def UU(cause, hms, diag="", limited=False):
    """locationUnavailable dated `hms`, written at line `cause` (or at the end, the device's last)."""
    return ("unavailable", cause, hms, diag, limited)


def AX(cause, source, cell=5):
    """`evaluate --approximate` line of the fix of line `cause`: the cell of line `source`'s fix."""
    return ("report", cause, source, cell)


def js(text):
    return json.dumps(text, ensure_ascii=False)


def centre_text(x):
    return "%d" % x if float(x).is_integer() else repr(x)


def cell_report(record, cell):
    band, column = ra.cell_of(record["lat"], record["lon"], cell)
    lat, lon = ra.centre_of(cell, band, column)
    return lat, lon, ra.radius_of(cell, band, column)


def expected_line(expectation, records):
    kind, cause = expectation[0], expectation[1]
    record = records[cause - 1]
    device = record["device"]
    if kind == "report":
        lat, lon, radius = cell_report(records[expectation[2] - 1], expectation[3])
        return '{"device":%s,"date":%s,"lat":%s,"lon":%s,"accuracy":%d,"cause":%d}' % (
            js(device), js(record["t"]), centre_text(lat), centre_text(lon), radius, cause)
    if kind == "unavailable":
        _, _, hms, diag, limited = expectation
        date, location, stationary, unavailable, diagnostics = T(hms), "null", False, True, DIAG[diag]
    else:
        assert record["type"] == "fix" and record["accuracy"] >= 0, expectation
        date, stationary, unavailable, limited = record["t"], expectation[2], False, False
        diagnostics = []
        if kind == "fix":
            location = '{"lat":%s,"lon":%s,"accuracy":%s}' % (
                number_text(record["lat"]), number_text(record["lon"]),
                number_text(record["accuracy"]))
        elif kind == "null":
            location = "null"
            diagnostics = DIAG[expectation[3]]
            assert diagnostics, expectation
        else:  # approx
            lat, lon, radius = cell_report(records[expectation[3] - 1], expectation[4])
            location = '{"lat":%s,"lon":%s,"accuracy":%d}' % (centre_text(lat), centre_text(lon),
                                                             radius)
            limited = True
    return ('{"device":%s,"date":%s,"location":%s,"stationary":%s,"locationUnavailable":%s,'
            '"accuracyLimited":%s,"diagnostics":[%s],"cause":%d}') % (
        js(device), js(date), location, "true" if stationary else "false",
        "true" if unavailable else "false", "true" if limited else "false",
        ",".join(js(d) for d in diagnostics), cause)


def E(cause, identifier, state, hms, dev="ana"):
    """A monitoring event, delivered (the conditions scenario runs under always)."""
    return {"cause": cause, "device": dev, "identifier": identifier, "state": state,
            "date": T(hms), "delivery": "delivered", "reason": None, "diagnostics": []}


ND = ["--initial-authorization", "notDetermined"]

# ------------------------------------------------------------------ conditions and density

CONDITIONS_15 = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": "home", "geometry": {"type": "Point", "coordinates": [HOME[1], HOME[0]]},
     "properties": {"name": "Home", "radius": 80, "assuming": "unsatisfied"}},
    {"type": "Feature", "id": "desk", "geometry": None,
     "properties": {"name": "Desk beacons (any minor)", "beacon": {"uuid": DESK_UUID, "major": 1},
                    "assuming": "unsatisfied"}},
]}


def square(south, west, north, east):
    return [[west, south], [east, south], [east, north], [west, north], [west, south]]


CITY = (45.74, 4.80, 45.78, 4.86)  # south, west, north, east: cell 1 km
REGION = (45.60, 4.70, 45.90, 5.10)  # cell 2 km (first part of a MultiPolygon)
GRENOBLE = (45.15, 5.68, 45.22, 5.78)  # cell 2 km (second part)
WIDE = (45.00, 4.00, 46.50, 6.00)  # cell 10 km, overlaps all of the above

DENSITY_LIVE = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"name": "Lyon", "cell": 1},
     "geometry": {"type": "Polygon", "coordinates": [square(*CITY)]}},
    {"type": "Feature", "properties": {"name": "Metropole", "cell": 2},
     "geometry": {"type": "Polygon", "coordinates": [square(*REGION)]}},
]}

DENSITY_REPORTS = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"name": "Lyon", "cell": 1},
     "geometry": {"type": "Polygon", "coordinates": [square(*CITY)]}},
    {"type": "Feature", "properties": {"name": "Lyon and Grenoble areas", "cell": 2},
     "geometry": {"type": "MultiPolygon",
                  "coordinates": [[square(*REGION)], [square(*GRENOBLE)]]}},
    {"type": "Feature", "properties": {"name": "Rhone-Alpes, roughly", "cell": 10},
     "geometry": {"type": "Polygon", "coordinates": [square(*WIDE)]}},
]}

# ------------------------------------------------------------------ live scenarios

LIVE = [
    dict(
        name="01-moving",
        args=[],
        shows="A device on the move: every valid fix yields an update with its own location "
              "(numbers as written in the input: `10`, `12.5`, `0`), `stationary: false`; two "
              "devices interleaved, each with its own state.",
        words="ana walks 100 m north every 30 s (L1, L2, L4, L6, L7), ben 60 m east every 40 s "
              "(L3, L5, L8; accuracy 12.5 then 0): one update per fix, in input order.",
        records=[
            F("09:00:00", at(0, 0)),
            F("09:00:30", at(100, 0)),
            F("09:00:40", at(0, 1000), "ben", 12.5),
            F("09:01:00", at(200, 0)),
            F("09:01:20", at(0, 1060), "ben", 12.5),
            F("09:01:30", at(300, 0)),
            F("09:02:00", at(400, 0)),
            F("09:02:00", at(0, 1120), "ben", 0),
        ],
        expect=[UF(1), UF(2), UF(3), UF(4), UF(5), UF(6), UF(7), UF(8)],
    ),
    dict(
        name="02-stationary-pause",
        args=[],
        shows="Stationary at exactly `stationaryTime` (180 s) after the window's first fix, all "
              "fixes within 25 m of it; then paused: a fix within 25 m of the pausing fix yields "
              "nothing, a long silence says no locationUnavailable, and the first fix beyond 25 m "
              "resumes with `stationary: false`. ben is still at the end of the input, paused: no "
              "locationUnavailable at the end either.",
        words="ana: L1 anchor; L2, L3, L4 (09:02:59, 179 s) within 25 m: false; L5 (09:03:00) "
              "stationary true. L6 (10 m from L5) nothing; L7 an app record 6 min later: "
              "nothing (paused); L8 (5 m) nothing; L9 (40 m from L5) resumes, false, new anchor; "
              "L10, L11 false. ben: L12–L15 (same spot, every 60 s): L15 stationary true; L16 "
              "(app, 27 min later, last record) nothing.",
        records=[
            F("09:00:00", at(0, 0)),
            F("09:01:00", at(10, 0)),
            F("09:02:00", at(0, 15)),
            F("09:02:59", at(-10, 0)),
            F("09:03:00", at(5, 5)),
            F("09:03:40", at(15, 5)),
            A("09:10:00", "background"),
            F("09:20:00", at(10, 5)),
            F("09:20:30", at(5, 45)),
            F("09:21:00", at(5, 50)),
            F("09:21:30", at(5, 40)),
            F("09:00:00", at(500, 0), "ben"),
            F("09:01:00", at(500, 0), "ben"),
            F("09:02:00", at(500, 0), "ben"),
            F("09:03:00", at(500, 0), "ben"),
            A("09:30:00", "background", "ben"),
        ],
        expect=[UF(1), UF(2), UF(3), UF(4), UF(5, stationary=True), UF(9), UF(10), UF(11),
                UF(12), UF(13), UF(14), UF(15, stationary=True)],
    ),
    dict(
        name="03-window-restart",
        args=[],
        shows="A fix more than 25 m from the window's first fix starts a new window: the time "
              "counts from it, not from the first fix of all.",
        words="L1 anchor (09:00:00); L2 20 m: false; L3 32 m from L1: new anchor (09:01:40), "
              "false; L4 and L5 (09:03:00: 180 s after L1, within 25 m of both) false; L6 false; "
              "L7 (09:04:40, 180 s after L3) stationary true.",
        records=[
            F("09:00:00", at(0, 0)),
            F("09:00:50", at(20, 0)),
            F("09:01:40", at(32, 0)),
            F("09:02:30", at(16, 0)),
            F("09:03:00", at(16, 0)),
            F("09:03:50", at(40, 0)),
            F("09:04:40", at(30, 0)),
        ],
        expect=[UF(1), UF(2), UF(3), UF(4), UF(5), UF(6), UF(7, stationary=True)],
    ),
    dict(
        name="04-accuracy-radius",
        args=[],
        shows="The radius is `max(stationaryRadius, the fix's accuracy)`, the new fix's accuracy: "
              "a poor fix far from the anchor keeps the window, and keeps a pause.",
        words="L1 anchor; L2 50 m away, accuracy 60: within, false; L3 40 m from L1, accuracy "
              "10: new anchor (09:01:20); L4–L6 false; L7 (09:04:20) 80 m away with accuracy 100: "
              "within, 180 s: stationary true (its location carries accuracy 100). L8 40 m from "
              "L7 with accuracy 50: nothing (paused); L9 the same spot with accuracy 10: resumes, "
              "false.",
        records=[
            F("09:00:00", at(0, 0)),
            F("09:00:40", at(50, 0), accuracy=60),
            F("09:01:20", at(40, 0)),
            F("09:02:00", at(40, 0), accuracy=8),
            F("09:02:40", at(40, 0), accuracy=8),
            F("09:03:20", at(40, 0), accuracy=8),
            F("09:04:20", at(-40, 0), accuracy=100),
            F("09:05:00", at(0, 0), accuracy=50),
            F("09:05:40", at(0, 0)),
        ],
        expect=[UF(1), UF(2), UF(3), UF(4), UF(5), UF(6), UF(7, stationary=True), UF(9)],
    ),
    dict(
        name="05-invalid-fixes",
        args=[],
        shows="Invalid fixes (negative accuracy; position not checked, here latitude 95) yield "
              "nothing and change nothing. locationUnavailable falls due 60 s after the last "
              "valid fix and is said at the first record strictly after that instant, once. "
              "Neither clears the window (our reading of docs/live.md): the next valid fix, "
              "within 25 m of the window's first and 190 s after it, is stationary.",
        words="L1 anchor; L2 invalid; L3 false; L4, L5 invalid (L5 at 09:02:00, exactly when "
              "due: nothing); L6 (09:02:05) locationUnavailable dated 09:02:00, cause 6; L7 "
              "invalid: nothing; L8 (09:03:10, 5 m from L1) stationary true; L9 invalid while "
              "paused: nothing, and nothing at the end.",
        records=[
            F("09:00:00", at(0, 0)),
            X("09:00:30"),
            F("09:01:00", at(5, 0)),
            X("09:01:30", spot=at(1000, 0)),
            X("09:02:00"),
            X("09:02:05"),
            X("09:03:00"),
            F("09:03:10", at(0, 5)),
            X("09:04:20"),
        ],
        expect=[UF(1), UF(3), UU(6, "09:02:00"), UF(8, stationary=True)],
    ),
    dict(
        name="06-unavailable",
        args=[],
        shows="locationUnavailable: for a device that never had a valid fix (counted from its "
              "first record), due exactly at a record (nothing) or strictly before one; at the "
              "end of the input when due exactly at the device's last record, not when due "
              "after it; said before the fix that ends the silence, both caused by it.",
        words="ana (sightings only, first record 09:00:00): L5 at 09:01:00 nothing; L8 "
              "(09:01:30) locationUnavailable dated 09:01:00; L11 nothing more. ben: L2 fix, "
              "L6 (09:01:10, his last record) app: at the end, locationUnavailable dated "
              "09:01:10, cause 6. carl: L3 fix, L7 (09:01:19, last) app: nothing. dan: L4 fix; "
              "L10 (09:02:00) fix: locationUnavailable dated 09:01:30, then the fix's update, "
              "both cause 10.",
        records=[
            B_("09:00:00", 7),
            F("09:00:10", at(0, 0), "ben"),
            F("09:00:20", at(200, 0), "carl"),
            F("09:00:30", at(400, 0), "dan"),
            B_("09:01:00", 7),
            A("09:01:10", "foreground", "ben"),
            A("09:01:19", "foreground", "carl"),
            B_("09:01:30", 7),
            B_("09:01:45", 8),
            F("09:02:00", at(500, 0), "dan"),
            B_("09:05:00", 7),
        ],
        expect=[UF(2), UF(3), UF(4), UU(8, "09:01:00"),
                UU(10, "09:01:30"), UF(10), UU(6, "09:01:10")],
    ),
    dict(
        name="07-configurations",
        args=[],
        shows="`config` records: `fitness` (15 m, 120 s), `automotiveNavigation` (100 m, 300 s), "
              "`airborne` (never pauses). A config record is a device's first record here; it "
              "yields nothing.",
        words="ana (fitness from L1): L4 anchor; L7 20 m away: beyond 15 m, new anchor "
              "(09:00:50); L10 10 m, L13 false; L16 (09:02:50, 120 s) stationary true. ben "
              "(automotiveNavigation): L5 anchor, L8 80 m away (beyond 25, within 100) false, "
              "L11, L14, L17 (240 s) false, L19 (09:05:00, 300 s) stationary true. carl "
              "(airborne): six fixes at one spot every 60 s for 5 min: all false.",
        records=[
            C("09:00:00", "fitness"),
            C("09:00:00", "automotiveNavigation", "ben"),
            C("09:00:00", "airborne", "carl"),
            F("09:00:10", at(0, 0)),
            F("09:00:00", at(0, 1000), "ben"),
            F("09:00:00", at(0, 2000), "carl"),
            F("09:00:50", at(20, 0)),
            F("09:01:00", at(80, 1000), "ben"),
            F("09:01:00", at(0, 2000), "carl"),
            F("09:01:30", at(30, 0)),
            F("09:02:00", at(-60, 1000), "ben"),
            F("09:02:00", at(0, 2000), "carl"),
            F("09:02:10", at(20, 0)),
            F("09:03:00", at(0, 1050), "ben"),
            F("09:03:00", at(0, 2000), "carl"),
            F("09:02:50", at(20, 0)),
            F("09:04:00", at(40, 1000), "ben"),
            F("09:04:00", at(0, 2000), "carl"),
            F("09:05:00", at(-50, 1000), "ben"),
            F("09:05:00", at(0, 2000), "carl"),
        ],
        expect=[UF(4), UF(5), UF(6), UF(7), UF(8), UF(9), UF(10), UF(11), UF(12), UF(13),
                UF(14), UF(15), UF(16, stationary=True), UF(17), UF(18),
                UF(19, stationary=True), UF(20)],
    ),
    dict(
        name="08-config-while-paused",
        args=[],
        shows="A config record naming another configuration ends a pause silently and clears "
              "the window; one naming the current configuration changes nothing. A pause a config "
              "record ends counts the silence from that record (docs/live.md): the device was not "
              "looking while paused.",
        words="ana: L1–L4 every 60 s: L4 stationary true; L5 (5 m) nothing; L6 fitness: the pause "
              "ends, nothing written; L7 (5 m) false, new anchor (09:04:00); L8 fitness again: "
              "nothing changes; L9 false; L10 (09:06:00, 120 s after L7) stationary true; L11 "
              "default: the pause ends; L12 (app, 09:10:00) locationUnavailable dated 09:07:30 "
              "(L11 + 60 s, not L10 + 60 s). ben: L13–L16 stationary at L16 (09:03:00); L17 (app, "
              "09:10:00) nothing, paused; L18 (09:10:30) fitness ends the pause; L19 (app, "
              "09:11:00) nothing (due 09:11:30); L20 (app, 09:12:00) locationUnavailable dated "
              "09:11:30.",
        records=[
            F("09:00:00", at(0, 0)),
            F("09:01:00", at(0, 0)),
            F("09:02:00", at(0, 0)),
            F("09:03:00", at(0, 0)),
            F("09:03:30", at(5, 0)),
            C("09:03:40", "fitness"),
            F("09:04:00", at(5, 0)),
            C("09:04:30", "fitness"),
            F("09:05:00", at(5, 0)),
            F("09:06:00", at(5, 0)),
            C("09:06:30", "default"),
            A("09:10:00", "background"),
            F("09:00:00", at(500, 0), "ben"),
            F("09:01:00", at(500, 0), "ben"),
            F("09:02:00", at(500, 0), "ben"),
            F("09:03:00", at(500, 0), "ben"),
            A("09:10:00", "background", "ben"),
            C("09:10:30", "fitness", "ben"),
            A("09:11:00", "foreground", "ben"),
            A("09:12:00", "background", "ben"),
        ],
        expect=[UF(1), UF(2), UF(3), UF(4, stationary=True), UF(7), UF(9),
                UF(10, stationary=True), UU(12, "09:07:30"),
                UF(13), UF(14), UF(15), UF(16, stationary=True), UU(20, "09:11:30")],
    ),
    dict(
        name="09-options",
        args=["--live", "otherNavigation", "--stationary-radius", "40", "--stationary-time", "60",
              "--unavailable-after", "30"],
        shows="`--live otherNavigation` (50 m, 240 s) starts every device; `--stationary-radius` "
              "and `--stationary-time` change the `default` row only (a device gets it with a "
              "`config default` record); `--unavailable-after 30`. A locationUnavailable does not "
              "clear the window.",
        words="ana (otherNavigation): L1 anchor; L3 (09:02:00) locationUnavailable dated "
              "09:00:30, then 45 m away: false; L6 (09:04:00) locationUnavailable dated 09:02:30, "
              "then 45 m the other way, 240 s: stationary true. ben: L2 config default (40 m, "
              "60 s); L4 anchor; L5 35 m: false; L7 30 m: false; L8 (09:01:05, 60 s) stationary "
              "true.",
        records=[
            F("09:00:00", at(0, 0)),
            C("09:00:00", "default", "ben"),
            F("09:02:00", at(45, 0)),
            F("09:00:05", at(0, 1000), "ben"),
            F("09:00:30", at(35, 1000), "ben"),
            F("09:04:00", at(-45, 0)),
            F("09:00:55", at(0, 1030), "ben"),
            F("09:01:05", at(0, 1000), "ben"),
        ],
        expect=[UF(1), UU(3, "09:00:30"), UF(3), UF(4), UF(5), UU(6, "09:02:30"),
                UF(6, stationary=True), UF(7), UF(8, stationary=True)],
    ),
    dict(
        name="10-not-determined-when-in-use",
        args=ND,
        shows="Access (docs/live.md table): notDetermined without a prompt (even in the "
              "foreground) and with the first prompt open; when-in-use in the foreground, at "
              "exactly the end of the grace period, after it, with the indicator and after the "
              "indicator (no grace). A locationUnavailable takes the access at its due instant "
              "from the authorization before its record: here the record brings the app to the "
              "foreground, but the update says insufficientlyInUse.",
        words="L1 null insufficientlyInUse (background, notDetermined); L3 (foreground) the same; "
              "L4 request: L5 null authorizationRequestInProgress; L6 allowWhileUsing: L7 the fix; "
              "L8 background 09:01:10: L9 (09:01:15) the fix, L10 null insufficientlyInUse; L11 "
              "indicator: L12 the fix; L13 background: L14 (1 s later) null insufficientlyInUse; "
              "L15 (foreground, 09:04:00) locationUnavailable dated 09:03:11, "
              "insufficientlyInUse.",
        records=[
            F("09:00:00", at(0, 0)),
            A("09:00:20", "foreground"),
            F("09:00:25", at(100, 0)),
            Q("09:00:30", "whenInUse"),
            F("09:00:40", at(200, 0)),
            ANS("09:00:50", "allowWhileUsing"),
            F("09:01:00", at(300, 0)),
            A("09:01:10", "background"),
            F("09:01:15", at(400, 0)),
            F("09:01:20", at(500, 0)),
            A("09:01:40", "indicator"),
            F("09:02:00", at(600, 0)),
            A("09:02:10", "background"),
            F("09:02:11", at(700, 0)),
            A("09:04:00", "foreground"),
        ],
        expect=[UN(1, "notInUse"), UN(3, "notInUse"), UN(5, "prompt"), UF(7), UF(9),
                UN(10, "notInUse"), UF(12), UN(14, "notInUse"),
                UU(15, "09:03:11", "notInUse")],
    ),
    dict(
        name="11-denied-services-off",
        args=[],
        shows="Location services off (both diagnostics, before `denied`), denied, and back. The "
              "locationUnavailable said at the record that turns services off takes the access "
              "before that record (always: no diagnostics).",
        words="L1 the fix; L2 (09:01:30, services off) locationUnavailable dated 09:01:00, no "
              "diagnostics; L3 null (authorizationDenied, authorizationDeniedGlobally); L4 "
              "Settings never: L5 still both; L6 services on: L7 null authorizationDenied; L8 "
              "Settings always: L9 the fix.",
        records=[
            F("09:00:00", at(0, 0)),
            S("09:01:30", locationServices=False),
            F("09:01:40", at(100, 0)),
            S("09:02:00", status="never"),
            F("09:02:10", at(200, 0)),
            S("09:02:20", locationServices=True),
            F("09:02:30", at(300, 0)),
            S("09:02:40", status="always"),
            F("09:02:50", at(400, 0)),
        ],
        expect=[UF(1), UU(2, "09:01:00"), UN(3, "servicesOff"), UN(5, "servicesOff"),
                UN(7, "denied"), UF(9)],
    ),
    dict(
        name="12-provisional-allow-once",
        args=ND,
        shows="Provisional always: the fix while in use, `null` with insufficientlyInUse out of "
              "use (updates are not held), the fix once Settings says always. Allow Once: the fix "
              "in the foreground and in the grace period, `null` insufficientlyInUse once it "
              "lapsed to notDetermined.",
        words="ana: L1, L3, L5 provisional always; L7 (in use) the fix; L8 background; L10 "
              "(grace over) null insufficientlyInUse; L11 Settings always: L13 the fix. ben: L2, "
              "L4, L6 Allow Once; L9 the fix; L12 background 09:00:30; L14 (09:00:33, grace) the "
              "fix; L15 (09:00:40, lapsed at 09:00:35) null insufficientlyInUse.",
        records=[
            A("09:00:00", "foreground"),
            A("09:00:00", "foreground", "ben"),
            Q("09:00:05", "always"),
            Q("09:00:05", "whenInUse", "ben"),
            ANS("09:00:08", "allowWhileUsing"),
            ANS("09:00:10", "allowOnce", "ben"),
            F("09:00:12", at(0, 0)),
            A("09:00:15", "background"),
            F("09:00:20", at(0, 1000), "ben"),
            F("09:00:25", at(100, 0)),
            S("09:00:28", status="always"),
            A("09:00:30", "background", "ben"),
            F("09:00:31", at(200, 0)),
            F("09:00:33", at(100, 1000), "ben"),
            F("09:00:40", at(200, 1000), "ben"),
        ],
        expect=[UF(7), UF(9), UN(10, "notInUse"), UF(13), UF(14), UN(15, "notInUse")],
    ),
    dict(
        name="13-reduced-accuracy",
        args=ND,
        shows="Reduced accuracy: the location is the device's approximate report (5 km cell "
              "centre, radius as accuracy) with accuracyLimited true; the report is recomputed "
              "only at a fix 900 s or more after the last computation, and changes only with the "
              "cell; a locationUnavailable under reduced accuracy says accuracyLimited; a "
              "temporary full-accuracy grant gives the fix itself until it lapses; Settings "
              "precise on. ben (always, reduced, with a grant): the locationUnavailable due after "
              "the grant lapsed says accuracyLimited, though the record before it still had the "
              "grant.",
        words="ana: L4 (09:01:00, cell X) approx of L4; L5 (cell Y) still X; L6 (09:16:00): first "
              "locationUnavailable dated 09:02:30 (limited), then a recomputation (900 s) in X: "
              "X, computed at 09:16:00; L7 (Y, 09:16:30) still X; L8 (09:31:00): "
              "locationUnavailable dated 09:17:30, then Y; L9/L10 temporary full accuracy: L11 "
              "and L13 (grace) the fix; L14 (lapsed) null insufficientlyInUse; L15 foreground: "
              "L16 approx Y; L17 precise on: L18 the fix. ben: L19–L24 always, reduced, grant; "
              "L25 the fix; L26 background 09:01:20; L27 (09:02:30): locationUnavailable dated "
              "09:02:00 with accuracyLimited, then approx of L25.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"),
            ANS("09:00:10", "allowWhileUsing", precise=False),
            F("09:01:00", A1),
            F("09:01:30", B[0]),
            F("09:16:00", A2),
            F("09:16:30", B[1]),
            F("09:31:00", B[2]),
            Q("09:31:10", "temporaryFullAccuracy"),
            ANS("09:31:20", "allowOnce"),
            F("09:31:30", B[3]),
            A("09:31:40", "background"),
            F("09:31:44", B[4]),
            F("09:31:50", B[5]),
            A("09:32:00", "foreground"),
            F("09:32:10", B[6]),
            S("09:32:20", precise=True),
            F("09:32:30", B[7]),
            A("09:00:00", "foreground", "ben"),
            Q("09:00:05", "whenInUse", "ben"),
            ANS("09:00:10", "allowWhileUsing", "ben", precise=False),
            S("09:00:15", "ben", status="always"),
            Q("09:00:20", "temporaryFullAccuracy", "ben"),
            ANS("09:00:25", "allowOnce", "ben"),
            F("09:01:00", at(0, 2000), "ben"),
            A("09:01:20", "background", "ben"),
            F("09:02:30", at(100, 2000), "ben"),
        ],
        expect=[UA(4, 4), UA(5, 4), UU(6, "09:02:30", limited=True), UA(6, 4), UA(7, 4),
                UU(8, "09:17:30", limited=True), UA(8, 8), UF(11), UF(13), UN(14, "notInUse"),
                UA(16, 8), UF(18),
                UF(25), UU(27, "09:02:00", limited=True), UA(27, 25)],
        cells=[([4, 6], [5, 7, 8, 11, 13, 14, 16, 18])],
    ),
    dict(
        name="14-density",
        args=["--approximate-interval", "0"],
        density=DENSITY_LIVE,
        shows="`--density`: a fix inside the first polygon (boundary included) is quantized on "
              "its 1 km grid, inside only the second on its 2 km grid, elsewhere on the default "
              "5 km grid; `--approximate-interval 0` recomputes at every fix. Reduced accuracy "
              "from a Settings record (always, in the foreground).",
        words="L1 Settings precise off; L2 in Lyon: 1 km cell; L3 exactly on Lyon's northern edge "
              "(also inside the Metropole): 1 km; L4 north of Lyon, inside the Metropole: 2 km; "
              "L5 outside both: 5 km; L6 back in Lyon: 1 km.",
        records=[
            S("09:00:00", precise=False),
            F("09:00:10", (45.7600, 4.8400)),
            F("09:00:40", (45.78, 4.8500)),
            F("09:01:10", (45.8000, 4.8500)),
            F("09:01:40", (45.9500, 4.8500)),
            F("09:02:10", (45.7500, 4.8300)),
        ],
        expect=[UA(2, 2, 1), UA(3, 3, 1), UA(4, 4, 2), UA(5, 5, 5), UA(6, 6, 1)],
    ),
    dict(
        name="15-reduced-accuracy-paused",
        args=[],
        shows="The approximate reporter sees every valid fix, those that yield no update because "
              "the device is paused too: a paused fix (within its own accuracy of the pausing "
              "fix) recomputes the report into the next cell, and the update that resumes shows "
              "that report.",
        words="L1 Settings precise off (always, foreground). L2 (cell X, near its eastern edge) "
              "approx X; L3, L4 the same; L5 (09:03:10) stationary true, approx X. L6 (09:15:10, "
              "1 km east in cell Y, accuracy 1500): nothing (paused), but 900 s after L2 the "
              "report becomes Y. L7 (09:16:10, 200 m west of L5, back in X): resumes, false, "
              "approx Y (60 s since the last computation).",
        records=[
            S("09:00:00", precise=False),
            F("09:00:10", (45.7600, 4.8640)),
            F("09:01:10", (45.7600, 4.8640)),
            F("09:02:10", (45.7600, 4.8640)),
            F("09:03:10", (45.7600, 4.8640)),
            F("09:15:10", (45.7600, 4.8770), accuracy=1500),
            F("09:16:10", (45.7600, 4.8614)),
        ],
        expect=[UA(2, 2), UA(3, 2), UA(4, 2), UA(5, 2, stationary=True), UA(7, 6)],
        cells=[([2, 7], [6])],
    ),
    dict(
        name="16-conditions",
        args=[],
        conditions=CONDITIONS_15,
        shows="Monitoring does not depend on updates: while the device is paused a fix within "
              "the pause radius crosses into `home` (an event, no update), a beacon is seen and "
              "its exit falls due; the events file is reference_monitor.py's, byte for byte.",
        words="Updates: L1–L3 false, L4 (09:03:00) stationary true (10 m outside `home`); L5 "
              "(20 m away, inside `home`) nothing; L6 sighting, L7 app: nothing (paused); L8 "
              "(110 m) resumes, false; L9 (09:08:30) locationUnavailable dated 09:08:00. Events: "
              "L5 `home` satisfied, L6 `desk` satisfied, L7 `desk` unsatisfied dated 09:04:30, L8 "
              "`home` unsatisfied, all delivered.",
        records=[
            F("09:00:00", at(90, 0, HOME), accuracy=5),
            F("09:01:00", at(90, 0, HOME), accuracy=5),
            F("09:02:00", at(90, 0, HOME), accuracy=5),
            F("09:03:00", at(90, 0, HOME), accuracy=5),
            F("09:03:30", at(70, 0, HOME), accuracy=5),
            B_("09:04:00", 3),
            A("09:06:00", "background"),
            F("09:07:00", at(200, 0, HOME), accuracy=5),
            A("09:08:30", "foreground"),
        ],
        expect=[UF(1), UF(2), UF(3), UF(4, stationary=True), UF(8), UU(9, "09:08:00")],
        events=[
            E(5, "home", "satisfied", "09:03:30"),
            E(6, "desk", "satisfied", "09:04:00"),
            E(7, "desk", "unsatisfied", "09:04:30"),
            E(8, "home", "unsatisfied", "09:07:00"),
        ],
    ),
]



# ------------------------------------------------------------------ reports scenarios


def random_walk():
    """A deterministic walk from Lyon: a fix every 150 s, steps of up to 1.2 km, some invalid."""
    rng = random.Random(20260302)
    records = []
    lat, lon = LYON
    t = 8 * 3600
    for i in range(40):
        hms = "%02d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)
        if i % 9 == 4:
            records.append(X(hms, "walker"))
        else:
            records.append(F(hms, (round(lat, 7), round(lon, 7)), "walker",
                             accuracy=rng.choice([5, 8, 12.5, 30])))
        bearing = rng.uniform(0, 2 * math.pi)
        step = rng.uniform(200, 1200)
        lat += step * math.cos(bearing) / K
        lon += step * math.sin(bearing) / (K * math.cos(math.radians(lat)))
        t += 150
    # a second device whose records interleave, and records that are not fixes
    records.insert(3, A("08:05:00", "background", "walker"))
    records.insert(10, F("08:10:00", A1, "sam"))
    records.insert(30, F("08:50:00", B[0], "sam"))
    return records


def walk_expectation(records, cell, interval_s):
    """Which fix each report comes from: recomputed here, apart from the oracle's reporter."""
    def seconds(hms_text):
        hms = hms_text[11:19]
        return int(hms[0:2]) * 3600 + int(hms[3:5]) * 60 + int(hms[6:8])

    state = {}  # device -> (source line, time of last computation)
    expect = []
    for line, record in enumerate(records, start=1):
        if record["type"] != "fix" or record["accuracy"] < 0:
            continue
        now = seconds(record["t"])
        device = record["device"]
        if device not in state:
            state[device] = (line, now)
        else:
            source, last = state[device]
            if now - last >= interval_s:
                here = ra.cell_of(record["lat"], record["lon"], cell)
                there = ra.cell_of(records[source - 1]["lat"], records[source - 1]["lon"], cell)
                state[device] = (line if here != there else source, now)
        expect.append(AX(line, state[device][0], cell))
    return expect


WALK = random_walk()

REPORTS = [
    dict(
        name="01-interval",
        args=[],
        shows="The report is computed at a device's first valid fix, recomputed at a fix 900 s "
              "or more after the last computation (which that fix becomes, even when the cell is "
              "the same), and changes only with the cell; invalid fixes and other records are "
              "not seen; each device has its own reporter.",
        words="ana: L1 (cell X) X; L3 (Y, 300 s) X; L5 invalid, no line; L6 (09:15:00, X) "
              "recomputed, X; L7 (Y, 09:20:00: 1200 s after L1 but 300 s after L6) X; L9 "
              "(09:29:59) X; L10 (09:30:00) Y. ben: L2 (Y) Y; L4 app; L8 (09:17:00, 900 s, X) X.",
        records=[
            F("09:00:00", A1),
            F("09:02:00", B[0], "ben"),
            F("09:05:00", B[0]),
            A("09:06:00", "background", "ben"),
            X("09:10:00", spot=B[1]),
            F("09:15:00", A2),
            F("09:20:00", B[1]),
            F("09:17:00", A1, "ben"),
            F("09:29:59", B[2]),
            F("09:30:00", B[2]),
        ],
        expect=[AX(1, 1), AX(2, 2), AX(3, 1), AX(6, 1), AX(7, 1), AX(8, 8), AX(9, 1),
                AX(10, 10)],
        cells=[([1, 6, 8], [2, 3, 7, 9, 10])],
    ),
    dict(
        name="02-random-walk",
        args=["--approximate-cell", "2"],
        shows="A seeded random walk from Lyon (steps of 0.2–1.2 km every 150 s, some invalid "
              "fixes) on a 2 km grid, crossing many cells; a second device interleaved.",
        words="Every valid fix has a line; the report changes only at fixes 900 s or more after "
              "the last computation that are in another cell (checked by a separate "
              "re-computation in the generator, and each report's circle holds the fix it came "
              "from).",
        records=WALK,
        expect=walk_expectation(WALK, 2, 900),
    ),
    dict(
        name="03-antimeridian-poles",
        args=["--approximate-interval", "0"],
        shows="Cells at the antimeridian (longitude 180 in the last column, −180 in the first) "
              "and at the poles (latitude 90 in the last band, a single cap at 5 km; −90 in the "
              "first band, a ring of wedges); `--approximate-interval 0` recomputes at every fix.",
        words="fiji (latitude −16.8): L1 179.999, L2 −179.999, L3 180 (last column, as L1), L4 "
              "−180 (column 0, as L2). north: L5 (90, 0), L6 (90, 180): the cap, L7 89.999, L8 "
              "89.99. south: L9 (−90, −180), L10 (−89.99, 100), L11 (−90, 120).",
        records=[
            F("09:00:00", (-16.8, 179.999), "fiji"),
            F("09:01:00", (-16.8, -179.999), "fiji"),
            F("09:02:00", (-16.8, 180.0), "fiji"),
            F("09:03:00", (-16.8, -180.0), "fiji"),
            F("09:00:00", (90.0, 0.0), "north"),
            F("09:01:00", (90.0, 180.0), "north"),
            F("09:02:00", (89.999, -45.0), "north"),
            F("09:03:00", (89.99, 45.0), "north"),
            F("09:00:00", (-90.0, -180.0), "south"),
            F("09:01:00", (-89.99, 100.0), "south"),
            F("09:02:00", (-90.0, 120.0), "south"),
        ],
        expect=[AX(i, i) for i in range(1, 12)],
        cells=[([1, 3], [2, 4]), ([5, 6], [8]), ([9], [10])],
    ),
    dict(
        name="04-density",
        args=["--approximate-interval", "0"],
        density=DENSITY_REPORTS,
        shows="`--density` with three features in file order: Lyon (1 km), a MultiPolygon of two "
              "areas (2 km), a wide square over both (10 km). Where they overlap the first "
              "counts; a boundary counts as inside; elsewhere `--approximate-cell` (default 5 km).",
        words="L1 in Lyon: 1 km; L2 on Lyon's western edge: 1 km; L3 in the Lyon area outside "
              "Lyon: 2 km; L4 in the Grenoble part: 2 km; L5 in the wide square only: 10 km; L6 "
              "on the wide square's southern edge: 10 km; L7 outside all: 5 km; L8 back in Lyon.",
        records=[
            F("09:00:00", (45.7600, 4.8400), "van"),
            F("09:10:00", (45.7650, 4.8), "van"),
            F("09:20:00", (45.8500, 4.9000), "van"),
            F("10:30:00", (45.1800, 5.7200), "van"),
            F("11:00:00", (45.5000, 5.4000), "van"),
            F("11:30:00", (45.0, 5.0000), "van"),
            F("12:00:00", (44.9000, 4.9000), "van"),
            F("13:00:00", (45.7500, 4.8300), "van"),
        ],
        expect=[AX(1, 1, 1), AX(2, 2, 1), AX(3, 3, 2), AX(4, 4, 2), AX(5, 5, 10), AX(6, 6, 10),
                AX(7, 7, 5), AX(8, 8, 1)],
    ),
]

# ------------------------------------------------------------------ checks and writing


def check_cells(name, records, groups, cell=5):
    """Each group ([same...], [other...]): the first list's fixes share one cell, the second
    list's share another, different one."""
    def cell_of(line):
        record = records[line - 1]
        return ra.cell_of(record["lat"], record["lon"], cell)

    for same, other in groups:
        here = {cell_of(line) for line in same}
        there = {cell_of(line) for line in other}
        if len(here) != 1 or len(there) != 1 or here == there:
            raise SystemExit("%s: cells are not as the scenario says: %s / %s" % (name, here, there))


def check_density_spots(name, records, density, expected_sizes):
    """The size each fix's expectation names is the size of the first polygon covering it."""
    from shapely.geometry import Point, shape
    polygons = [(shape(f["geometry"]), f["properties"]["cell"]) for f in density["features"]]
    for line, size, default in expected_sizes:
        record = records[line - 1]
        point = Point(record["lon"], record["lat"])
        found = next((c for p, c in polygons if p.covers(point)), default)
        if found != size:
            raise SystemExit("%s: L%d is in a %s km area, the expectation says %s"
                             % (name, line, found, size))


def check_walk(name, records, expect):
    for kind, cause, source, cell in expect:
        fix, origin = records[cause - 1], records[source - 1]
        band, column = ra.cell_of(origin["lat"], origin["lon"], cell)
        lat, lon = ra.centre_of(cell, band, column)
        radius = ra.radius_of(cell, band, column)
        if not metres((origin["lat"], origin["lon"]), (lat, lon)) <= radius:
            raise SystemExit("%s: L%d: the report's circle does not hold its fix" % (name, source))
        assert fix["device"] == origin["device"]
    walker = [e for e in expect if records[e[1] - 1]["device"] == "walker"]
    changes = sum(1 for a, b in zip(walker, walker[1:]) if a[2] != b[2])
    if changes < 3:
        raise SystemExit("%s: the walk crosses too few cells (%d changes)" % (name, changes))


def geojson_text(document):
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s+(-?[\d.]+),\s+(-?[\d.]+)\s+\]", r"[\1, \2]", text) + "\n"


def run(command):
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        raise SystemExit("oracle failed: %s\n%s" % (" ".join(command),
                                                    result.stderr.decode("utf-8")))
    return result.stdout


def compare(name, output, expected_lines):
    got = output.decode("utf-8").splitlines()
    if got != expected_lines:
        print("%s: oracle output differs from the expectation" % name, file=sys.stderr)
        for i in range(max(len(got), len(expected_lines))):
            g = got[i] if i < len(got) else None
            e = expected_lines[i] if i < len(expected_lines) else None
            mark = "  " if g == e else "!!"
            print("%s got      %s\n%s expected %s" % (mark, g, mark, e), file=sys.stderr)
        raise SystemExit(1)
    return len(got)


def compare_events(name, output, expect):
    got = []
    for text in output.decode("utf-8").splitlines():
        event = json.loads(text)
        got.append({k: event[k] for k in ("cause", "device", "identifier", "state", "date",
                                          "delivery", "reason", "diagnostics")})
    if got != expect:
        raise SystemExit("%s: events differ from the expectation:\n%s\n%s" % (name, got, expect))
    return len(got)


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_inputs(folder, scenario):
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    records = scenario["records"]
    write(os.path.join(folder, "observations.jsonl"),
          "".join(record_line(r) + "\n" for r in records))
    command = [sys.executable, os.path.join(HERE, "reference_live.py"),
               "--observations", os.path.join(folder, "observations.jsonl")]
    if scenario.get("conditions"):
        write(os.path.join(folder, "conditions.geojson"), geojson_text(scenario["conditions"]))
        command += ["--conditions", os.path.join(folder, "conditions.geojson")]
    if scenario.get("density"):
        write(os.path.join(folder, "density.geojson"), geojson_text(scenario["density"]))
        command += ["--density", os.path.join(folder, "density.geojson")]
    if scenario["args"]:
        write(os.path.join(folder, "args.txt"), " ".join(scenario["args"]) + "\n")
    return command + scenario["args"]


def cell(text):
    return text.replace("|", "\\|")


def remove_stale(out, scenarios):
    """Scenario folders no longer in the list (renamed or dropped) go."""
    names = {s["name"] for s in scenarios}
    for entry in sorted(os.listdir(out)):
        if re.match(r"^\d\d-", entry) and entry not in names and os.path.isdir(os.path.join(out, entry)):
            shutil.rmtree(os.path.join(out, entry))


def make_live(out):
    remove_stale(out, LIVE)
    rows = []
    for number, scenario in enumerate(LIVE, start=1):
        name = scenario["name"]
        assert name.startswith("%02d-" % number), name
        folder = os.path.join(out, name)
        records = scenario["records"]
        command = write_inputs(folder, scenario)
        if scenario.get("cells"):
            check_cells(name, records, scenario["cells"])
        if scenario.get("density"):
            check_density_spots(name, records, scenario["density"],
                                [(e[1], e[4], 5) for e in scenario["expect"] if e[0] == "approx"])
        expected = [expected_line(e, records) for e in scenario["expect"]]
        events_path = os.path.join(folder, "expected-events.jsonl")
        if scenario.get("conditions"):
            command += ["--events", events_path]
        first = run(command)
        second = run(command)
        if first != second:
            raise SystemExit("%s: two oracle runs differ" % name)
        count = compare(name, first, expected)
        write(os.path.join(folder, "expected-updates.jsonl"), first.decode("utf-8"))
        events_note = ""
        if scenario.get("conditions"):
            with open(events_path, "rb") as f:
                events = f.read()
            monitor = run([sys.executable, os.path.join(HERE, "reference_monitor.py"),
                           "--conditions", os.path.join(folder, "conditions.geojson"),
                           "--observations", os.path.join(folder, "observations.jsonl")]
                          + [a for a in scenario["args"]])
            if events != monitor:
                raise SystemExit("%s: the events file is not reference_monitor.py's" % name)
            events_note = "; %d events" % compare_events(name, events, scenario["events"])
        shown_args = "`%s`" % " ".join(scenario["args"]) if scenario["args"] else "—"
        rows.append("| %d | `%s` (%s) | %s | %d updates from %d records%s. %s |"
                    % (number, name, shown_args, cell(scenario["shows"]), count, len(records),
                       events_note, cell(scenario["words"])))
        print("live/%s: %d records, %d updates%s" % (name, len(records), count, events_note),
              file=sys.stderr)
    write(os.path.join(out, "README.md"), LIVE_README + "\n".join(rows) + "\n")


def make_reports(out):
    remove_stale(out, REPORTS)
    rows = []
    for number, scenario in enumerate(REPORTS, start=1):
        name = scenario["name"]
        assert name.startswith("%02d-" % number), name
        folder = os.path.join(out, name)
        records = scenario["records"]
        command = write_inputs(folder, scenario) + ["--approximate-fixes"]
        if scenario.get("cells"):
            check_cells(name, records, scenario["cells"])
        if scenario.get("density"):
            check_density_spots(name, records, scenario["density"],
                                [(e[1], e[3], 5) for e in scenario["expect"]])
        if name == "02-random-walk":
            check_walk(name, records, scenario["expect"])
        expected = [expected_line(e, records) for e in scenario["expect"]]
        first = run(command)
        second = run(command)
        if first != second:
            raise SystemExit("%s: two oracle runs differ" % name)
        count = compare(name, first, expected)
        write(os.path.join(folder, "expected-approximate.jsonl"), first.decode("utf-8"))
        shown_args = "`%s`" % " ".join(scenario["args"]) if scenario["args"] else "—"
        rows.append("| %d | `%s` (%s) | %s | %d lines from %d records. %s |"
                    % (number, name, shown_args, cell(scenario["shows"]), count, len(records),
                       cell(scenario["words"])))
        print("approximate/reports/%s: %d records, %d lines" % (name, len(records), count),
              file=sys.stderr)
    return rows


LIVE_README = """# Fixture set `live`: live updates (docs/live.md, SPEC §5.1)

Small hand-designed scenarios for `perimeter updates`: each folder `NN-short-name/` holds
`observations.jsonl`, `expected-updates.jsonl` (the output of the Python oracle
`scripts/reference_live.py`, written from docs/live.md and docs/approximate.md, not from the
Swift code), and when the scenario needs them `conditions.geojson` (then also
`expected-events.jsonl`, the monitoring events of the same run, byte for byte those of
`scripts/reference_monitor.py`), `density.geojson` and `args.txt` (one line of
whitespace-separated flags, no file paths, taken by the oracle and the Swift tool alike).
Everything here is generated by `scripts/make_live_fixtures.py`, which also checks every oracle
line against an expectation written by hand in that script.

Common ground:
- Lyon, 2026-03-02, times in UTC. Fixes are placed in metres north and east of a spot (rounded to
  7 decimals) and written with their shortest decimals, so an update's location repeats the
  input's own numbers (`"accuracy":10`, not `10.0`).
- Defaults unless `args.txt` says otherwise: the `default` configuration (25 m, 180 s),
  `--unavailable-after 60`, `--initial-authorization always` (every update has its location,
  no diagnostics), 5 km cells recomputed every 900 s. Every distance that decides something is
  at least 5 m from the radius it is compared with.
- `L` numbers are observation lines, which are the `cause` of the updates. A locationUnavailable
  update has `location: null`, `stationary: false`, its `date` is the due instant (last valid fix,
  or first record, + 60 s), and it is written before anything else of the record that finds it
  due; its access is the authorization as of the device's previous record, with the lapses due by
  the due instant applied.
- Approximate locations (reduced accuracy) are the centre and radius of the cell of the fix the
  report was computed from (`scripts/reference_approximate.py`'s grid).

Regenerate (from the repository root; needs `pip install shapely`):

```sh
python3 scripts/make_live_fixtures.py
```

which is the same as running, for each folder `S` (the `--conditions`, `--events` and `--density`
parts only when the files exist):

```sh
python3 scripts/reference_live.py --observations S/observations.jsonl [--conditions S/conditions.geojson --events S/expected-events.jsonl] [--density S/density.geojson] $(cat S/args.txt 2>/dev/null) > S/expected-updates.jsonl
```

The Swift side: `perimeter updates --observations S/observations.jsonl [--conditions …] [--density …]
$(cat S/args.txt) [--events FILE]` must write `expected-updates.jsonl` (and the events file
`expected-events.jsonl`) byte for byte.

| # | Scenario (`args.txt`) | What it shows | Expected lines |
|---|---|---|---|
"""

APPROXIMATE_README = """# approximate

Fixtures for approximate location (`docs/approximate.md`): the grid of cells (`ApproximateGrid`)
and the reports a reduced-accuracy app sees (`ApproximateReporter`, `ApproximateLocation`,
`evaluate --approximate`).

## The grid

- `points.csv` (`lat,lon,cell`: degrees, degrees, km): 594 test points with a cell size each.
  It mixes uniform points on the sphere, points at and within 1e-6° of both poles, points at and
  within 1e-9° of lon ±180, points exactly on band and column edges and corners, and points on the
  equator. Cell sizes come from 0.5–2000 km, with 5 km the most common. Written by
  `scripts/make_approximate_fixture.py`, which is deterministic (fixed seed).
- `expected.csv` (`lat,lon,cell,band,column,centre_lat,centre_lon,radius`): each point's cell,
  centre (Python float repr) and radius (whole metres). Computed by
  `scripts/reference_approximate.py`, an oracle written from `docs/approximate.md` alone.

Regenerate from the repository root:

```sh
python3 scripts/make_approximate_fixture.py
python3 scripts/reference_approximate.py Fixtures/approximate/points.csv > Fixtures/approximate/expected.csv
python3 scripts/reference_approximate.py --check Fixtures/approximate/points.csv   # self-check, exit 0
```

## Reports: `reports/`

Each folder `reports/NN-short-name/` holds `observations.jsonl`, `expected-approximate.jsonl`
(what `perimeter evaluate --approximate FILE` writes to FILE: one line per valid fix,
`{"device","date","lat","lon","accuracy","cause"}`, whatever the authorization), and when needed
`density.geojson` and `args.txt` (flags only, no file paths). They are generated, with every line
checked against an expectation written by hand (the random walk: against a separate
re-computation), by `scripts/make_live_fixtures.py`; the oracle is `scripts/reference_live.py
--approximate-fixes`, written from docs/approximate.md ("Reports") and reusing
`scripts/reference_approximate.py`'s grid. `lat` and `lon` are the shortest decimals of the
centre's doubles (an integral one without a fraction: `0`), `accuracy` the radius in metres.

```sh
python3 scripts/make_live_fixtures.py   # also regenerates Fixtures/live
# the same as, for each folder S (--density only when the file exists):
python3 scripts/reference_live.py --approximate-fixes --observations S/observations.jsonl [--density S/density.geojson] $(cat S/args.txt 2>/dev/null) > S/expected-approximate.jsonl
```

| # | Scenario (`args.txt`) | What it shows | Expected lines |
|---|---|---|---|
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=os.path.join(HERE, ".."))
    options = parser.parse_args()
    root = os.path.normpath(options.root)
    live = os.path.join(root, "Fixtures", "live")
    os.makedirs(live, exist_ok=True)
    make_live(live)
    approximate = os.path.join(root, "Fixtures", "approximate")
    reports = os.path.join(approximate, "reports")
    os.makedirs(reports, exist_ok=True)
    rows = make_reports(reports)
    write(os.path.join(approximate, "README.md"), APPROXIMATE_README + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
