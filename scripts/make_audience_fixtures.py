#!/usr/bin/env python3
"""Generate Fixtures/audiences: conditions per device (SPEC section 5.6).

The rules are reference_audiences.py's (SPEC section 5.6 and the team's choices): a feature's
`properties.devices` and `properties.groups` name who watches it (with neither, every device);
a groups file (`device,group` CSV) gives the groups' members; a device is evaluated only against
the conditions it watches, as if the file held only those, limits (section 5.4) included.

Each scenario is a folder NN-short-name/ with conditions.geojson, observations.jsonl (JSON Lines,
no blank line), expected-events.jsonl (the output of scripts/reference_monitor.py), and where
the scenario needs them groups.csv (the harness passes `--groups <folder>/groups.csv` itself, so
it is never in args.txt) and args.txt (the other flags on one line). Fixtures/audiences/README.md
is written from the same data.

Deterministic (no randomness, no clock). Before anything is accepted:
- every valid fix is unambiguous for every geographic condition of its scenario (|d - m| and
  |d + m| >= 2 % of |d| + 1 m, m = accuracy), and inside exactly the conditions placed at its spot;
- the oracle's output matches, line by line, the expectation written by hand below (cause,
  device, identifier, state, date, delivery, reason, refinement, diagnostics);
- independent invariants hold: no line names a condition its device does not watch (who watches
  what is worked out here from the scenario's own lists, not by reference_audiences); and each
  device's lines are exactly its lines in a run of the oracle, without --groups, over the
  conditions file cut down to the conditions that device watches (their `devices` and `groups`
  taken out) -- the definition of the semantics;
- a second oracle run gives byte-identical output.

Usage: python3 scripts/make_audience_fixtures.py [--out Fixtures/audiences]
(needs shapely 2, like the oracle).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_monitor as rm  # noqa: E402
import reference_profiles as rp  # noqa: E402
import make_scenarios as ms  # noqa: E402  (Lyon's home/office/park, record helpers, verdicts)

T, A = ms.T, ms.A
UUID = ms.DESK_UUID
SAT, UNS, UNM, DWL = "satisfied", "unsatisfied", "unmonitored", "dwelling"
LE, UNSUP = rp.CONDITION_LIMIT_EXCEEDED, rp.CONDITION_UNSUPPORTED

# ------------------------------------------------------------------ geography (Lyon)

CIRCLES = {  # place -> (centre, radius m)
    "home": (ms.HOME, 80),
    "office": (ms.OFFICE, 150),
    "depot": ((4.8300, 45.7650), 100),
    "yard": ((4.8450, 45.7660), 100),
}
POLYGONS = {"park": ms.PARK}
BEACONS = {"desk": 1, "lift": 2, "vault": 3, "door": 4}  # one UUID, by major, any minor

SPOTS = {  # a fix's spot -> (lon, lat); inside the place of the same name only ("street": none)
    "home": ms.SPOTS["home"],  # 40 m inside home
    "office": ms.SPOTS["office"],  # 90 m inside office
    "park": ms.SPOTS["park"],  # about 55 m inside every edge
    "street": ms.SPOTS["street"],  # outside everything
    "depot": CIRCLES["depot"][0],  # the centre: 100 m inside
    "yard": CIRCLES["yard"][0],
}


def C(identifier, place, devices=None, groups=None, assuming="unsatisfied"):
    """A condition at a place (a circle, the park polygon, or a beacon), watched by `devices`
    and the members of `groups` (None: not named). assuming None: the property is left out."""
    properties = {}
    if place in CIRCLES:
        centre, radius = CIRCLES[place]
        geometry = {"type": "Point", "coordinates": list(centre)}
        properties["radius"] = radius
    elif place in POLYGONS:
        geometry = {"type": "Polygon", "coordinates": [[list(p) for p in POLYGONS[place]]]}
    else:
        geometry = None
        properties["beacon"] = {"uuid": UUID, "major": BEACONS[place]}
    if assuming is not None:
        properties["assuming"] = assuming
    if devices is not None:
        properties["devices"] = list(devices)
    if groups is not None:
        properties["groups"] = list(groups)
    return {"place": place,
            "feature": {"type": "Feature", "id": identifier, "geometry": geometry,
                        "properties": properties}}


# ------------------------------------------------------------------ records and expectations

def F(t, spot, dev):
    return {"type": "fix", "device": dev, "t": T(t), "spot": spot, "accuracy": 10}


def B(t, beacon, minor, dev):
    return {"type": "sighting", "device": dev, "t": T(t), "uuid": UUID, "major": BEACONS[beacon],
            "minor": minor, "rssi": -62}


def record_line(record):
    head = '{"type":"%s","device":"%s","t":"%s"' % (record["type"], record["device"], record["t"])
    if record["type"] == "fix":
        lon, lat = SPOTS[record["spot"]]
        return head + ',"lat":%r,"lon":%r,"accuracy":%d}' % (lat, lon, record["accuracy"])
    rest = {k: v for k, v in record.items() if k not in ("type", "device", "t")}
    return head + "," + json.dumps(rest, separators=(",", ":"))[1:]


def E(cause, dev, identifier, state, hms, verdict="ok", own=None, ref=None):
    """One expected line. verdict: make_scenarios' shorthand; own: an unmonitored event's
    diagnostic (after the verdict's); ref: (beacon, minor) of a beacon's satisfied event."""
    delivery, reason, diagnostics = ms.VERDICTS[verdict]
    refinement = None
    if ref is not None:
        refinement = {"uuid": UUID, "major": BEACONS[ref[0]], "minor": ref[1]}
    return {"cause": cause, "device": dev, "identifier": identifier, "state": state,
            "date": T(hms), "delivery": delivery, "reason": reason, "refinement": refinement,
            "diagnostics": diagnostics + ([own] if own else [])}


def U(cause, dev, identifiers_and_diagnostics, hms, verdict="ok"):
    """The unmonitored lines of one device's first record."""
    return [E(cause, dev, i, UNM, hms, verdict, own=d) for i, d in identifiers_and_diagnostics]


# ------------------------------------------------------------------ the scenarios

SCENARIOS = [
    dict(
        name="01-private-circles",
        args=[],
        conditions=[C("ana-home", "home", devices=["ana"]), C("ben-home", "home", devices=["ben"]),
                    C("office", "office")],
        shows="Two private circles at the same place (`ana-home` for ana, `ben-home` for ben, both "
              "`home` r=80 m) and a shared `office`: each device gets its own circle's events and "
              "the shared one's, never the other's; cleo, named nowhere, gets only `office`.",
        words="L1 ana-home satisfied (ana). L2 ben-home satisfied (ben). L3 ana-home unsatisfied, "
              "office satisfied (ana). L4 the same for ben. L5 office unsatisfied (ana). L6 "
              "ben-home satisfied, office unsatisfied (ben). L7 cleo at home: nothing. L8 office "
              "satisfied (cleo).",
        records=[
            F("09:00:00", "home", "ana"), F("09:00:10", "home", "ben"),
            F("09:01:00", "office", "ana"), F("09:01:30", "office", "ben"),
            F("09:02:00", "street", "ana"), F("09:02:30", "home", "ben"),
            F("09:03:00", "home", "cleo"), F("09:03:30", "office", "cleo"),
        ],
        expect=[
            E(1, "ana", "ana-home", SAT, "09:00:00"),
            E(2, "ben", "ben-home", SAT, "09:00:10"),
            E(3, "ana", "ana-home", UNS, "09:01:00"),
            E(3, "ana", "office", SAT, "09:01:00"),
            E(4, "ben", "ben-home", UNS, "09:01:30"),
            E(4, "ben", "office", SAT, "09:01:30"),
            E(5, "ana", "office", UNS, "09:02:00"),
            E(6, "ben", "ben-home", SAT, "09:02:30"),
            E(6, "ben", "office", UNS, "09:02:30"),
            E(8, "cleo", "office", SAT, "09:03:30"),
        ],
    ),
    dict(
        name="02-groups-file",
        args=[],
        groups=["device,group", "ana,staff", "ana,security", "ben,staff", "ben,staff",
                "ana,visitors"],
        conditions=[C("office", "office", groups=["staff"]), C("desk", "desk", groups=["staff"]),
                    C("vault", "vault", groups=["security"]), C("park", "park")],
        shows="Groups from `groups.csv`: ana is in `staff` and `security`, ben in `staff` (his line "
              "is repeated, harmlessly), cleo in none; `visitors` (ana's third group) is named by "
              "no condition, harmlessly. `office` (circle) and `desk` (beacon) are for `staff`, "
              "`vault` (beacon) for `security`, the `park` polygon for everyone. A sighting of a "
              "beacon the device does not watch gives nothing, and sets no exit timer.",
        words="L1 office satisfied (ana); L2 (ben) the same; L3 cleo in office: nothing. L4 vault "
              "satisfied (ana, minor 1); L5 ben sees vault, L6 cleo sees desk: nothing. L7 desk "
              "satisfied (ben, minor 2). L8 park satisfied (cleo). L9 ana: vault's exit dated "
              "09:00:50, then office unsatisfied, park satisfied. L10 ben: desk's exit dated "
              "09:01:05, then office unsatisfied, park satisfied.",
        records=[
            F("09:00:00", "office", "ana"), F("09:00:05", "office", "ben"),
            F("09:00:10", "office", "cleo"), B("09:00:20", "vault", 1, "ana"),
            B("09:00:25", "vault", 1, "ben"), B("09:00:30", "desk", 2, "cleo"),
            B("09:00:35", "desk", 2, "ben"), F("09:01:00", "park", "cleo"),
            F("09:01:10", "park", "ana"), F("09:01:20", "park", "ben"),
        ],
        expect=[
            E(1, "ana", "office", SAT, "09:00:00"),
            E(2, "ben", "office", SAT, "09:00:05"),
            E(4, "ana", "vault", SAT, "09:00:20", ref=("vault", 1)),
            E(7, "ben", "desk", SAT, "09:00:35", ref=("desk", 2)),
            E(8, "cleo", "park", SAT, "09:01:00"),
            E(9, "ana", "vault", UNS, "09:00:50"),
            E(9, "ana", "office", UNS, "09:01:10"),
            E(9, "ana", "park", SAT, "09:01:10"),
            E(10, "ben", "desk", UNS, "09:01:05"),
            E(10, "ben", "office", UNS, "09:01:20"),
            E(10, "ben", "park", SAT, "09:01:20"),
        ],
    ),
    dict(
        name="03-devices-and-groups",
        args=[],
        groups=["device,group", "ana,night", "ben,night"],
        conditions=[C("depot", "depot", devices=["cleo"], groups=["night"]),
                    C("yard", "yard", devices=["ben"]), C("home", "home")],
        shows="`devices` and `groups` on one condition are a union: `depot` names cleo (in no "
              "group) and the group `night` (ana, ben), so all three watch it; dan watches only "
              "the shared `home`. `yard` names ben alone: ana, though in `night` with him, does "
              "not watch it.",
        words="L1 depot satisfied (ana); L2 (cleo) the same; L3 dan in depot: nothing. L4 yard "
              "satisfied (ben). L5 ana in yard: depot unsatisfied only. L6 home satisfied (dan). "
              "L7 cleo: depot unsatisfied, home satisfied. L8 ben: depot satisfied, yard "
              "unsatisfied.",
        records=[
            F("09:00:00", "depot", "ana"), F("09:00:10", "depot", "cleo"),
            F("09:00:20", "depot", "dan"), F("09:00:30", "yard", "ben"),
            F("09:00:40", "yard", "ana"), F("09:01:00", "home", "dan"),
            F("09:01:10", "home", "cleo"), F("09:01:20", "depot", "ben"),
        ],
        expect=[
            E(1, "ana", "depot", SAT, "09:00:00"),
            E(2, "cleo", "depot", SAT, "09:00:10"),
            E(4, "ben", "yard", SAT, "09:00:30"),
            E(5, "ana", "depot", UNS, "09:00:40"),
            E(6, "dan", "home", SAT, "09:01:00"),
            E(7, "cleo", "depot", UNS, "09:01:10"),
            E(7, "cleo", "home", SAT, "09:01:10"),
            E(8, "ben", "depot", SAT, "09:01:20"),
            E(8, "ben", "yard", UNS, "09:01:20"),
        ],
    ),
    dict(
        name="04-unknown-first-fix",
        args=[],
        conditions=[C("home", "home", devices=["ana"], assuming=None),
                    C("office", "office", devices=["ben"], assuming="unknown"),
                    C("depot", "depot", assuming=None),
                    C("yard", "yard", devices=["ana"], assuming="satisfied")],
        shows="Conditions starting `unknown` (the default assumption, or `assuming: \"unknown\"`) "
              "and `satisfied`: a device's first fix settles only the conditions it watches. ana "
              "watches home, depot and yard (assumed satisfied); ben office and depot; cleo and "
              "dan only the shared depot. dan's first record is an app record, which settles "
              "nothing.",
        words="L1 ana at home: home satisfied, depot unsatisfied, yard unsatisfied. L2 ben in the "
              "street: office unsatisfied, depot unsatisfied. L3 cleo in depot: depot satisfied. "
              "L4 dan (app record): nothing. L5 dan in the street: depot unsatisfied. L6 ana in "
              "the street: home unsatisfied.",
        records=[
            F("09:00:00", "home", "ana"), F("09:00:10", "street", "ben"),
            F("09:00:20", "depot", "cleo"), A("09:00:30", "background", "dan"),
            F("09:00:40", "street", "dan"), F("09:01:00", "street", "ana"),
        ],
        expect=[
            E(1, "ana", "home", SAT, "09:00:00"),
            E(1, "ana", "depot", UNS, "09:00:00"),
            E(1, "ana", "yard", UNS, "09:00:00"),
            E(2, "ben", "office", UNS, "09:00:10"),
            E(2, "ben", "depot", UNS, "09:00:10"),
            E(3, "cleo", "depot", SAT, "09:00:20"),
            E(5, "dan", "depot", UNS, "09:00:40"),
            E(6, "ana", "home", UNS, "09:01:00"),
        ],
    ),
    dict(
        name="05-unknown-beacons",
        args=[],
        conditions=[C("desk", "desk", devices=["ana"], assuming=None),
                    C("lift", "lift", devices=["ben"], assuming=None),
                    C("door", "door", assuming=None)],
        shows="Beacon conditions starting `unknown` become unsatisfied 30 s after the device's "
              "first record, only where the device watches them: ana has desk and door timers, ben "
              "lift and door, cleo door alone. A sighting of a beacon the device does not watch "
              "(ana sees lift, ben and cleo see desk) gives nothing; ben's lift sighting exactly at "
              "its timer cancels it.",
        words="L5 ana: desk then door unsatisfied, both dated 09:00:30 (first record L1 + 30 s). "
              "L3, L4 (beacons not watched): nothing. L6 ben sees lift at 09:00:40, its timer's "
              "instant: lift satisfied (minor 7), no exit. L7: door unsatisfied dated 09:00:40. "
              "L8: lift unsatisfied dated 09:01:10. L9 cleo sees desk: nothing; L10: door "
              "unsatisfied dated 09:02:00.",
        records=[
            F("09:00:00", "street", "ana"), F("09:00:10", "street", "ben"),
            B("09:00:20", "lift", 1, "ana"), B("09:00:25", "desk", 1, "ben"),
            F("09:00:45", "street", "ana"), B("09:00:40", "lift", 7, "ben"),
            F("09:01:00", "street", "ben"), F("09:01:20", "street", "ben"),
            B("09:01:30", "desk", 1, "cleo"), F("09:02:10", "street", "cleo"),
        ],
        expect=[
            E(5, "ana", "desk", UNS, "09:00:30"),
            E(5, "ana", "door", UNS, "09:00:30"),
            E(6, "ben", "lift", SAT, "09:00:40", ref=("lift", 7)),
            E(7, "ben", "door", UNS, "09:00:40"),
            E(8, "ben", "lift", UNS, "09:01:10"),
            E(10, "cleo", "door", UNS, "09:02:00"),
        ],
    ),
    dict(
        name="06-confirmation-unknown",
        args=["--confirmation", "20"],
        conditions=[C("home", "home", devices=["ana"], assuming=None),
                    C("office", "office", devices=["ben"], assuming=None),
                    C("depot", "depot", assuming=None)],
        shows="A confirmation time of 20 s with conditions starting `unknown`: each device's "
              "waiting runs concern only its own conditions (ana: home, depot; ben: office, "
              "depot; cleo: depot). A change completes at the first fix on the new side at least "
              "20 s after the run began; a fix on the old side cancels a run; a run to the other "
              "side replaces it.",
        words="L1 ana, L2 ben: runs start, nothing. L3 ana (20 s on): home satisfied, depot "
              "unsatisfied. L4 ben in the street: office's run to satisfied is replaced by one to "
              "unsatisfied. L5: depot unsatisfied (ben, 25 s). L6: office unsatisfied (ben, 20 s). "
              "L7 ana out, L8 back home (cancels), L9 out again: nothing; L10 (20 s after L9): "
              "home unsatisfied. cleo L11, L12: nothing; L13: depot satisfied.",
        records=[
            F("09:00:00", "home", "ana"), F("09:00:05", "office", "ben"),
            F("09:00:20", "home", "ana"), F("09:00:15", "street", "ben"),
            F("09:00:30", "street", "ben"), F("09:00:35", "street", "ben"),
            F("09:00:40", "street", "ana"), F("09:00:50", "home", "ana"),
            F("09:01:10", "street", "ana"), F("09:01:30", "street", "ana"),
            F("09:02:00", "depot", "cleo"), F("09:02:10", "depot", "cleo"),
            F("09:02:20", "depot", "cleo"),
        ],
        expect=[
            E(3, "ana", "home", SAT, "09:00:20"),
            E(3, "ana", "depot", UNS, "09:00:20"),
            E(5, "ben", "depot", UNS, "09:00:30"),
            E(6, "ben", "office", UNS, "09:00:35"),
            E(10, "ana", "home", UNS, "09:01:30"),
            E(13, "cleo", "depot", SAT, "09:02:20"),
        ],
    ),
    dict(
        name="07-ios17-limits-per-device",
        args=["--profile", "ios17", "--condition-limit", "2"],
        conditions=[C("ana-home", "home", devices=["ana"]), C("desk", "desk"),
                    C("ana-park", "park", devices=["ana"]), C("lift", "lift", devices=["ben"]),
                    C("depot", "depot"), C("vault", "vault", devices=["ben"]), C("yard", "yard"),
                    C("door", "door")],
        shows="Limit 2 per type counts among the conditions each device watches, in file order. "
              "Geographic: ana's private ana-home and ana-park come first, so the shared depot and "
              "yard wait for her (conditionLimitExceeded), while ben and cleo, with no private "
              "circle, monitor both. Beacons: ben's private lift comes before vault and the shared "
              "door, so vault and door wait for him, while ana and cleo monitor desk and door. "
              "Each device is told only of its own waiting conditions; cleo of none.",
        words="L1 ana (in depot): depot, yard unmonitored; nothing else. L2 ben (in depot): vault, "
              "door unmonitored, then depot satisfied. L3 ana-park satisfied (ana). L4 ben sees "
              "door: nothing. L5 door satisfied (ana, minor 1). L6 lift satisfied (ben, minor 2). "
              "L7 ben: depot unsatisfied, yard satisfied. L8 ana (in yard): door's exit dated "
              "09:01:10, then ana-park unsatisfied. L9 ben sees vault: lift's exit dated 09:01:20 "
              "only. L10 cleo: depot satisfied, no unmonitored line. L11 door satisfied (cleo, "
              "minor 3); its exit (09:02:40) is after cleo's last record: none.",
        records=[
            F("09:00:00", "depot", "ana"), F("09:00:10", "depot", "ben"),
            F("09:00:20", "park", "ana"), B("09:00:30", "door", 1, "ben"),
            B("09:00:40", "door", 1, "ana"), B("09:00:50", "lift", 2, "ben"),
            F("09:01:00", "yard", "ben"), F("09:01:30", "yard", "ana"),
            B("09:01:40", "vault", 1, "ben"), F("09:02:00", "depot", "cleo"),
            B("09:02:10", "door", 3, "cleo"),
        ],
        expect=U(1, "ana", [("depot", LE), ("yard", LE)], "09:00:00")
        + U(2, "ben", [("vault", LE), ("door", LE)], "09:00:10") + [
            E(2, "ben", "depot", SAT, "09:00:10"),
            E(3, "ana", "ana-park", SAT, "09:00:20"),
            E(5, "ana", "door", SAT, "09:00:40", ref=("door", 1)),
            E(6, "ben", "lift", SAT, "09:00:50", ref=("lift", 2)),
            E(7, "ben", "depot", UNS, "09:01:00"),
            E(7, "ben", "yard", SAT, "09:01:00"),
            E(8, "ana", "door", UNS, "09:01:10"),
            E(8, "ana", "ana-park", UNS, "09:01:30"),
            E(9, "ben", "lift", UNS, "09:01:20"),
            E(10, "cleo", "depot", SAT, "09:02:00"),
            E(11, "cleo", "door", SAT, "09:02:10", ref=("door", 3)),
        ],
    ),
    dict(
        name="08-android-scoped",
        args=["--profile", "android"],
        conditions=[C("park", "park", devices=["ana"]), C("home", "home", devices=["ben"]),
                    C("office", "office"), C("desk", "desk", devices=["ben"])],
        shows="android with scoped conditions: the polygon `park` is ana's only, so only ana is "
              "told it is unsupported; the beacon `desk` is ben's only, so only ben is; cleo, with "
              "only the shared office, is told nothing. ben dwells in his private `home` 30 s "
              "after entering it; ana, in home, gets nothing; office dwells for ben and cleo "
              "apart.",
        words="L1 ana: park unmonitored (conditionUnsupported). L2 ben: desk unmonitored "
              "(conditionUnsupported), then home satisfied. L3 ana at home: nothing. L4 ben: home "
              "dwelling dated 09:00:40. L5 ben: home unsatisfied, office satisfied. L6 cleo: "
              "office satisfied. L7 ben sees desk: nothing. L8 ben: office dwelling dated "
              "09:01:30. L9 cleo: office dwelling dated 09:01:35.",
        records=[
            F("09:00:00", "park", "ana"), F("09:00:10", "home", "ben"),
            F("09:00:20", "home", "ana"), F("09:00:50", "home", "ben"),
            F("09:01:00", "office", "ben"), F("09:01:05", "office", "cleo"),
            B("09:01:10", "desk", 1, "ben"), F("09:01:40", "office", "ben"),
            F("09:02:00", "office", "cleo"),
        ],
        expect=U(1, "ana", [("park", UNSUP)], "09:00:00")
        + U(2, "ben", [("desk", UNSUP)], "09:00:10") + [
            E(2, "ben", "home", SAT, "09:00:10"),
            E(4, "ben", "home", DWL, "09:00:40"),
            E(5, "ben", "home", UNS, "09:01:00"),
            E(5, "ben", "office", SAT, "09:01:00"),
            E(6, "cleo", "office", SAT, "09:01:05"),
            E(8, "ben", "office", DWL, "09:01:30"),
            E(9, "cleo", "office", DWL, "09:01:35"),
        ],
    ),
    dict(
        name="09-absent-device-empty-group",
        args=[],
        groups=["device,group", "ana,crew", "", "zed,crew"],
        conditions=[C("home", "home", devices=["zed"], assuming="unknown"),
                    C("office", "office", groups=["ghosts"], assuming="unknown"),
                    C("depot", "depot", devices=["zed"], groups=["crew"]), C("yard", "yard")],
        shows="A device named only where no record has it (zed, in `home`'s `devices` and in "
              "`crew`) and a group with no member (`ghosts`, not in `groups.csv`): `home` and "
              "`office` (both starting `unknown`, so any first fix would settle them) give no line "
              "at all. `depot` is for zed and `crew` (ana); `yard` for everyone. `groups.csv` has "
              "a blank line, skipped.",
        words="L1 ana at home, L2 ben in office, L3 ana in office: nothing. L4 depot satisfied "
              "(ana). L5 ben in depot: nothing. L6 yard satisfied (ben). L7 ana: depot "
              "unsatisfied, yard satisfied.",
        records=[
            F("09:00:00", "home", "ana"), F("09:00:10", "office", "ben"),
            F("09:00:20", "office", "ana"), F("09:00:30", "depot", "ana"),
            F("09:00:40", "depot", "ben"), F("09:00:50", "yard", "ben"),
            F("09:01:00", "yard", "ana"),
        ],
        expect=[
            E(4, "ana", "depot", SAT, "09:00:30"),
            E(6, "ben", "yard", SAT, "09:00:50"),
            E(7, "ana", "depot", UNS, "09:01:00"),
            E(7, "ana", "yard", SAT, "09:01:00"),
        ],
    ),
    dict(
        name="10-static-membership",
        args=[],
        groups=["device,group", "eve,day", "dan,late"],
        conditions=[C("office", "office", groups=["late"], assuming="unknown"),
                    C("lift", "lift", groups=["late"], assuming="unknown"), C("home", "home")],
        shows="The groups file is static: dan (in `late`, the file's last line) watches `late`'s "
              "conditions from his first record, an app record, on, through records before and "
              "after eve's, not from some later point: `lift` (starting `unknown`) times out 30 s "
              "after that first record, and his first fix settles `office`. eve, in `day` only, "
              "gets only the shared `home`.",
        words="L1 dan (app record): nothing, lift's timer starts. L2 eve: home satisfied. L3 dan "
              "in office: office satisfied. L4 eve: home unsatisfied. L5 dan: lift unsatisfied "
              "dated 09:00:30 (L1 + 30 s), then office unsatisfied. L6 lift satisfied (dan, minor "
              "1). L7 dan at home: lift's exit dated 09:01:30, then home satisfied.",
        records=[
            A("09:00:00", "background", "dan"), F("09:00:05", "home", "eve"),
            F("09:00:10", "office", "dan"), F("09:00:40", "office", "eve"),
            F("09:00:50", "street", "dan"), B("09:01:00", "lift", 1, "dan"),
            F("09:01:40", "home", "dan"),
        ],
        expect=[
            E(2, "eve", "home", SAT, "09:00:05"),
            E(3, "dan", "office", SAT, "09:00:10"),
            E(4, "eve", "home", UNS, "09:00:40"),
            E(5, "dan", "lift", UNS, "09:00:30"),
            E(5, "dan", "office", UNS, "09:00:50"),
            E(6, "dan", "lift", SAT, "09:01:00", ref=("lift", 1)),
            E(7, "dan", "lift", UNS, "09:01:30"),
            E(7, "dan", "home", SAT, "09:01:40"),
        ],
    ),
]

# ------------------------------------------------------------------ checks

KEYS = ("cause", "device", "identifier", "state", "date", "delivery", "reason", "refinement",
        "diagnostics")


def check_spots(scenario):
    """Every valid fix is unambiguous for every geographic condition, and inside exactly those
    placed at its spot."""
    name = scenario["name"]
    for record in scenario["records"]:
        if record["type"] != "fix":
            continue
        lon, lat = SPOTS[record["spot"]]
        for condition in scenario["conditions"]:
            if condition["place"] in BEACONS:
                continue
            c = rm.Condition(0, condition["feature"]["id"],
                             "circle" if condition["place"] in CIRCLES else "polygon", None)
            if c.kind == "circle":
                c.center, c.radius = CIRCLES[condition["place"]]
            else:
                c.geometry = rm.shape(condition["feature"]["geometry"])
                c.rings = list(rm.polygon_rings(c.geometry))
            d = c.signed_distance_m(lon, lat)
            if not ms.ambiguity_ok(d, float(record["accuracy"])):
                raise SystemExit("%s: ambiguous fix at %s for %s (d=%.2f)"
                                 % (name, record["spot"], c.identifier, d))
            if (d < 0) != (condition["place"] == record["spot"]):
                raise SystemExit("%s: spot %s is on the wrong side of %s (d=%.2f)"
                                 % (name, record["spot"], c.identifier, d))


def memberships(scenario):
    """device -> its groups, read here from the scenario's groups lines (not by the oracle)."""
    groups = {}
    for line in scenario.get("groups", [])[1:]:
        if line:
            device, group = line.split(",")
            groups.setdefault(device, set()).add(group)
    return groups


def watched(scenario, device):
    """The features the device watches, in file order, worked out from the scenario's lists."""
    groups = memberships(scenario).get(device, set())
    out = []
    for condition in scenario["conditions"]:
        properties = condition["feature"]["properties"]
        if "devices" not in properties and "groups" not in properties:
            out.append(condition["feature"])
        elif device in properties.get("devices", []) or groups & set(properties.get("groups", [])):
            out.append(condition["feature"])
    return out


def compare(name, events, expect):
    got = [{k: event[k] for k in KEYS} for event in events]
    if got != expect:
        print("%s: oracle output differs from the expectation" % name, file=sys.stderr)
        for i in range(max(len(got), len(expect))):
            g = got[i] if i < len(got) else None
            e = expect[i] if i < len(expect) else None
            mark = "  " if g == e else "!!"
            print("%s got      %s\n%s expected %s" % (mark, g, mark, e), file=sys.stderr)
        raise SystemExit(1)


def run_oracle(conditions, observations, args):
    command = [sys.executable, os.path.join(HERE, "reference_monitor.py"),
               "--conditions", conditions, "--observations", observations] + args
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        raise SystemExit("%s: oracle failed: %s" % (conditions, result.stderr.decode("utf-8")))
    return result.stdout


def check_invariants(scenario, folder, events):
    """No line for a condition its device does not watch; each device's lines are its lines of
    a plain run over the conditions it watches (their `devices` and `groups` taken out)."""
    name = scenario["name"]
    devices = []
    for record in scenario["records"]:
        if record["device"] not in devices:
            devices.append(record["device"])
    with tempfile.TemporaryDirectory() as scratch:
        for device in devices:
            features = watched(scenario, device)
            ids = {f["id"] for f in features}
            for e in events:
                if e["device"] == device and e["identifier"] not in ids:
                    raise SystemExit("%s: a line for %s, which %s does not watch"
                                     % (name, e["identifier"], device))
            plain = []
            for f in features:
                f = json.loads(json.dumps(f))
                f["properties"].pop("devices", None)
                f["properties"].pop("groups", None)
                plain.append(f)
            path = os.path.join(scratch, "%s.geojson" % device)
            with open(path, "w", encoding="utf-8") as out:
                json.dump({"type": "FeatureCollection", "features": plain}, out)
            alone = [json.loads(text) for text in run_oracle(
                path, os.path.join(folder, "observations.jsonl"),
                scenario["args"]).decode("utf-8").splitlines()]
            want = [e for e in alone if e["device"] == device]
            got = [e for e in events if e["device"] == device]
            if got != want:
                print("%s: %s's lines differ from a run over its own conditions" % (name, device),
                      file=sys.stderr)
                for g in got:
                    print("  got  %s" % g, file=sys.stderr)
                for w in want:
                    print("  want %s" % w, file=sys.stderr)
                raise SystemExit(1)


# ------------------------------------------------------------------ writing

README_HEAD = """# Fixture set `audiences`: conditions per device (SPEC §5.6)

Small hand-designed scenarios for conditions that only some devices watch: a feature's
`properties.devices` (device names) and `properties.groups` (group names) name who watches it —
the devices listed and every member of a group listed; with neither, every device. A groups file
(`groups.csv`: the header `device,group`, then one membership a line; a repeated line, a group no
condition names and blank lines are harmless; a group the file does not list has no members)
gives the groups. A device is evaluated only against the conditions it watches, exactly as if the
conditions file held only those, in file order: no pair, no event of any kind (no first-fix
settling of `unknown`, no beacon first-exit timer, no dwelling, no `unmonitored` line) for the
others; and a profile's limits (SPEC §5.4) count per device among the conditions it watches.

Each folder `NN-short-name/` holds `conditions.geojson`, `observations.jsonl`,
`expected-events.jsonl` (the output of the Python oracle `scripts/reference_monitor.py`, whose
rules for this are in `scripts/reference_audiences.py`), and where the scenario needs them
`groups.csv` (the test passes `--groups S/groups.csv`; it is never in `args.txt`) and `args.txt`
(the other evaluate flags, on one line). Everything here is generated by
`scripts/make_audience_fixtures.py`, which checks every oracle line against an expectation
written by hand in that script, and checks the rule again as an invariant over the output: each
device's lines are exactly its lines in a plain run (no `--groups`) over the conditions file cut
down to the conditions that device watches, and none names a condition it does not watch.

Common ground: Lyon, 2026-03-02, times in UTC. Places: circles `home` (r=80 m), `office`
(r=150 m), `depot`, `yard` (r=100 m), the `park` square polygon, and beacons `desk`, `lift`,
`vault`, `door` (one UUID, majors 1–4, any minor). A condition is named after its place, or
`ana-home`, `ben-home`, `ana-park` for a private one at `home` or `park`. Conditions are
`assuming: "unsatisfied"` unless the scenario says otherwise. Fixes have accuracy 10 m and are
unambiguous for every condition, inside exactly those at their spot (`street`: none). Every
device starts `always` (no authorization records), so every line is delivered. `L` numbers are
observation lines (the `cause` of the events).

Regenerate (from the repository root; needs `pip install shapely`):

```sh
python3 scripts/make_audience_fixtures.py
```

which is the same as running, for each folder `S`:

```sh
python3 scripts/reference_monitor.py --conditions S/conditions.geojson --observations S/observations.jsonl $(cat S/args.txt 2>/dev/null) $([ -f S/groups.csv ] && echo --groups S/groups.csv) > S/expected-events.jsonl
```

| # | Scenario (`args.txt`) | `groups.csv` | What it shows | Expected lines |
|---|---|---|---|---|
"""


def conditions_text(scenario):
    lines = [json.dumps(c["feature"], ensure_ascii=False, separators=(", ", ": "))
             for c in scenario["conditions"]]
    return '{"type": "FeatureCollection", "features": [\n' + ",\n".join(lines) + "\n]}\n"


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "audiences"))
    out = os.path.normpath(parser.parse_args().out)
    os.makedirs(out, exist_ok=True)
    names = [s["name"] for s in SCENARIOS]
    assert len(set(names)) == len(names)
    for stale in sorted(os.listdir(out)):
        if stale[:2].isdigit() and stale not in names:
            shutil.rmtree(os.path.join(out, stale))
    rows = []
    for number, scenario in enumerate(SCENARIOS, start=1):
        name, args, records = scenario["name"], scenario["args"], scenario["records"]
        assert name.startswith("%02d-" % number), name
        assert 5 <= len(records) <= 30, name
        assert "--groups" not in args, name
        folder = os.path.join(out, name)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        write(os.path.join(folder, "conditions.geojson"), conditions_text(scenario))
        write(os.path.join(folder, "observations.jsonl"),
              "".join(record_line(r) + "\n" for r in records))
        oracle_args = list(args)
        if args:
            write(os.path.join(folder, "args.txt"), " ".join(args) + "\n")
        if "groups" in scenario:
            assert scenario["groups"][0] == "device,group", name
            write(os.path.join(folder, "groups.csv"), "".join(l + "\n" for l in scenario["groups"]))
            oracle_args += ["--groups", os.path.join(folder, "groups.csv")]
        check_spots(scenario)
        conditions = os.path.join(folder, "conditions.geojson")
        observations = os.path.join(folder, "observations.jsonl")
        first = run_oracle(conditions, observations, oracle_args)
        if first != run_oracle(conditions, observations, oracle_args):
            raise SystemExit("%s: two oracle runs differ" % name)
        events = [json.loads(text) for text in first.decode("utf-8").splitlines()]
        compare(name, events, scenario["expect"])
        check_invariants(scenario, folder, events)
        with open(os.path.join(folder, "expected-events.jsonl"), "wb") as f:
            f.write(first)
        groups_cell = (", ".join("`%s`" % l if l else "(a blank line)" for l in scenario["groups"][1:])
                       if "groups" in scenario else "—")
        rows.append("| %d | `%s` (%s) | %s | %s | %d lines from %d records. %s |"
                    % (number, name, "`%s`" % " ".join(args) if args else "—", groups_cell,
                       ms.cell(scenario["shows"]), len(events), len(records),
                       ms.cell(scenario["words"])))
        print("%s: %d records, %d expected lines" % (name, len(records), len(events)),
              file=sys.stderr)
    write(os.path.join(out, "README.md"), README_HEAD + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
