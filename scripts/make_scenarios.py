#!/usr/bin/env python3
"""Generate Fixtures/scenarios: small authorization and delivery scenarios (SPEC section 3).

Each scenario is a folder NN-short-name/ with conditions.geojson, observations.jsonl,
expected-events.jsonl (the output of scripts/reference_monitor.py) and, when it needs
extra flags, args.txt (one line, whitespace-separated, passed to the oracle and to the
Swift tool alike). Fixtures/scenarios/README.md is written from the same data.

Deterministic (no randomness, no clock). Checks made before anything is accepted:
- every valid fix is unambiguous for every geographic condition of its scenario
  (|d - m| >= 2 % of |d| + 1 m and |d + m| >= 2 % of |d| + 1 m, m = accuracy), and each
  named spot is inside exactly the conditions it is named after;
- the oracle's output matches, line by line, the expectation written by hand below
  (cause line, device, identifier, state, date, delivery, reason, diagnostics), which
  is an independent check of the oracle's authorization rules;
- a second oracle run gives byte-identical output.

Usage: python3 scripts/make_scenarios.py [--out Fixtures/scenarios]
(needs shapely 2, like the oracle).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_monitor as rm  # noqa: E402
import make_city_fixture  # noqa: E402

DAY = "2026-03-02"
DESK_UUID = "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"

# ------------------------------------------------------------------ geography (Lyon)

HOME = (4.8320, 45.7578)  # circle r = 80 m
OFFICE = (4.8420, 45.7600)  # circle r = 150 m
PARK = [(4.8362, 45.7635), (4.8378, 45.7635), (4.8378, 45.7645), (4.8362, 45.7645),
        (4.8362, 45.7635)]  # square, about 124 m x 111 m


def feature(identifier):
    if identifier == "home":
        return {"type": "Feature", "id": "home",
                "geometry": {"type": "Point", "coordinates": list(HOME)},
                "properties": {"name": "Home", "radius": 80, "assuming": "unsatisfied"}}
    if identifier == "office":
        return {"type": "Feature", "id": "office",
                "geometry": {"type": "Point", "coordinates": list(OFFICE)},
                "properties": {"name": "Office", "radius": 150, "assuming": "unsatisfied"}}
    if identifier == "park":
        return {"type": "Feature", "id": "park",
                "geometry": {"type": "Polygon", "coordinates": [[list(p) for p in PARK]]},
                "properties": {"name": "Park", "assuming": "unsatisfied"}}
    if identifier == "desk":
        return {"type": "Feature", "id": "desk", "geometry": None,
                "properties": {"name": "Desk beacons (any minor)",
                               "beacon": {"uuid": DESK_UUID, "major": 1},
                               "assuming": "unsatisfied"}}
    raise KeyError(identifier)


def destination(lon, lat, bearing_deg, distance_m):
    """make_city_fixture's great-circle destination, rounded to 7 decimals (about 1 cm)."""
    lon2, lat2 = make_city_fixture.destination(lon, lat, bearing_deg, distance_m)
    return round(lon2, 7), round(lat2, 7)


SPOTS = {
    # name: (lon, lat); "street" is outside everything, the others inside their namesake only
    "home": destination(HOME[0], HOME[1], 0, 40),  # d = -40 m
    "office": destination(OFFICE[0], OFFICE[1], 200, 60),  # d = -90 m
    "park": (4.837, 45.764),  # about 55 m inside every edge
    "street": (4.8365, 45.759),
}

# ------------------------------------------------------------------ record helpers


def T(hms):
    return "%sT%sZ" % (DAY, hms)


def F(t, spot, dev="ana", accuracy=10):
    return {"type": "fix", "device": dev, "t": T(t), "spot": spot, "accuracy": accuracy}


def B(t, minor, dev="ana"):
    return {"type": "sighting", "device": dev, "t": T(t), "uuid": DESK_UUID, "major": 1,
            "minor": minor, "rssi": -62}


def A(t, state, dev="ana"):
    return {"type": "app", "device": dev, "t": T(t), "state": state}


def Q(t, what, dev="ana", purpose=None):
    record = {"type": "request", "device": dev, "t": T(t), "what": what}
    if purpose is not None:
        record["purpose"] = purpose
    return record


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


def record_line(record):
    head = '{"type":"%s","device":"%s","t":"%s"' % (record["type"], record["device"], record["t"])
    if record["type"] == "fix":
        lon, lat = SPOTS[record["spot"]]
        return head + ',"lat":%r,"lon":%r,"accuracy":%d}' % (lat, lon, record["accuracy"])
    rest = {k: v for k, v in record.items() if k not in ("type", "device", "t")}
    body = json.dumps(rest, separators=(",", ":"))
    return head + "," + body[1:]


# expected verdicts, shorthand -> (delivery, reason, diagnostics)
VERDICTS = {
    "ok": ("delivered", None, []),
    "held": ("held", "provisionalAlways", ["insufficientlyInUse"]),
    "notInUse": ("dropped", "insufficientlyInUse", ["insufficientlyInUse"]),
    "nd": ("dropped", "notDetermined", ["insufficientlyInUse"]),
    "ndPrompt": ("dropped", "notDetermined", ["authorizationRequestInProgress"]),
    "denied": ("dropped", "authorizationDenied", ["authorizationDenied"]),
    "servicesOff": ("dropped", "authorizationDenied",
                    ["authorizationDenied", "authorizationDeniedGlobally"]),
    "restricted": ("dropped", "authorizationRestricted", ["authorizationRestricted"]),
    "accuracy": ("dropped", "accuracyLimited", ["accuracyLimited"]),
    # final lines of held events
    "displaced": ("dropped", "displaced", ["insufficientlyInUse"]),
    "expired": ("dropped", "expired", ["insufficientlyInUse"]),
    "alwaysDenied": ("dropped", "alwaysAuthorizationDenied", ["alwaysAuthorizationDenied"]),
    "deniedFinal": ("dropped", "authorizationDenied", ["authorizationDenied"]),
}


