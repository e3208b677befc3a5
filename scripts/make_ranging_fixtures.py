#!/usr/bin/env python3
"""Generate Fixtures/ranging: small beacon-ranging scenarios (docs/ranging.md, SPEC §5.2).

Each scenario is a folder NN-short-name/ with conditions.geojson, observations.jsonl,
expected-results.jsonl (the output of scripts/reference_ranging.py) and, when it needs extra
flags, args.txt (one line, whitespace-separated, no paths, passed to the oracle and to
`perimeter range` alike). Fixtures/ranging/README.md is written from the same data.

Deterministic (no randomness, no clock). Checks made before anything is accepted:
- the oracle's output matches, line by line, the expectation written by hand below (cause,
  device, constraint, date, each beacon's identity, rssi, proximity and power, delivery, reason);
  the expected distance is the formula of docs/ranging.md applied to the expected rssi and power;
- every line is compact JSON with the documented keys in the documented order (it equals its own
  re-serialization with no spaces);
- a second oracle run gives byte-identical output, and so does a run over the same records
  written as CSV (in a temporary folder, not kept), its causes moved back by the header's line.

Usage: python3 scripts/make_ranging_fixtures.py [--out Fixtures/ranging]
(needs shapely 2, like the oracle).
"""

import argparse
import calendar
import json
import os
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))

DAY = (2026, 3, 2)
BASE_UNIX = calendar.timegm(DAY + (9, 0, 0))  # 2026-03-02T09:00:00Z = 1772442000
ROOM = "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"
ANNEX = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
DEFAULT_POWER = -59

# ------------------------------------------------------------------ conditions


def feature(identifier):
    beacon = {
        "room-12": ({"uuid": ROOM, "major": 12}, True),
        "desk": ({"uuid": ROOM, "major": 12, "minor": 3}, True),
        "any-room": ({"uuid": ROOM.lower()}, True),  # written in lower case on purpose
        "annex": ({"uuid": ANNEX}, True),
        "lobby": ({"uuid": ROOM, "major": 12}, None),  # monitored, not ranged (no flag)
        "lobby-off": ({"uuid": ROOM}, False),  # monitored, not ranged (false)
    }
    if identifier == "home":
        return {"type": "Feature", "id": "home",
                "geometry": {"type": "Point", "coordinates": [4.832, 45.7578]},
                "properties": {"name": "Home", "radius": 80, "assuming": "unsatisfied"}}
    identity, ranging = beacon[identifier]
    properties = {"beacon": identity}
    if ranging is not None:
        properties["ranging"] = ranging
    return {"type": "Feature", "id": identifier, "geometry": None, "properties": properties}


def conditions_text(identifiers):
    lines = [json.dumps(feature(i), ensure_ascii=False) for i in identifiers]
    return '{"type": "FeatureCollection", "features": [\n  ' + ",\n  ".join(lines) + "\n]}\n"


# ------------------------------------------------------------------ times and records


def offset(x):
    return Decimal(str(x))