def E(cause, identifier, state, hms, verdict, dev="ana"):
    delivery, reason, diagnostics = VERDICTS[verdict]
    return {"cause": cause, "device": dev, "identifier": identifier, "state": state,
            "date": T(hms), "delivery": delivery, "reason": reason, "diagnostics": diagnostics}


SAT, UNS = "satisfied", "unsatisfied"
ND = ["--initial-authorization", "notDetermined"]


def provisional_start(dev="ana", background="09:00:30"):
    """Foreground, request always, Allow While Using (provisional always), background."""
    return [A("09:00:00", "foreground", dev), Q("09:00:05", "always", dev),
            ANS("09:00:10", "allowWhileUsing", dev), A(background, "background", dev)]


# ------------------------------------------------------------------ the scenarios

SCENARIOS = [
    dict(
        name="01-always-granted",
        args=[],
        conditions=["home", "office", "desk"],
        shows="Always authorization (the default start: always, full accuracy, foreground): "
              "events are delivered in the background and after termination.",
        talk='000: "it should use its always powers ... set up some GEO fences and then start '
             'doing automation behavior for the user in the background"',
        words="L3 (background) `home` satisfied delivered; L5 (terminated) `home` unsatisfied and "
              "`office` satisfied delivered; L6 `desk` satisfied delivered (refinement minor 4); "
              "L7 fires the `desk` exit due 09:31:30, delivered.",
        records=[
            F("09:00:00", "street"),
            A("09:00:30", "background"),
            F("09:10:00", "home"),
            A("09:20:00", "terminated"),
            F("09:30:00", "office"),
            B("09:31:00", 4),
            F("09:40:00", "office"),
        ],
        expect=[
            E(3, "home", SAT, "09:10:00", "ok"),
            E(5, "home", UNS, "09:30:00", "ok"),
            E(5, "office", SAT, "09:30:00", "ok"),
            E(6, "desk", SAT, "09:31:00", "ok"),
            E(7, "desk", UNS, "09:31:30", "ok"),
        ],
    ),
    dict(
        name="02-when-in-use",
        args=ND,
        conditions=["home", "office", "park"],
        shows="When-in-use: delivered in the foreground, within the 5 s grace period and with the "
              "indicator; dropped in the background after the grace period and after the "
              "indicator ends (no grace after the indicator).",
        talk='000: "from then, until it enters the background, it\'s considered in use, and then '
             'actually for a few seconds more"; "your app will continue to be in use throughout '
             'its period in the background"',
        words="L4 `home` satisfied and L5 unsatisfied delivered (foreground). L6 background at "
              "09:02:00; L7 (09:02:03, grace) `home` satisfied delivered; L8 (09:02:30) `home` "
              "unsatisfied and L9 `office` satisfied dropped insufficientlyInUse. Foreground, then "
              "indicator: L12 `office` unsatisfied and L13 `park` satisfied delivered. L14 "
              "indicator to background; L15 two seconds later `park` unsatisfied dropped "
              "insufficientlyInUse.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"),
            ANS("09:00:12", "allowWhileUsing"),
            F("09:01:00", "home"),
            F("09:01:30", "street"),
            A("09:02:00", "background"),
            F("09:02:03", "home"),
            F("09:02:30", "street"),
            F("09:05:00", "office"),
            A("09:06:00", "foreground"),
            A("09:06:20", "indicator"),
            F("09:08:00", "street"),
            F("09:15:00", "park"),
            A("09:20:00", "background"),
            F("09:20:02", "street"),
        ],
        expect=[
            E(4, "home", SAT, "09:01:00", "ok"),
            E(5, "home", UNS, "09:01:30", "ok"),
            E(7, "home", SAT, "09:02:03", "ok"),
            E(8, "home", UNS, "09:02:30", "notInUse"),
            E(9, "office", SAT, "09:05:00", "notInUse"),
            E(12, "office", UNS, "09:08:00", "ok"),
            E(13, "park", SAT, "09:15:00", "ok"),
            E(15, "park", UNS, "09:20:02", "notInUse"),
        ],
    ),
    dict(
        name="03-provisional-allow-always",
        args=ND,
        conditions=["home", "office"],
        shows="Provisional always: delivered while in use; a background entry is held and the "
              "deferred always prompt opens; Allow Always delivers it with its original date and "
              "ends the provisional period.",
        talk='000: "Core Location holds onto it and waits for a good time to ask"; "If your app '
             'ends up with always authorization, then it will also receive the event that '
             'started this process"',
        words="L4/L5 `home` satisfied/unsatisfied delivered (in use). L7 (background) `office` "
              "satisfied held (provisionalAlways, insufficientlyInUse). L9 allowAlways: second "
              "line for it, delivered, date 09:20:00, cause 9. L11 (background) `office` "
              "unsatisfied delivered (always).",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "always"),
            ANS("09:00:15", "allowWhileUsing"),
            F("09:01:00", "home"),
            F("09:02:00", "street"),
            A("09:03:00", "background"),
            F("09:20:00", "office"),
            A("09:45:00", "foreground"),
            ANS("09:45:10", "allowAlways"),
            A("09:46:00", "background"),
            F("09:50:00", "street"),
        ],
        expect=[
            E(4, "home", SAT, "09:01:00", "ok"),
            E(5, "home", UNS, "09:02:00", "ok"),
            E(7, "office", SAT, "09:20:00", "held"),
            E(9, "office", SAT, "09:20:00", "ok"),
            E(11, "office", UNS, "09:50:00", "ok"),
        ],
    ),
    dict(
        name="04-provisional-keep-while-using",
        args=ND,
        conditions=["home", "office", "desk"],
        shows="Provisional always: Keep While Using drops the held event "
              "(alwaysAuthorizationDenied) and leaves permanent when-in-use.",
        talk='000: "If it ends up with when in use authorization, it will not."',
        words="L5 `office` satisfied held. L7 keepWhileUsing: second line dropped "
              "alwaysAuthorizationDenied, cause 7. L8 (foreground) `office` unsatisfied "
              "delivered; L9 `desk` satisfied delivered. L11 fires the `desk` exit due 09:27:30 "
              "(background since 09:27:10, grace over): dropped insufficientlyInUse; then "
              "`home` satisfied dropped insufficientlyInUse.",
        records=provisional_start(background="09:01:00") + [
            F("09:20:00", "office"),
            A("09:25:00", "foreground"),
            ANS("09:25:05", "keepWhileUsing"),
            F("09:26:00", "street"),
            B("09:27:00", 2),
            A("09:27:10", "background"),
            F("09:40:00", "home"),
        ],
        expect=[
            E(5, "office", SAT, "09:20:00", "held"),
            E(7, "office", SAT, "09:20:00", "alwaysDenied"),
            E(8, "office", UNS, "09:26:00", "ok"),
            E(9, "desk", SAT, "09:27:00", "ok"),
            E(11, "desk", UNS, "09:27:30", "notInUse"),
            E(11, "home", SAT, "09:40:00", "notInUse"),
        ],
    ),
    dict(
        name="05-provisional-displaced",
        args=ND,
        conditions=["home", "office"],
        shows="Provisional always with holding capacity 1: a second held event displaces the "
              "first; Allow Always delivers only the survivor.",
        talk='000: "those events will displace the ones that came earlier, and the earlier ones '
             'will be dropped"',
        words="L5 `office` satisfied held. L6 `office` unsatisfied held, then the satisfied one "
              "dropped displaced (cause 6). L8 allowAlways: `office` unsatisfied (09:25:00) "
              "delivered, cause 8. L10 (background) `home` satisfied delivered.",
        records=provisional_start() + [
            F("09:20:00", "office"),
            F("09:25:00", "street"),
            A("09:30:00", "foreground"),
            ANS("09:30:05", "allowAlways"),
            A("09:31:00", "background"),
            F("09:40:00", "home"),
        ],
        expect=[
            E(5, "office", SAT, "09:20:00", "held"),
            E(6, "office", UNS, "09:25:00", "held"),
            E(6, "office", SAT, "09:20:00", "displaced"),
            E(8, "office", UNS, "09:25:00", "ok"),
            E(10, "home", SAT, "09:40:00", "ok"),
        ],
    ),
    dict(
        name="06-provisional-expired",
        args=ND + ["--maximum-holding-age", "600"],
        conditions=["home", "office"],
        shows="Provisional always with a maximum holding age of 600 s: a held event expires when "
              "stream time passes strictly beyond date + 600 s; the deferred prompt stays open "
              "and Allow Always then delivers nothing old.",
        talk='000: "Core Location will drop the event part for anything that\'s become just too '
             'old"',
        words="L5 `office` satisfied held (09:20:00). L6 at exactly 09:30:00 does not expire it; "
              "L7 (09:30:01) does: dropped expired, cause 7. L9 allowAlways has nothing to "
              "deliver. L11 (background) `office` unsatisfied delivered (always).",
        records=provisional_start() + [
            F("09:20:00", "office"),
            F("09:30:00", "office"),
            F("09:30:01", "office"),
            A("09:35:00", "foreground"),
            ANS("09:35:05", "allowAlways"),
            A("09:36:00", "background"),
            F("09:50:00", "street"),
        ],
        expect=[
            E(5, "office", SAT, "09:20:00", "held"),
            E(7, "office", SAT, "09:20:00", "expired"),
            E(11, "office", UNS, "09:50:00", "ok"),
        ],
    ),
    dict(
        name="07-allow-once",
        args=ND,
        conditions=["home", "office"],
        shows="Allow Once: temporary when-in-use survives a brief dip into the background, lapses "
              "to notDetermined once the app stops being in use; the app must ask again.",
        talk='000: "a return to not determined state always happens as soon as your app is no '
             'longer in use"; "your app can and should request authorization again the next '
             'time it needs it"',
        words="L4 `home` satisfied delivered. L5/L6 background for 4 s and back: L7 `home` "
              "unsatisfied delivered. L8 background; L9 (3 s later, grace) `home` satisfied "
              "delivered. L10 (lapsed at 09:04:05) `home` unsatisfied dropped notDetermined "
              "(insufficientlyInUse). L12 in the foreground, still notDetermined: `office` "
              "satisfied dropped notDetermined. L13 request opens the first prompt: L14 `office` "
              "unsatisfied dropped notDetermined (authorizationRequestInProgress). L15 "
              "allowWhileUsing: L16 `home` satisfied delivered; L18 (background) `home` "
              "unsatisfied dropped insufficientlyInUse.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"),
            ANS("09:00:10", "allowOnce"),
            F("09:01:00", "home"),
            A("09:02:00", "background"),
            A("09:02:04", "foreground"),
            F("09:03:00", "street"),
            A("09:04:00", "background"),
            F("09:04:03", "home"),
            F("09:10:00", "street"),
            A("09:11:00", "foreground"),
            F("09:12:00", "office"),
            Q("09:12:30", "whenInUse"),
            F("09:13:00", "street"),
            ANS("09:13:10", "allowWhileUsing"),
            F("09:14:00", "home"),
            A("09:15:00", "background"),
            F("09:20:00", "street"),
        ],
        expect=[
            E(4, "home", SAT, "09:01:00", "ok"),
            E(7, "home", UNS, "09:03:00", "ok"),
            E(9, "home", SAT, "09:04:03", "ok"),
            E(10, "home", UNS, "09:10:00", "nd"),
            E(12, "office", SAT, "09:12:00", "nd"),
            E(14, "office", UNS, "09:13:00", "ndPrompt"),
            E(16, "home", SAT, "09:14:00", "ok"),
            E(18, "home", UNS, "09:20:00", "notInUse"),
        ],
    ),
    dict(
        name="08-reduced-accuracy",
        args=ND,
        conditions=["home", "office", "desk"],
        shows="Reduced accuracy (precise off on the first prompt): geographic and beacon events "
              "dropped accuracyLimited; a temporary full-accuracy grant lets them through until "
              "the app stops being in use; Settings precise on restores them.",
        talk='001: "Region entry and exit notifications will not be delivered for apps that are '
             'not authorized for full accuracy"; "This upgrade last as long as the user keeps '
             'using the app"',
        words="L4 `home` satisfied dropped accuracyLimited. L5/L6 temporaryFullAccuracy + "
              "allowOnce: L7 `home` unsatisfied and L8 `desk` satisfied delivered. L9 background; "
              "L10 (grace) `home` satisfied delivered. L11: the `desk` exit due 09:04:30 (grant "
              "ended at 09:04:25) and `home` unsatisfied, both dropped accuracyLimited. L13 "
              "(foreground, no grant) `home` satisfied dropped accuracyLimited. L14/L15 a second "
              "request answered deny: L16 dropped accuracyLimited. L17 Settings precise on: L18 "
              "`home` satisfied delivered.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"),
            ANS("09:00:10", "allowWhileUsing", precise=False),
            F("09:01:00", "home"),
            Q("09:02:00", "temporaryFullAccuracy", purpose="Navigate"),
            ANS("09:02:10", "allowOnce"),
            F("09:03:00", "street"),
            B("09:04:00", 9),
            A("09:04:20", "background"),
            F("09:04:23", "home"),
            F("09:10:00", "street"),
            A("09:11:00", "foreground"),
            F("09:12:00", "home"),
            Q("09:12:30", "temporaryFullAccuracy", purpose="Navigate"),
            ANS("09:12:40", "deny"),
            F("09:13:00", "street"),
            S("09:14:00", precise=True),
            F("09:15:00", "home"),
        ],
        expect=[
            E(4, "home", SAT, "09:01:00", "accuracy"),
            E(7, "home", UNS, "09:03:00", "ok"),
            E(8, "desk", SAT, "09:04:00", "ok"),
            E(10, "home", SAT, "09:04:23", "ok"),
            E(11, "desk", UNS, "09:04:30", "accuracy"),
            E(11, "home", UNS, "09:10:00", "accuracy"),
            E(13, "home", SAT, "09:12:00", "accuracy"),
            E(16, "home", UNS, "09:13:00", "accuracy"),
            E(18, "home", SAT, "09:15:00", "ok"),
        ],
    ),
    dict(
        name="09-location-services-off",
        args=[],
        conditions=["home", "office", "desk"],
        shows="Location services switched off system-wide: every event dropped with "
              "authorizationDenied and authorizationDeniedGlobally, even under always; on again, "
              "delivered.",
        talk='004: "authorizationDeniedGlobally, which will be true if location services are '
             'disabled system-wide ... so .authorizationDenied will be true as well"',
        words="L1 `home` satisfied delivered. L2 services off: L3 `home` unsatisfied and L4 "
              "`desk` satisfied dropped (both diagnostics); L5 fires the `desk` exit due 09:07:30, "
              "dropped the same way, then turns services on; L6 `office` satisfied delivered.",
        records=[
            F("09:00:00", "home"),
            S("09:05:00", locationServices=False),
            F("09:06:00", "street"),
            B("09:07:00", 1),
            S("09:08:00", locationServices=True),
            F("09:09:00", "office"),
        ],
        expect=[
            E(1, "home", SAT, "09:00:00", "ok"),
            E(3, "home", UNS, "09:06:00", "servicesOff"),
            E(4, "desk", SAT, "09:07:00", "servicesOff"),
            E(5, "desk", UNS, "09:07:30", "servicesOff"),
            E(6, "office", SAT, "09:09:00", "ok"),
        ],
    ),
    dict(
        name="10-always-request-once",
        args=ND,
        conditions=["home", "office"],
        shows="The provisional period is entered once: after Keep While Using, a second request "
              "for always does nothing and background events are dropped, not held.",
        talk='000: "And third, you can only start this process once."',
        words="L5 `office` satisfied held; L7 keepWhileUsing drops it (alwaysAuthorizationDenied, "
              "cause 7). L8 request always in the foreground: nothing. L10 `office` unsatisfied "
              "and L11 `home` satisfied (background) dropped insufficientlyInUse.",
        records=provisional_start(background="09:01:00") + [
            F("09:10:00", "office"),
            A("09:15:00", "foreground"),
            ANS("09:15:05", "keepWhileUsing"),
            Q("09:16:00", "always"),
            A("09:16:30", "background"),
            F("09:30:00", "street"),
            F("09:40:00", "home"),
        ],
        expect=[
            E(5, "office", SAT, "09:10:00", "held"),
            E(7, "office", SAT, "09:10:00", "alwaysDenied"),
            E(10, "office", UNS, "09:30:00", "notInUse"),
            E(11, "home", SAT, "09:40:00", "notInUse"),
        ],
    ),
    dict(
        name="11-deny",
        args=ND,
        conditions=["home", "office"],
        shows="While the first prompt is open: notDetermined with authorizationRequestInProgress. "
              "Don't Allow: denied, and further requests do nothing; Settings can still grant "
              "when-in-use.",
        talk='000: "If the user selects don\'t allow, then your app will not have access to their '
             'location, and it will not be able to prompt again."',
        words="L3 `home` satisfied dropped notDetermined (authorizationRequestInProgress). L4 "
              "deny. L5 `home` unsatisfied and L8 `office` satisfied dropped authorizationDenied "
              "(L6/L7 requests do nothing). L9 Settings whenInUse: L10 (foreground) `office` "
              "unsatisfied delivered.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"),
            F("09:00:30", "home"),
            ANS("09:00:40", "deny"),
            F("09:01:00", "street"),
            Q("09:01:30", "whenInUse"),
            Q("09:02:00", "always"),
            F("09:03:00", "office"),
            S("09:10:00", status="whenInUse"),
            F("09:11:00", "street"),
        ],
        expect=[
            E(3, "home", SAT, "09:00:30", "ndPrompt"),
            E(5, "home", UNS, "09:01:00", "denied"),
            E(8, "office", SAT, "09:03:00", "denied"),
            E(10, "office", UNS, "09:11:00", "ok"),
        ],
    ),
    dict(
        name="12-settings-never-or-always-while-held",
        args=ND,
        conditions=["home", "office"],
        shows="Settings during provisional always, two devices: `never` drops the held event "
              "(authorizationDenied) and denies; `always` delivers it as Allow Always would.",
        talk='001: "A user can respond to a location prompt or go to Settings and set one of '
             'these options"; 000: "Either way, the provisional authorization period ends."',
        words="L9 ana, L10 ben: `office` satisfied held. L11 ana Settings never: ana's held event "
              "dropped authorizationDenied (cause 11). L12 ben Settings always: ben's delivered "
              "(cause 12). L13 ana `office` unsatisfied dropped authorizationDenied; L14 ben's "
              "delivered.",
        records=[
            A("09:00:00", "foreground"), A("09:00:00", "foreground", "ben"),
            Q("09:00:05", "always"), Q("09:00:05", "always", "ben"),
            ANS("09:00:10", "allowWhileUsing"), ANS("09:00:10", "allowWhileUsing", "ben"),
            A("09:00:30", "background"), A("09:00:30", "background", "ben"),
            F("09:10:00", "office"), F("09:11:00", "office", "ben"),
            S("09:20:00", status="never"), S("09:20:00", "ben", status="always"),
            F("09:30:00", "street"), F("09:30:00", "street", "ben"),
        ],
        expect=[
            E(9, "office", SAT, "09:10:00", "held"),
            E(10, "office", SAT, "09:11:00", "held", "ben"),
            E(11, "office", SAT, "09:10:00", "deniedFinal"),
            E(12, "office", SAT, "09:11:00", "ok", "ben"),
            E(13, "office", UNS, "09:30:00", "denied"),
            E(14, "office", UNS, "09:30:00", "ok", "ben"),
        ],
    ),
    dict(
        name="13-settings-when-in-use-or-ask-while-held",
        args=ND,
        conditions=["home", "office"],
        shows="Settings during provisional always, two devices: `whenInUse` and `askNextTime` "
              "both drop the held event (alwaysAuthorizationDenied) and close the deferred "
              "prompt; after askNextTime the app is notDetermined and may prompt again, but "
              "only for when-in-use.",
        talk='000: "from which a transition back to when in use authorization is also '
             'possible"; 001: "Users can do all sorts of things with authorization now."',
        words="L9 ana, L10 ben: `office` satisfied held. L11 ana whenInUse, L12 ben askNextTime: "
              "both held events dropped alwaysAuthorizationDenied. L13 ana (background) `office` "
              "unsatisfied dropped insufficientlyInUse; L14 ben's dropped notDetermined "
              "(insufficientlyInUse). ben: L16 request always does nothing, L17 request whenInUse "
              "opens the first prompt, L18 `home` satisfied dropped notDetermined "
              "(authorizationRequestInProgress), L19 allowWhileUsing, L20 `home` unsatisfied "
              "delivered.",
        records=[
            A("09:00:00", "foreground"), A("09:00:00", "foreground", "ben"),
            Q("09:00:05", "always"), Q("09:00:05", "always", "ben"),
            ANS("09:00:10", "allowWhileUsing"), ANS("09:00:10", "allowWhileUsing", "ben"),
            A("09:00:30", "background"), A("09:00:30", "background", "ben"),
            F("09:10:00", "office"), F("09:11:00", "office", "ben"),
            S("09:20:00", status="whenInUse"), S("09:20:00", "ben", status="askNextTime"),
            F("09:30:00", "street"), F("09:30:00", "street", "ben"),
            A("09:40:00", "foreground", "ben"),
            Q("09:40:05", "always", "ben"),
            Q("09:40:10", "whenInUse", "ben"),
            F("09:41:00", "home", "ben"),
            ANS("09:41:10", "allowWhileUsing", "ben"),
            F("09:42:00", "street", "ben"),
        ],
        expect=[
            E(9, "office", SAT, "09:10:00", "held"),
            E(10, "office", SAT, "09:11:00", "held", "ben"),
            E(11, "office", SAT, "09:10:00", "alwaysDenied"),
            E(12, "office", SAT, "09:11:00", "alwaysDenied", "ben"),
            E(13, "office", UNS, "09:30:00", "notInUse"),
            E(14, "office", UNS, "09:30:00", "nd", "ben"),
            E(18, "home", SAT, "09:41:00", "ndPrompt", "ben"),
            E(20, "home", UNS, "09:42:00", "ok", "ben"),
        ],
    ),
    dict(
        name="14-request-not-in-foreground",
        args=ND,
        conditions=["home", "office"],
        shows="Requests made in the background, in the grace period or with the indicator raise "
              "no prompt; only a foreground request does.",
        talk='000: "like the grace period in the background usage indicator period ... your app '
             'is not considered in use enough to request an authorization prompt"',
        words="L1 request (background): nothing, so L2 `home` satisfied dropped notDetermined "
              "(insufficientlyInUse). L5 request in the grace period: nothing; L6 `home` "
              "unsatisfied dropped notDetermined (insufficientlyInUse). L9 request with the "
              "indicator: nothing; L10 dropped the same way. L12 foreground request opens the "
              "prompt: L13 dropped notDetermined (authorizationRequestInProgress). L14 "
              "allowWhileUsing: L15 `home` satisfied delivered.",
        records=[
            Q("09:00:00", "whenInUse"),
            F("09:00:30", "home"),
            A("09:01:00", "foreground"),
            A("09:01:30", "background"),
            Q("09:01:32", "whenInUse"),
            F("09:01:34", "street"),
            A("09:02:00", "foreground"),
            A("09:02:10", "indicator"),
            Q("09:02:20", "whenInUse"),
            F("09:02:30", "home"),
            A("09:03:00", "foreground"),
            Q("09:03:05", "whenInUse"),
            F("09:03:10", "street"),
            ANS("09:03:20", "allowWhileUsing"),
            F("09:04:00", "home"),
        ],
        expect=[
            E(2, "home", SAT, "09:00:30", "nd"),
            E(6, "home", UNS, "09:01:34", "nd"),
            E(10, "home", SAT, "09:02:30", "nd"),
            E(13, "home", UNS, "09:03:10", "ndPrompt"),
            E(15, "home", SAT, "09:04:00", "ok"),
        ],
    ),
    dict(
        name="15-beacon-exit-grace",
        args=ND,
        conditions=["home", "desk"],
        shows="When-in-use and beacon exits: the exit's date is its due instant, and the verdict "
              "is taken there: due 3 s into the grace period, delivered; due exactly at its end "
              "(background + 5 s), delivered; due after it, dropped; due while the indicator "
              "shows, delivered.",
        talk='000: "this is the grace period that\'s intended to cover your app for race cases '
             'when the event that you need location for happens right before the user leaves '
             'your app"',
        words="L4 `desk` satisfied delivered; L5 background 09:01:27; L6 fires the exit due "
              "09:01:30: delivered. L7 satisfied delivered; L8 background 09:06:25; L9 fires the "
              "exit due 09:06:30 (= 09:06:25 + 5 s): delivered. L10 satisfied delivered; L11 "
              "background 09:11:18; L12 fires the exit due 09:11:30: dropped insufficientlyInUse, "
              "then `home` satisfied dropped insufficientlyInUse. L14 satisfied delivered; L15 "
              "indicator; L16 fires the exit due 09:16:40: delivered, then `home` unsatisfied "
              "delivered.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:02", "whenInUse"),
            ANS("09:00:04", "allowWhileUsing"),
            B("09:01:00", 10),
            A("09:01:27", "background"),
            A("09:05:00", "foreground"),
            B("09:06:00", 10),
            A("09:06:25", "background"),
            A("09:10:00", "foreground"),
            B("09:11:00", 11),
            A("09:11:18", "background"),
            F("09:15:00", "home"),
            A("09:16:00", "foreground"),
            B("09:16:10", 12),
            A("09:16:20", "indicator"),
            F("09:25:00", "street"),
        ],
        expect=[
            E(4, "desk", SAT, "09:01:00", "ok"),
            E(6, "desk", UNS, "09:01:30", "ok"),
            E(7, "desk", SAT, "09:06:00", "ok"),
            E(9, "desk", UNS, "09:06:30", "ok"),
            E(10, "desk", SAT, "09:11:00", "ok"),
            E(12, "desk", UNS, "09:11:30", "notInUse"),
            E(12, "home", SAT, "09:15:00", "notInUse"),
            E(14, "desk", SAT, "09:16:10", "ok"),
            E(16, "desk", UNS, "09:16:40", "ok"),
            E(16, "home", UNS, "09:25:00", "ok"),
        ],
    ),
    dict(
        name="16-immediate-always-prompt",
        args=ND,
        conditions=["home", "office"],
        shows="iOS 13.4: from a permanent when-in-use, a request for always raises the always "
              "prompt at once (no provisional period, nothing held). ana answers Allow Always, "
              "ben Keep While Using; ben's later request for always does nothing.",
        talk='001: "An app which has previously asked only for whenInUse authorization and got it '
             'may now request always authorization and have the user immediately be prompted"',
        words="L9 ana, L10 ben (background): `office` satisfied dropped insufficientlyInUse. "
              "L15 ana allowAlways, L16 ben keepWhileUsing. L19 ana (background) `office` "
              "unsatisfied delivered; L20 ben's dropped insufficientlyInUse. L22 ben request "
              "always: nothing; L24 ben `home` satisfied dropped insufficientlyInUse.",
        records=[
            A("09:00:00", "foreground"), A("09:00:00", "foreground", "ben"),
            Q("09:00:05", "whenInUse"), Q("09:00:05", "whenInUse", "ben"),
            ANS("09:00:10", "allowWhileUsing"), ANS("09:00:10", "allowWhileUsing", "ben"),
            A("09:00:30", "background"), A("09:00:30", "background", "ben"),
            F("09:10:00", "office"), F("09:10:00", "office", "ben"),
            A("09:20:00", "foreground"), A("09:20:00", "foreground", "ben"),
            Q("09:20:05", "always"), Q("09:20:05", "always", "ben"),
            ANS("09:20:10", "allowAlways"), ANS("09:20:10", "keepWhileUsing", "ben"),
            A("09:21:00", "background"), A("09:21:00", "background", "ben"),
            F("09:30:00", "street"), F("09:30:00", "street", "ben"),
            A("09:31:00", "foreground", "ben"),
            Q("09:31:05", "always", "ben"),
            A("09:31:10", "background", "ben"),
            F("09:40:00", "home", "ben"),
        ],
        expect=[
            E(9, "office", SAT, "09:10:00", "notInUse"),
            E(10, "office", SAT, "09:10:00", "notInUse", "ben"),
            E(19, "office", UNS, "09:30:00", "ok"),
            E(20, "office", UNS, "09:30:00", "notInUse", "ben"),
            E(24, "home", SAT, "09:40:00", "notInUse", "ben"),
        ],
    ),
    dict(
        name="17-holding-capacity-2",
        args=ND + ["--holding-capacity", "2"],
        conditions=["home", "office", "desk"],
        shows="Provisional always with holding capacity 2: a beacon exit fired before a fix is "
              "held first (its date is the due instant) and displaces the oldest; the fix's own "
              "event displaces the next; Allow Always delivers the two survivors oldest first.",
        talk='000: "if more events are generated ... then those events will displace the ones '
             'that came earlier"',
        words="L5 `office` satisfied held; L6 `desk` satisfied held. L7: first the `desk` exit "
              "due 09:12:30 held and `office` satisfied displaced; then `office` unsatisfied held "
              "and `desk` satisfied displaced (all cause 7). L9 allowAlways: `desk` unsatisfied "
              "(09:12:30) then `office` unsatisfied (09:20:00) delivered, cause 9.",
        records=provisional_start() + [
            F("09:10:00", "office"),
            B("09:12:00", 3),
            F("09:20:00", "street"),
            A("09:30:00", "foreground"),
            ANS("09:30:10", "allowAlways"),
        ],
        expect=[
            E(5, "office", SAT, "09:10:00", "held"),
            E(6, "desk", SAT, "09:12:00", "held"),
            E(7, "desk", UNS, "09:12:30", "held"),
            E(7, "office", SAT, "09:10:00", "displaced"),
            E(7, "office", UNS, "09:20:00", "held"),
            E(7, "desk", SAT, "09:12:00", "displaced"),
            E(9, "desk", UNS, "09:12:30", "ok"),
            E(9, "office", UNS, "09:20:00", "ok"),
        ],
    ),
    dict(
        name="18-expiry-before-exit",
        args=ND + ["--maximum-holding-age", "600"],
        conditions=["home", "desk"],
        shows="An expiry and a beacon exit at the same instant: the expiry goes first, so the "
              "exit's held event displaces nothing (capacity 1).",
        talk='000: "Core Location will drop the event part for anything that\'s become just too '
             'old"',
        words="L5 `home` satisfied held (expires at 09:20:00). L7 (foreground) `desk` satisfied "
              "delivered, exit due 09:20:00. L9: `home` dropped expired, then the `desk` exit "
              "held (both cause 9). L11 allowAlways: `desk` unsatisfied (09:20:00) delivered.",
        records=provisional_start() + [
            F("09:10:00", "home"),
            A("09:19:00", "foreground"),
            B("09:19:30", 5),
            A("09:19:40", "background"),
            F("09:25:00", "home"),
            A("09:26:00", "foreground"),
            ANS("09:26:10", "allowAlways"),
        ],
        expect=[
            E(5, "home", SAT, "09:10:00", "held"),
            E(7, "desk", SAT, "09:19:30", "ok"),
            E(9, "home", SAT, "09:10:00", "expired"),
            E(9, "desk", UNS, "09:20:00", "held"),
            E(11, "desk", UNS, "09:20:00", "ok"),
        ],
    ),
    dict(
        name="19-allow-once-for-always",
        args=ND,
        conditions=["home", "office"],
        shows="Allow Once answering a request for always: temporary when-in-use, no provisional "
              "period (background events are dropped, not held); the request for always has had "
              "its effect, so only a request for when-in-use prompts again.",
        talk='000: "with the allow once, the user grants a temporary when in use authorization"; '
             'SPEC: "Allow Once ... does not enter provisional always"',
        words="L4 `home` satisfied delivered. L6 (lapsed at 09:02:05) `home` unsatisfied dropped "
              "notDetermined (insufficientlyInUse). L8 request always: nothing, so L9 dropped "
              "notDetermined (insufficientlyInUse). L10 request whenInUse opens the prompt, L11 "
              "allowWhileUsing (permanent when-in-use): L12 `home` unsatisfied delivered, L14 "
              "(background) `office` satisfied dropped insufficientlyInUse.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "always"),
            ANS("09:00:10", "allowOnce"),
            F("09:01:00", "home"),
            A("09:02:00", "background"),
            F("09:05:00", "street"),
            A("09:06:00", "foreground"),
            Q("09:06:10", "always"),
            F("09:06:20", "home"),
            Q("09:06:30", "whenInUse"),
            ANS("09:06:40", "allowWhileUsing"),
            F("09:07:00", "street"),
            A("09:08:00", "background"),
            F("09:20:00", "office"),
        ],
        expect=[
            E(4, "home", SAT, "09:01:00", "ok"),
            E(6, "home", UNS, "09:05:00", "nd"),
            E(9, "home", SAT, "09:06:20", "nd"),
            E(12, "home", UNS, "09:07:00", "ok"),
            E(14, "office", SAT, "09:20:00", "notInUse"),
        ],
    ),
    dict(
        name="20-holding-capacity-0",
        args=ND + ["--holding-capacity", "0"],
        conditions=["home", "office"],
        shows="Holding capacity 0: a held event is displaced at once, but the deferred always "
              "prompt still opens, so Allow Always is a valid answer (and delivers nothing).",
        talk='000: "instead, Core Location holds onto it and waits for a good time to ask the '
             'user"',
        words="L5 `office` satisfied held, then at once dropped displaced (cause 5). L7 "
              "allowAlways. L9 (background) `office` unsatisfied delivered.",
        records=provisional_start() + [
            F("09:10:00", "office"),
            A("09:15:00", "foreground"),
            ANS("09:15:10", "allowAlways"),
            A("09:16:00", "background"),
            F("09:20:00", "street"),
        ],
        expect=[
            E(5, "office", SAT, "09:10:00", "held"),
            E(5, "office", SAT, "09:10:00", "displaced"),
            E(9, "office", UNS, "09:20:00", "ok"),
        ],
    ),
    dict(
        name="21-restricted",
        args=["--initial-authorization", "restricted"],
        conditions=["home", "office"],
        shows="Restricted from the start: requests do nothing, events dropped "
              "authorizationRestricted; location services off takes precedence.",
        talk="not in the talks: SPEC §3 verdict rule 1 (`restricted` → dropped, "
             "authorizationRestricted; the names are *our rule*)",
        words="L3 `home` satisfied dropped authorizationRestricted. L5 `home` unsatisfied dropped "
              "authorizationDenied (authorizationDenied, authorizationDeniedGlobally). L7 "
              "`office` satisfied dropped authorizationRestricted.",
        records=[
            A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"),
            F("09:01:00", "home"),
            S("09:02:00", locationServices=False),
            F("09:03:00", "street"),
            S("09:04:00", locationServices=True),
            F("09:05:00", "office"),
        ],
        expect=[
            E(3, "home", SAT, "09:01:00", "restricted"),
            E(5, "home", UNS, "09:03:00", "servicesOff"),
            E(7, "office", SAT, "09:05:00", "restricted"),
        ],
    ),
]

# ------------------------------------------------------------------ checks and writing


def ambiguity_ok(d, m):
    need = 0.02 * abs(d) + 1.0
    return abs(d + m) >= need and abs(d - m) >= need


def check_spots(conditions, records, name):
    geo = [c for c in conditions if c.kind != "beacon"]
    for record in records:
        if record["type"] != "fix":
            continue
        lon, lat = SPOTS[record["spot"]]
        for c in geo:
            d = c.signed_distance_m(lon, lat)
            m = float(record["accuracy"])
            if not ambiguity_ok(d, m):
                raise SystemExit("%s: ambiguous fix at %s for %s (d=%.2f, m=%.2f)"
                                 % (name, record["spot"], c.identifier, d, m))
            if (d < 0) != (record["spot"] == c.identifier):
                raise SystemExit("%s: spot %s is on the wrong side of %s (d=%.2f)"
                                 % (name, record["spot"], c.identifier, d))


def conditions_text(identifiers):
    document = {"type": "FeatureCollection", "features": [feature(i) for i in identifiers]}
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s+(-?[\d.]+),\s+(-?[\d.]+)\s+\]", r"[\1, \2]", text) + "\n"


def run_oracle(folder, args):
    command = [sys.executable, os.path.join(HERE, "reference_monitor.py"),
               "--conditions", os.path.join(folder, "conditions.geojson"),
               "--observations", os.path.join(folder, "observations.jsonl")] + args
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        raise SystemExit("%s: oracle failed: %s" % (folder, result.stderr.decode("utf-8")))
    return result.stdout