def T(x):
    """Seconds after 09:00:00 (int or a decimal string) -> RFC 3339."""
    value = offset(x)
    whole = int(value)
    fraction = value - whole
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (DAY + (9 + whole // 3600, whole // 60 % 60, whole % 60))
    if fraction:
        text += str(fraction)[1:]
    return text + "Z"


def U(x):
    """Seconds after 09:00:00 -> Unix seconds, as a JSON number's text."""
    return str(BASE_UNIX + offset(x))


def S(t, major, minor, rssi, dev="ana", power=None, uuid=ROOM, unix=False):
    record = {"type": "sighting", "device": dev, "t": t, "unix": unix, "uuid": uuid,
              "major": major, "minor": minor, "rssi": rssi}
    if power is not None:
        record["power"] = power
    return record


def A(t, state, dev="ana"):
    return {"type": "app", "device": dev, "t": t, "state": state}


def Q(t, what, dev="ana"):
    return {"type": "request", "device": dev, "t": t, "what": what}


def ANS(t, choice, dev="ana", precise=None):
    record = {"type": "answer", "device": dev, "t": t, "choice": choice}
    if precise is not None:
        record["precise"] = precise
    return record


def SET(t, dev="ana", **fields):
    record = {"type": "settings", "device": dev, "t": t}
    record.update(fields)
    return record


BODY_KEYS = ("uuid", "major", "minor", "rssi", "power", "state", "what", "choice", "precise",
             "status", "locationServices")


def record_line(record):
    if record.get("unix"):
        time_text = U(record["t"])
    else:
        time_text = json.dumps(T(record["t"]))
    head = '{"type":%s,"device":%s,"t":%s' % (json.dumps(record["type"]),
                                              json.dumps(record["device"]), time_text)
    rest = {k: record[k] for k in BODY_KEYS if k in record}
    return head + "," + json.dumps(rest, separators=(",", ":"))[1:]


def csv_cell(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_text(records):
    header = ["type", "device", "t"] + list(BODY_KEYS)
    rows = [",".join(header)]
    for record in records:
        cells = [record["type"], record["device"],
                 U(record["t"]) if record.get("unix") else T(record["t"])]
        cells += [csv_cell(record[k]) if k in record else "" for k in BODY_KEYS]
        rows.append(",".join(cells))
    return "\n".join(rows) + "\n"


# ------------------------------------------------------------------ expectations

VERDICTS = {
    "ok": ("delivered", None),
    "nd": ("dropped", "notDetermined"),
    "notInUse": ("dropped", "insufficientlyInUse"),
    "accuracy": ("dropped", "accuracyLimited"),
    "denied": ("dropped", "authorizationDenied"),
}


def X(major, minor, rssi, proximity, power=DEFAULT_POWER, uuid=ROOM):
    """An expected beacon: identity, the expected mean rssi (written by hand), its proximity
    (by hand), and the power of its latest sighting in the window (for the distance)."""
    return (uuid, major, minor, rssi, proximity, power)


def R(cause, constraint, s, beacons, verdict="ok", dev="ana"):
    delivery, reason = VERDICTS[verdict]
    return {"cause": cause, "device": dev, "constraint": constraint, "date": T(s),
            "beacons": beacons, "delivery": delivery, "reason": reason}


ND = ["--initial-authorization", "notDetermined"]

# ------------------------------------------------------------------ the scenarios


def scenario_01_expect():
    # (second, mean rssi, proximity, cause): sightings at :00...:04 with -60 -62 -64 -60 -62
    table = [(0, -60, "near", 1), (1, -61, "near", 2), (2, -62, "near", 3), (3, -61.5, "near", 4),
             (4, -61.6, "near", 5), (5, -61.6, "near", 5)]
    table += [(s, -61.6, "unknown", 5) for s in range(6, 20)]  # no sighting in the last 2 s
    table += [(20, -62, "unknown", 5),  # (0, 20]: the :00 sighting has left the window
              (21, -62, "unknown", 5),  # (1, 21]: -64 -60 -62
              (22, -61, "unknown", 5),  # (2, 22]: -60 -62
              (23, -62, "unknown", 5)]  # (3, 23]: -62; nothing at :24, the window is empty
    return [R(cause, "room-12", s, [X(12, 3, rssi, proximity)]) for s, rssi, proximity, cause in table]


SCENARIOS = [
    dict(
        name="01-one-beacon-every-second",
        args=[],
        exponent=2.0,
        conditions=["lobby", "room-12", "lobby-off", "home"],
        shows="One beacon seen every second for 5 s, default 20 s window: a result each second "
              "from the first sighting until the window has passed; the mean slides as sightings "
              "enter and leave; `unknown` once the last sighting is 2 s old (distance kept). "
              "`lobby` (no `ranging`), `lobby-off` (`ranging: false`) and the circle `home` are "
              "not ranged although `lobby` matches the same beacon.",
        words="L1-L5 sightings of 12/3 at :00-:04 (-60 -62 -64 -60 -62); results :00 to :23 "
              "(mean -60, -61, -62, -61.5, then -61.6; `unknown` from :06; -62 -62 -61 -62 at "
              ":20-:23 as the window (s-20, s] lets the early sightings go); all written before L6 "
              "(:30), except :00-:03, each written before the next sighting.",
        records=[
            S(0, 12, 3, -60),
            S(1, 12, 3, -62),
            S(2, 12, 3, -64),
            S(3, 12, 3, -60),
            S(4, 12, 3, -62),
            A(30, "foreground"),
        ],
        expect=scenario_01_expect(),
    ),
    dict(
        name="02-fractional-times-and-gap",
        args=["--ranging-window", "2.5"],
        exponent=2.0,
        conditions=["room-12"],
        shows="Fractional sighting times (RFC 3339 with a fraction, and Unix seconds as a JSON "
              "number) and a fractional window: a result is due at each whole s with "
              "s - 2.5 < t <= s; a gap longer than the window stops the results, and a later "
              "sighting starts them again.",
        words="L1 :00.25 -> results :01, :02; L2 (t = 1772442001.75) -> :02-:04; L3 :03 -> "
              ":03-:05 (:05 `unknown`: :03 is not after :05 - 2); nothing at :06-:10; L4 :10.5 -> "
              ":11, :12 (not :13: :10.5 is not after :13 - 2.5). Means -60, -60.5, -61.5, -61.5, "
              "-62, -63, -63.",
        records=[
            S("0.25", 12, 3, -60),
            S("1.75", 12, 3, -61, unix=True),
            S(3, 12, 3, -62),
            S("10.5", 12, 3, -63),
            A(14, "foreground"),
        ],
        expect=[
            R(1, "room-12", 1, [X(12, 3, -60, "near")]),
            R(2, "room-12", 2, [X(12, 3, -60.5, "near")]),
            R(3, "room-12", 3, [X(12, 3, -61.5, "near")]),
            R(3, "room-12", 4, [X(12, 3, -61.5, "near")]),
            R(3, "room-12", 5, [X(12, 3, -62, "unknown")]),
            R(4, "room-12", 11, [X(12, 3, -63, "near")]),
            R(4, "room-12", 12, [X(12, 3, -63, "near")]),
        ],
    ),
    dict(
        name="03-wildcard-order",
        args=["--ranging-window", "5"],
        exponent=2.0,
        conditions=["any-room"],
        shows="A wildcard constraint (UUID only, written in lower case) with eight beacons: known "
              "proximities nearest first, equal distances by major then minor, then the `unknown` "
              "ones by major then minor; RSSI 0 samples left out of the mean (all zero: rssi 0, "
              "distance -1, `unknown`); a beacon with no sighting in the last 2 s is `unknown`; a "
              "sighting of another UUID is not listed; `cause` is the latest matching sighting "
              "(the later line at equal times); the last record's whole second is ranged at the end "
              "of the input.",
        words="L1/L2 at :00 (12/4 -80 far, 7/2 -65 near): result :00, cause 2. L3-L5 at :01 "
              "(12/3 -50 immediate, 12/5 rssi 0, an ANNEX beacon): :01 lists 12/3, 7/2, 12/4, "
              "then 12/5 unknown, cause 4. L6-L10 at :02 (12/6 0 and -70, 3/9, 12/8 and 12/2 all "
              "-66): :02 has 12/3, 3/9, 12/2, 12/8, 12/6 then 7/2, 12/4, 12/5 stale or zero "
              "(cause 10); :03 also 12/3 stale; L11 at :04 ends the input, whose :04 result has "
              "every beacon `unknown`, by identity.",
        records=[
            S(0, 12, 4, -80),
            S(0, 7, 2, -65),
            S(1, 12, 3, -50),
            S(1, 12, 5, 0),
            S(1, 12, 3, -60, uuid=ANNEX),
            S(2, 12, 6, 0),
            S(2, 12, 6, -70, uuid=ROOM.lower()),
            S(2, 12, 8, -66),
            S(2, 3, 9, -66),
            S(2, 12, 2, -66),
            A(4, "foreground"),
        ],
        expect=[
            R(2, "any-room", 0, [X(7, 2, -65, "near"), X(12, 4, -80, "far")]),
            R(4, "any-room", 1, [X(12, 3, -50, "immediate"), X(7, 2, -65, "near"),
                                 X(12, 4, -80, "far"), X(12, 5, 0, "unknown")]),
            R(10, "any-room", 2, [X(12, 3, -50, "immediate"), X(3, 9, -66, "near"),
                                  X(12, 2, -66, "near"), X(12, 8, -66, "near"),
                                  X(12, 6, -70, "near"),
                                  X(7, 2, -65, "unknown"), X(12, 4, -80, "unknown"),
                                  X(12, 5, 0, "unknown")]),
            R(10, "any-room", 3, [X(3, 9, -66, "near"), X(12, 2, -66, "near"),
                                  X(12, 8, -66, "near"), X(12, 6, -70, "near"),
                                  X(7, 2, -65, "unknown"), X(12, 3, -50, "unknown"),
                                  X(12, 4, -80, "unknown"), X(12, 5, 0, "unknown")]),
            R(10, "any-room", 4, [X(3, 9, -66, "unknown"), X(7, 2, -65, "unknown"),
                                  X(12, 2, -66, "unknown"), X(12, 3, -50, "unknown"),
                                  X(12, 4, -80, "unknown"), X(12, 5, 0, "unknown"),
                                  X(12, 6, -70, "unknown"), X(12, 8, -66, "unknown")]),
        ],
    ),
    dict(
        name="04-power-and-exponent",
        args=["--path-loss-exponent", "3", "--ranging-window", "1.5"],
        exponent=3.0,
        conditions=["desk"],
        shows="The measured power is the latest sighting's in the window (field `power`, default "
              "-59), even when that sighting's RSSI is 0 and so not in the mean; "
              "`--path-loss-exponent 3`; a 1.5 s window.",
        words="L1 :00 -70 with power -50: :00 far (10^(20/30)). L2 :01 -72 (power -59): :01 mean "
              "-71, power -59, near (10^(12/30)). L3 :01.5 rssi 0 with power -40: :02 window "
              "(0.5, 2] has -72 and 0, mean -72, power -40, far (10^(32/30)).",
        records=[
            S(0, 12, 3, -70, power=-50),
            S(1, 12, 3, -72),
            S("1.5", 12, 3, 0, power=-40),
            A("2.5", "foreground"),
        ],
        expect=[
            R(1, "desk", 0, [X(12, 3, -70, "far", power=-50)]),
            R(2, "desk", 1, [X(12, 3, -71, "near", power=-59)]),
            R(3, "desk", 2, [X(12, 3, -72, "far", power=-40)]),
        ],
    ),
    dict(
        name="05-two-constraints",
        args=["--ranging-window", "2"],
        exponent=2.0,
        conditions=["room-12", "desk", "annex"],
        shows="Overlapping constraints (`room-12` = major 12, `desk` = 12/3) and a third UUID: one "
              "sighting joins every constraint it matches; results of one second come in file "
              "order (room-12, desk, annex), not by name; a constraint with an empty window "
              "writes nothing.",
        words="L1 :00 12/3: :00 `room-12` and `desk` (written before L2). L2 :00.5 ANNEX 1/1, L3 "
              ":01 12/4: before L4 (:03), :01 `room-12` (12/3 then 12/4, cause 3), `desk` (cause "
              "1), `annex` (cause 2); :02 `room-12` (12/4 only) and `annex` (`desk`'s window "
              "(0, 2] is empty).",
        records=[
            S(0, 12, 3, -60),
            S("0.5", 1, 1, -70, uuid=ANNEX),
            S(1, 12, 4, -65),
            A(3, "foreground"),
        ],
        expect=[
            R(1, "room-12", 0, [X(12, 3, -60, "near")]),
            R(1, "desk", 0, [X(12, 3, -60, "near")]),
            R(3, "room-12", 1, [X(12, 3, -60, "near"), X(12, 4, -65, "near")]),
            R(1, "desk", 1, [X(12, 3, -60, "near")]),
            R(2, "annex", 1, [X(1, 1, -70, "near", uuid=ANNEX)]),
            R(3, "room-12", 2, [X(12, 4, -65, "near")]),
            R(2, "annex", 2, [X(1, 1, -70, "near", uuid=ANNEX)]),
        ],
    ),
    dict(
        name="06-end-of-input-devices",
        args=["--ranging-window", "3"],
        exponent=2.0,
        conditions=["any-room"],
        shows="Three interleaved devices, each on its own clock: a device's results come only "
              "before its own next record. At the end of the input, devices in the order of their "
              "first record get the result of their last record's second when that time is whole "
              "(ana :02, cleo :11), none when it is fractional (ben, :01.5), nothing later.",
        words="cleo :10 (before L5), ana :00 and :01 (before L6), ben :01 (mean -71, before "
              "L7); at the end ana :02 (cause 6) then cleo :11 (mean -59, cause 5), though cleo's "
              "last record comes before ana's; ben gets no :02 or :03.",
        records=[
            S(0, 12, 3, -60, dev="ana"),
            S("0.5", 12, 4, -70, dev="ben"),
            S(10, 7, 1, -58, dev="cleo"),
            S(1, 12, 4, -72, dev="ben"),
            S(11, 7, 1, -60, dev="cleo"),
            S("1.5", 12, 3, -64, dev="ana"),
            A("1.5", "foreground", dev="ben"),
            A(2, "foreground", dev="ana"),
        ],
        expect=[
            R(3, "any-room", 10, [X(7, 1, -58, "near")], dev="cleo"),
            R(1, "any-room", 0, [X(12, 3, -60, "near")], dev="ana"),
            R(1, "any-room", 1, [X(12, 3, -60, "near")], dev="ana"),
            R(4, "any-room", 1, [X(12, 4, -71, "near")], dev="ben"),
            R(6, "any-room", 2, [X(12, 3, -62, "near")], dev="ana"),
            R(5, "any-room", 11, [X(7, 1, -59, "near")], dev="cleo"),
        ],
    ),
    dict(
        name="07-not-determined-then-when-in-use",
        args=ND + ["--ranging-window", "10"],
        exponent=2.0,
        conditions=["room-12"],
        shows="A fresh install: results dropped `notDetermined` (prompt closed, then open) until "
              "Allow While Using; then delivered in the foreground and through the 5 s grace "
              "period (its last second included), and dropped `insufficientlyInUse` after it. "
              "Each result takes the authorization as of the device's latest record before it.",
        words="L2 :00 and L4 :01.5 sightings. :00 (before L3) and :01 (before L4, prompt open) "
              "dropped notDetermined; L5 :02 allowWhileUsing: :02 delivered; L6 background at "
              ":03: :03-:08 delivered (:08 = :03 + 5 s), :09-:11 dropped insufficientlyInUse, all "
              "written before L7.",
        records=[
            A(0, "foreground"),
            S(0, 12, 3, -60),
            Q(1, "whenInUse"),
            S("1.5", 12, 3, -62),
            ANS(2, "allowWhileUsing"),
            A(3, "background"),
            A(12, "foreground"),
        ],
        expect=[
            R(2, "room-12", 0, [X(12, 3, -60, "near")], "nd"),
            R(2, "room-12", 1, [X(12, 3, -60, "near")], "nd"),
            R(4, "room-12", 2, [X(12, 3, -61, "near")]),
            R(4, "room-12", 3, [X(12, 3, -61, "near")]),
        ] + [R(4, "room-12", s, [X(12, 3, -61, "unknown")]) for s in (4, 5, 6, 7, 8)] + [
            R(4, "room-12", 9, [X(12, 3, -61, "unknown")], "notInUse"),
            R(4, "room-12", 10, [X(12, 3, -62, "unknown")], "notInUse"),
            R(4, "room-12", 11, [X(12, 3, -62, "unknown")], "notInUse"),
        ],
    ),
    dict(
        name="08-reduced-accuracy",
        args=ND + ["--ranging-window", "2"],
        exponent=2.0,
        conditions=["room-12"],
        shows="Reduced accuracy (Precise off on the first prompt): results dropped "
              "`accuracyLimited` in the foreground; a temporary full-accuracy grant lets them "
              "through.",
        words="L3 allowWhileUsing, precise false. L4 :03: :03 and :04 dropped accuracyLimited "
              "(before L5). L5/L6 temporaryFullAccuracy, allowOnce at :05; L7 :05: :05, :06 "
              "delivered (before L8).",
        records=[
            A(0, "foreground"),
            Q(1, "whenInUse"),
            ANS(2, "allowWhileUsing", precise=False),
            S(3, 12, 3, -60),
            Q("4.5", "temporaryFullAccuracy"),
            ANS(5, "allowOnce"),
            S(5, 12, 3, -62),
            A(7, "foreground"),
        ],
        expect=[
            R(4, "room-12", 3, [X(12, 3, -60, "near")], "accuracy"),
            R(4, "room-12", 4, [X(12, 3, -60, "near")], "accuracy"),
            R(7, "room-12", 5, [X(12, 3, -62, "near")]),
            R(7, "room-12", 6, [X(12, 3, -62, "near")]),
        ],
    ),
    dict(
        name="09-provisional-always",
        args=ND + ["--ranging-window", "3"],
        exponent=2.0,
        conditions=["room-12"],
        shows="Provisional always: delivered while in use (grace period included); in the "
              "background after it, where an event would be held, the result is dropped "
              "`insufficientlyInUse`, never held; back in the foreground, delivered.",
        words="L3 allowWhileUsing after a request for always (provisional always); L4 background "
              "at :03. L5 :07: :07, :08 delivered. L6 :09: :09-:11 dropped insufficientlyInUse "
              "(before L7). L7 foreground and L8 sighting at :12: :12 delivered at the end of the "
              "input.",
        records=[
            A(0, "foreground"),
            Q(1, "always"),
            ANS(2, "allowWhileUsing"),
            A(3, "background"),
            S(7, 12, 3, -60),
            S(9, 12, 3, -62),
            A(12, "foreground"),
            S(12, 12, 3, -64),
        ],
        expect=[
            R(5, "room-12", 7, [X(12, 3, -60, "near")]),
            R(5, "room-12", 8, [X(12, 3, -60, "near")]),
            R(6, "room-12", 9, [X(12, 3, -61, "near")], "notInUse"),
            R(6, "room-12", 10, [X(12, 3, -62, "near")], "notInUse"),
            R(6, "room-12", 11, [X(12, 3, -62, "unknown")], "notInUse"),
            R(8, "room-12", 12, [X(12, 3, -64, "near")]),
        ],
    ),
    dict(
        name="10-always-background",
        args=["--ranging-window", "2"],
        exponent=2.0,
        conditions=["room-12"],
        shows="Always (the default start): delivered in the background long after the grace "
              "period; location services off drops them `authorizationDenied`.",
        words="L1 background at :00. L2 :10: :10, :11 delivered (before L3). L3 services off at "
              ":11.5; L4 :12: :12, :13 dropped authorizationDenied (before L5).",
        records=[
            A(0, "background"),
            S(10, 12, 3, -60),
            SET("11.5", locationServices=False),
            S(12, 12, 3, -62),
            A(14, "foreground"),
        ],
        expect=[
            R(2, "room-12", 10, [X(12, 3, -60, "near")]),
            R(2, "room-12", 11, [X(12, 3, -60, "near")]),
            R(4, "room-12", 12, [X(12, 3, -62, "near")], "denied"),
            R(4, "room-12", 13, [X(12, 3, -62, "near")], "denied"),
        ],
    ),
    dict(
        name="11-allow-once-lapse",
        args=ND + ["--ranging-window", "5"],
        exponent=2.0,
        conditions=["room-12"],
        shows="Allow Once: the lapse due when the grace period ends is applied at each result's "
              "second, though no record comes between: delivered up to the end of the grace "
              "period, then `notDetermined` (not `insufficientlyInUse`).",
        words="L3 allowOnce, L4 background at :03. L5 :06: :06, :07 near, :08 unknown, "
              "delivered; :09, :10 dropped notDetermined; all written before L6 (:12).",
        records=[
            A(0, "foreground"),
            Q(1, "whenInUse"),
            ANS(2, "allowOnce"),
            A(3, "background"),
            S(6, 12, 3, -60),
            A(12, "foreground"),
        ],
        expect=[
            R(5, "room-12", 6, [X(12, 3, -60, "near")]),
            R(5, "room-12", 7, [X(12, 3, -60, "near")]),
            R(5, "room-12", 8, [X(12, 3, -60, "unknown")]),
            R(5, "room-12", 9, [X(12, 3, -60, "unknown")], "nd"),
            R(5, "room-12", 10, [X(12, 3, -60, "unknown")], "nd"),
        ],
    ),
]

# ------------------------------------------------------------------ checks and writing

RESULT_KEYS = ["device", "constraint", "date", "beacons", "delivery", "reason", "cause"]
BEACON_KEYS = ["uuid", "major", "minor", "rssi", "distance", "proximity"]


def expected_distance(rssi, power, exponent):
    if rssi == 0:
        return -1.0
    return 10 ** ((power - rssi) / (10 * exponent))


def run_oracle(folder, observations, args):
    command = [sys.executable, os.path.join(HERE, "reference_ranging.py"),
               "--conditions", os.path.join(folder, "conditions.geojson"),
               "--observations", observations] + args
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        raise SystemExit("%s: oracle failed: %s" % (folder, result.stderr.decode("utf-8")))
    return result.stdout


def shift_causes(output, by):
    """The output with every cause moved by `by` lines (a CSV file's header is its line 1)."""
    lines = []
    for text in output.decode("utf-8").splitlines():
        head, cause = text.rsplit('"cause":', 1)
        lines.append('%s"cause":%d}' % (head, int(cause.rstrip("}")) + by))
    return "".join(line + "\n" for line in lines).encode("utf-8")


def compare(name, output, expect, exponent):
    got = []
    for text in output.decode("utf-8").splitlines():
        line = json.loads(text)
        if list(line) != RESULT_KEYS or any(list(b) != BEACON_KEYS for b in line["beacons"]):
            raise SystemExit("%s: keys out of order: %s" % (name, text))
        if json.dumps(line, separators=(",", ":"), ensure_ascii=False) != text:
            raise SystemExit("%s: not compact JSON: %s" % (name, text))
        got.append(line)
    wanted = []
    for e in expect:
        line = {"device": e["device"], "constraint": e["constraint"], "date": e["date"],
                "beacons": [], "delivery": e["delivery"], "reason": e["reason"], "cause": e["cause"]}
        for uuid, major, minor, rssi, proximity, power in e["beacons"]:
            line["beacons"].append({"uuid": uuid, "major": major, "minor": minor,
                                    "rssi": float(rssi),
                                    "distance": expected_distance(rssi, power, exponent),
                                    "proximity": proximity})
        wanted.append(line)
    if got != wanted:
        print("%s: oracle output differs from the expectation" % name, file=sys.stderr)
        for i in range(max(len(got), len(wanted))):
            g = got[i] if i < len(got) else None
            w = wanted[i] if i < len(wanted) else None
            mark = "  " if g == w else "!!"
            print("%s got      %s\n%s expected %s" % (mark, g, mark, w), file=sys.stderr)
        raise SystemExit(1)
    return len(got)


README_HEAD = """# Fixture set `ranging`: beacon ranging (docs/ranging.md, SPEC §5.2)

Small hand-designed scenarios for `perimeter range`: each folder `NN-short-name/` holds
`conditions.geojson`, `observations.jsonl` and `expected-results.jsonl` (the output of the Python
oracle `scripts/reference_ranging.py`, written from docs/ranging.md and docs/authorization.md
without reading the Swift code), and, when the scenario needs flags beyond
`--conditions`/`--observations`, `args.txt`: one line of whitespace-separated flags that both the
oracle and the Swift tool take. Everything here is generated by `scripts/make_ranging_fixtures.py`,
which also checks every oracle line against an expectation written by hand in that script (mean
RSSI, proximity, the power used, order, cause, date, verdict; the distance is the documented
formula applied to those), checks the line format (compact JSON, keys in the documented order),
and checks that a second run gives the same bytes, and a run over the same records written as CSV
the same lines (their causes one line later, after the CSV header).

Common ground:
- 2026-03-02, times in UTC; `:SS` below means 09:00:SS. Device `ana` unless said (`ben`, `cleo` in
  06). `L` numbers are observation lines, which are the results' `cause`.
- Beacons: UUID `5A4BCFCE-…` (`ROOM`) and `E2C56DB5-…` (`ANNEX`); `12/3` means major 12, minor 3
  of `ROOM`. Constraints, all beacon features with `"ranging": true`: `room-12` (ROOM, major 12),
  `desk` (ROOM 12/3), `any-room` (ROOM, any major; its UUID written in lower case), `annex`
  (ANNEX, any major). In 01, `lobby` (ROOM major 12, no `ranging`), `lobby-off` (ROOM,
  `"ranging": false`) and a circle `home` are monitored but not ranged.
- Measured power -59 unless a sighting says `power`; path-loss exponent 2 unless `args.txt` says.
  Distances are `10 ** ((power - rssi) / (10 * n))` in doubles; numbers are written as Python's
  shortest form that reads back as the same double (`-61.5`, `-60`, `0`, `-1`, `1.1220184543019633`).
- Results due strictly before a record's time are written before the device's record is applied
  (the verdict is the device's authorization as of its previous record, with the lapses due by the
  result's second applied); at the end of the input each device, in the order of its first record,
  gets the result of its last record's second, if that time is whole.

Readings of docs/ranging.md that these fixtures fix (where the page leaves room):
- `cause` is the latest matching sighting in the window over all beacons of the result; at equal
  times the later line (03: cause 10 for five sightings at :02).
- The 2 s test for `unknown` counts any sighting of the beacon, an RSSI-0 one included; and the
  measured power is that of the latest sighting in the window whatever its RSSI (04, :02: power
  -40 from an RSSI-0 sighting).
- A stale beacon (`unknown` for want of a sighting in the last 2 s) keeps its distance; only
  `rssi` 0 gives distance -1 (01 from :06, 03).
- Beacons of one result all share the constraint's UUID, so the tie on UUID never decides.

Regenerate (from the repository root; needs `pip install shapely`):

```sh
python3 scripts/make_ranging_fixtures.py
```

which is the same as running, for each folder `S`:

```sh
python3 scripts/reference_ranging.py --conditions S/conditions.geojson --observations S/observations.jsonl $(cat S/args.txt 2>/dev/null) > S/expected-results.jsonl
```

For a benchmark input (no oracle), `scripts/make_ranging_workload.py --constraints N --sightings M
--devices D --seed S --out-dir DIR` writes `DIR/conditions.geojson` and `DIR/sightings.csv`.

| # | Scenario (`args.txt`) | What it shows | Expected lines |
|---|---|---|---|
"""


def cell(text):
    return text.replace("|", "\\|")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "ranging"))
    options = parser.parse_args()
    out = os.path.normpath(options.out)
    os.makedirs(out, exist_ok=True)
    names = [s["name"] for s in SCENARIOS]
    assert len(set(names)) == len(names)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for number, scenario in enumerate(SCENARIOS, start=1):
            name = scenario["name"]
            assert name.startswith("%02d-" % number), name
            records = scenario["records"]
            folder = os.path.join(out, name)
            if os.path.isdir(folder):
                shutil.rmtree(folder)
            os.makedirs(folder)
            with open(os.path.join(folder, "conditions.geojson"), "w", encoding="utf-8",
                      newline="\n") as f:
                f.write(conditions_text(scenario["conditions"]))
            observations = os.path.join(folder, "observations.jsonl")
            with open(observations, "w", encoding="utf-8", newline="\n") as f:
                for record in records:
                    f.write(record_line(record) + "\n")
            args = scenario["args"]
            if args:
                with open(os.path.join(folder, "args.txt"), "w", encoding="utf-8",
                          newline="\n") as f:
                    f.write(" ".join(args) + "\n")
            first = run_oracle(folder, observations, args)
            second = run_oracle(folder, observations, args)
            if first != second:
                raise SystemExit("%s: two oracle runs differ" % name)
            as_csv = os.path.join(scratch, name + ".csv")
            with open(as_csv, "w", encoding="utf-8", newline="\n") as f:
                f.write(csv_text(records))
            if shift_causes(run_oracle(folder, as_csv, args), -1) != first:  # the header is line 1
                raise SystemExit("%s: the CSV form of the records gives other results" % name)
            count = compare(name, first, scenario["expect"], scenario["exponent"])
            with open(os.path.join(folder, "expected-results.jsonl"), "wb") as f:
                f.write(first)
            shown_args = "`%s`" % " ".join(args) if args else "—"
            rows.append("| %d | `%s` (%s) | %s | %d lines from %d records. %s |"
                        % (number, name, shown_args, cell(scenario["shows"]), count, len(records),
                           cell(scenario["words"])))
            print("%s: %d records, %d expected lines" % (name, len(records), count), file=sys.stderr)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(README_HEAD + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