def compare(name, output, expect):
    lines = output.decode("utf-8").splitlines()
    got = []
    for text in lines:
        event = json.loads(text)
        got.append({k: event[k] for k in ("cause", "device", "identifier", "state", "date",
                                          "delivery", "reason", "diagnostics")})
    if got != expect:
        print("%s: oracle output differs from the expectation" % name, file=sys.stderr)
        for i in range(max(len(got), len(expect))):
            g = got[i] if i < len(got) else None
            e = expect[i] if i < len(expect) else None
            mark = "  " if g == e else "!!"
            print("%s got      %s\n%s expected %s" % (mark, g, mark, e), file=sys.stderr)
        raise SystemExit(1)
    return len(lines)


README_HEAD = """# Fixture set `scenarios`: authorization and delivery (SPEC §3)

Small hand-designed scenarios for the authorization model: each folder `NN-short-name/` holds
`conditions.geojson`, `observations.jsonl` and `expected-events.jsonl` (the output of the Python
oracle `scripts/reference_monitor.py`), and, when the scenario needs flags beyond
`--conditions`/`--observations`, `args.txt`: one line of whitespace-separated flags that both the
oracle and the Swift tool take. Everything here is generated by `scripts/make_scenarios.py`,
which also checks every oracle line against an expectation written by hand in that script.

Common ground:
- Lyon, 2026-03-02, times in UTC. Conditions, all `assuming: "unsatisfied"` (so only entries and
  exits produce events, never a first-fix `unsatisfied`): `home` circle r=80 m, `office` circle
  r=150 m, `park` square polygon (~124 × 111 m), `desk` beacon (UUID `5A4BCFCE-…`, major 1, any
  minor). Each scenario uses 2–3 of them, in that order (the order of events of one record).
- Fixes are at four spots, accuracy 10 m: `home` (40 m inside), `office` (90 m inside), `park`
  (~55 m inside), `street` (~290 m or more outside everything). Every fix is at least
  2 % of |d| + 1 m away from ±accuracy for every condition.
- Device `ana` (and `ben` in 12, 13 and 16). `L` numbers are observation lines, which are the
  `cause` of the events. "Held" lines are `held`, reason `provisionalAlways`, diagnostics
  `["insufficientlyInUse"]`; the second (final) line of a held event repeats its date, has
  the cause of the record that resolved it, and diagnostics `[]` when delivered; when dropped, the
  diagnostic of its reason (`alwaysAuthorizationDenied`, `authorizationDenied`), or
  `insufficientlyInUse` for one displaced or expired while it waited.
- Beacon exits are due 30 s after the last matching sighting, are dated at that instant, get
  their verdict at that instant, and are written when the device's next record arrives.
- `--initial-authorization notDetermined` (in `args.txt`) unless the scenario starts from
  `always` (no `args.txt`: default, the app in the foreground) or says otherwise.

Regenerate (from the repository root; needs `pip install shapely`):

```sh
python3 scripts/make_scenarios.py
```

which is the same as running, for each folder `S`:

```sh
python3 scripts/reference_monitor.py --conditions S/conditions.geojson --observations S/observations.jsonl $(cat S/args.txt 2>/dev/null) > S/expected-events.jsonl
```

| # | Scenario (`args.txt`) | What it shows | Talk passage | Expected lines |
|---|---|---|---|---|
"""


def cell(text):
    return text.replace("|", "\\|")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "scenarios"))
    options = parser.parse_args()
    out = os.path.normpath(options.out)
    os.makedirs(out, exist_ok=True)
    names = [s["name"] for s in SCENARIOS]
    assert len(set(names)) == len(names)
    rows = []
    for number, scenario in enumerate(SCENARIOS, start=1):
        name = scenario["name"]
        assert name.startswith("%02d-" % number), name
        folder = os.path.join(out, name)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        with open(os.path.join(folder, "conditions.geojson"), "w", encoding="utf-8",
                  newline="\n") as f:
            f.write(conditions_text(scenario["conditions"]))
        records = scenario["records"]
        assert 5 <= len(records) <= 40, name
        with open(os.path.join(folder, "observations.jsonl"), "w", encoding="utf-8",
                  newline="\n") as f:
            for record in records:
                f.write(record_line(record) + "\n")
        args = scenario["args"]
        if args:
            with open(os.path.join(folder, "args.txt"), "w", encoding="utf-8", newline="\n") as f:
                f.write(" ".join(args) + "\n")
        conditions = rm.load_conditions(os.path.join(folder, "conditions.geojson"))
        check_spots(conditions, records, name)
        first = run_oracle(folder, args)
        second = run_oracle(folder, args)
        if first != second:
            raise SystemExit("%s: two oracle runs differ" % name)
        count = compare(name, first, scenario["expect"])
        with open(os.path.join(folder, "expected-events.jsonl"), "wb") as f:
            f.write(first)
        shown_args = "`%s`" % " ".join(args) if args else "—"
        rows.append("| %d | `%s` (%s) | %s | %s | %d lines from %d records. %s |"
                    % (number, name, shown_args, cell(scenario["shows"]), cell(scenario["talk"]),
                       count, len(records), cell(scenario["words"])))
        print("%s: %d records, %d expected lines" % (name, len(records), count), file=sys.stderr)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(README_HEAD + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
