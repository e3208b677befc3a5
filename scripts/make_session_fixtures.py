#!/usr/bin/env python3
"""Generate Fixtures/sessions: the 2024 service sessions (`--profile ios18`, SPEC sections 3 and
5.5) and the `appConfig` record.

The rules are docs/authorization.md's ("Service sessions") and docs/sessions.md's. Each scenario
is a folder NN-short-name/ with conditions.geojson, observations.jsonl (JSON Lines, no blank
line), args.txt (the evaluate flags on one line) and expected-events.jsonl: the output of
scripts/reference_monitor.py, whose session rules live in scripts/reference_sessions.py. When the
input makes requests, expected-summary.txt holds the summary's line `requests: P prompted,
I insufficientlyInUse, N noEffect` (docs/outputs.md, without the `perimeter: ` prefix). A
scenario whose input holds a bad record has expected-error.txt instead: one line
`observations.jsonl:LINE: field "NAME"`, which the tool's error message contains (it stops there,
exit 1); expected-events.jsonl then holds the events written before it.
Fixtures/sessions/README.md is written from the same data.

Deterministic (no randomness, no clock). Before anything is accepted:
- every valid fix is unambiguous for every geographic condition (make_scenarios' check);
- the oracle's output matches, line by line, the expectation written by hand below (cause,
  device, identifier, state, date, delivery, reason, refinement, diagnostics), and so do its
  request counts and, for a bad record, its line and field;
- invariants: `serviceSessionRequired` only under ios18; no line dated after its cause's time;
  a stopped run's lines are a prefix of the run over the records before the bad one;
- the same records written as CSV (fullAccuracyPurposes one cell of keys separated by spaces)
  give the same lines, each cause one higher (the header is line 1), and the same counts;
- a few refusals without a fixture: options (--relaunch-window outside ios18, --loitering-delay
  under ios18), session records the model refuses (end naming nothing, a repeated start, any
  session record while the app is terminated), appConfig without a field or with a bad value;
- a second oracle run gives byte-identical output.

Usage: python3 scripts/make_session_fixtures.py [--out Fixtures/sessions]
(needs shapely 2, like the oracle).
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_monitor as rm  # noqa: E402
import make_scenarios as ms  # noqa: E402  (Lyon's home/office/park/desk, record helpers)

T, A, Q, ANS, F, B = ms.T, ms.A, ms.Q, ms.ANS, ms.F, ms.B
UUID = ms.DESK_UUID
SAT, UNS, UNM = "satisfied", "unsatisfied", "unmonitored"
IOS18 = ["--profile", "ios18"]
ND = ["--initial-authorization", "notDetermined"]

VERDICTS = dict(ms.VERDICTS)
VERDICTS["session"] = ("dropped", "serviceSessionRequired", ["serviceSessionRequired"])


def SS(t, action, sid, goal=None, dev="ana", purpose=None):
    """A session record."""
    record = {"type": "session", "device": dev, "t": T(t), "action": action, "id": sid}
    if goal is not None:
        record["goal"] = goal
    if purpose is not None:
        record["fullAccuracyPurpose"] = purpose
    return record


def CFG(t, dev="ana", **fields):
    """An appConfig record (fields in the order given)."""
    record = {"type": "appConfig", "device": dev, "t": T(t)}
    record.update(fields)
    return record


def E(cause, identifier, state, hms, verdict, dev="ana", own=None, ref=None):
    """One expected line (verdict: a VERDICTS key; own: an unmonitored line's own diagnostic;
    ref: the minor of desk's satisfied event)."""
    delivery, reason, diagnostics = VERDICTS[verdict]
    refinement = None if ref is None else {"uuid": UUID, "major": 1, "minor": ref}
    return {"cause": cause, "device": dev, "identifier": identifier, "state": state,
            "date": T(hms), "delivery": delivery, "reason": reason, "refinement": refinement,
            "diagnostics": diagnostics + ([own] if own else [])}


# ------------------------------------------------------------------ the scenarios

BEN_RELAUNCH = [  # 04's ben; 05 runs it with --relaunch-window 15
    SS("09:00:00", "start", "trip", "always", "ben"), A("09:00:10", "background", "ben"),
    F("09:01:00", "home", "ben"), A("09:02:00", "terminated", "ben"), B("09:03:45", 3, "ben"),
    A("09:04:00", "background", "ben"), F("09:04:10", "street", "ben"),
    F("09:04:11", "home", "ben"), SS("09:04:12", "start", "trip", "always", "ben"),
    F("09:05:00", "street", "ben"),
]

SCENARIOS = [
    dict(
        name="01-explicit-always-session",
        args=IOS18,
        conditions=["home"],
        shows="An explicit session with goal always, implicit sessions switched off by appConfig: "
              "started in the foreground it counts, and events out of use are delivered under "
              "always; one started in the background while a counting one is held counts too "
              "(it outlives the first); with none held, dropped serviceSessionRequired; one started "
              "in the background alone never counts, not even after the app has been in the "
              "foreground; ended and started again in the foreground, it counts. ben starts his "
              "in the grace period: in use, but not in the foreground, so it does not count.",
        rule="authorization.md, Service sessions: counts (foreground, or another counting "
             "session held); verdict rule 8; starting and the foreground ask (always from "
             "always: noEffect; in the background: insufficientlyInUse); sessions.md, appConfig "
             "explicitSessionsRequired",
        words="L4 home satisfied delivered (trip, started in the foreground at L2). L5 bg started "
              "in the background while trip is held: counts; L7 unsatisfied delivered though trip "
              "ended (L6). L9 satisfied dropped serviceSessionRequired (none held). L10 late "
              "started in the background: L11 dropped serviceSessionRequired; L13 delivered (in "
              "use); L15 dropped serviceSessionRequired (late still does not count). L18 late "
              "again, in the foreground: L20 delivered. ben: L23 trip started 3 s after leaving "
              "the foreground (in use, but not in the foreground): L24 dropped "
              "serviceSessionRequired.",
        records=[
            CFG("09:00:00", explicitSessionsRequired=True),
            SS("09:00:05", "start", "trip", "always"), A("09:00:10", "background"),
            F("09:01:00", "home"), SS("09:02:00", "start", "bg", "always"),
            SS("09:02:10", "end", "trip"), F("09:03:00", "street"), SS("09:04:00", "end", "bg"),
            F("09:05:00", "home"), SS("09:06:00", "start", "late", "always"),
            F("09:07:00", "street"), A("09:08:00", "foreground"), F("09:08:30", "home"),
            A("09:09:00", "background"), F("09:10:00", "street"), SS("09:11:00", "end", "late"),
            A("09:11:30", "foreground"), SS("09:11:40", "start", "late", "always"),
            A("09:12:00", "background"), F("09:13:00", "home"),
            CFG("09:00:00", "ben", explicitSessionsRequired=True),
            A("09:00:00", "background", "ben"), SS("09:00:03", "start", "trip", "always", "ben"),
            F("09:01:00", "home", "ben"),
        ],
        requests=(0, 3, 3),
        expect=[
            E(4, "home", SAT, "09:01:00", "ok"),
            E(7, "home", UNS, "09:03:00", "ok"),
            E(9, "home", SAT, "09:05:00", "session"),
            E(11, "home", UNS, "09:07:00", "session"),
            E(13, "home", SAT, "09:08:30", "ok"),
            E(15, "home", UNS, "09:10:00", "session"),
            E(20, "home", SAT, "09:13:00", "ok"),
            E(24, "home", SAT, "09:01:00", "session", "ben"),
        ],
    ),
    dict(
        name="02-implicit-session-prompt",
        args=IOS18 + ND,
        conditions=["home"],
        shows="A fresh install that only iterates its monitor: ana coming to the foreground asks "
              "for when-in-use by itself (no request record) and the first prompt opens; the "
              "event before the answer is dropped notDetermined with "
              "authorizationRequestInProgress; Allow While Using gives whenInUse, and out of use "
              "events are dropped insufficientlyInUse; back in the foreground the implicit session "
              "asks again (noEffect). ben, the same with appConfig explicitSessionsRequired first: "
              "no prompt, events dropped notDetermined (insufficientlyInUse).",
        rule="sessions.md, The implicit session (held while the app runs; asks in the "
             "foreground); appConfig explicitSessionsRequired",
        words="ana: L1 the first prompt opens; L2 home satisfied dropped notDetermined "
              "(authorizationRequestInProgress); L3 allowWhileUsing; L4 unsatisfied delivered; L6 "
              "satisfied dropped insufficientlyInUse; L7 asks again; L8 unsatisfied delivered. "
              "ben: L11 satisfied and L13 unsatisfied dropped notDetermined (insufficientlyInUse).",
        records=[
            A("09:00:00", "foreground"), F("09:00:05", "home"), ANS("09:00:10", "allowWhileUsing"),
            F("09:00:20", "street"), A("09:00:30", "background"), F("09:01:00", "home"),
            A("09:02:00", "foreground"), F("09:02:10", "street"),
            CFG("09:00:00", "ben", explicitSessionsRequired=True),
            A("09:00:00", "foreground", "ben"), F("09:00:05", "home", "ben"),
            A("09:00:30", "background", "ben"), F("09:01:00", "street", "ben"),
        ],
        requests=(1, 0, 1),
        expect=[
            E(2, "home", SAT, "09:00:05", "ndPrompt"),
            E(4, "home", UNS, "09:00:20", "ok"),
            E(6, "home", SAT, "09:01:00", "notInUse"),
            E(8, "home", UNS, "09:02:10", "ok"),
            E(11, "home", SAT, "09:00:05", "nd", "ben"),
            E(13, "home", UNS, "09:01:00", "nd", "ben"),
        ],
    ),
    dict(
        name="03-implicit-in-effect",
        args=IOS18,
        conditions=["home"],
        shows="The implicit session in effect (the app has been in the foreground since its "
              "launch) makes an always session started in the background count; its own goal, "
              "whenInUse, never lets always reach the background. After a relaunch in the "
              "background it is not in effect: a session started then does not count, not even "
              "after the app has come to the foreground; one started once it has, counts.",
        rule="sessions.md, The implicit session: in effect since the last launch, counts as "
             "another session in effect, goal whenInUse; rule 8",
        words="L2 launch into the foreground (the implicit session asks: noEffect). L4 trip "
              "started in the background counts: L5 home satisfied delivered. L6 trip ended: L7 "
              "dropped serviceSessionRequired, L9 (terminated) too. L10 launch in the background; "
              "L11 trip does not count: L12 and, after the foreground (L13, both sessions ask) "
              "L15, dropped serviceSessionRequired. L16 trip2 counts: L17 delivered.",
        records=[
            A("09:00:00", "terminated"), A("09:00:10", "foreground"), A("09:00:20", "background"),
            SS("09:01:00", "start", "trip", "always"), F("09:02:00", "home"),
            SS("09:02:30", "end", "trip"), F("09:03:00", "street"), A("09:04:00", "terminated"),
            F("09:04:30", "home"), A("09:05:00", "background"),
            SS("09:05:10", "start", "trip", "always"), F("09:06:00", "street"),
            A("09:07:00", "foreground"), A("09:07:10", "background"), F("09:08:00", "home"),
            SS("09:08:10", "start", "trip2", "always"), F("09:09:00", "street"),
        ],
        requests=(0, 3, 3),
        expect=[
            E(5, "home", SAT, "09:02:00", "ok"),
            E(7, "home", UNS, "09:03:00", "session"),
            E(9, "home", SAT, "09:04:30", "session"),
            E(12, "home", UNS, "09:06:00", "session"),
            E(15, "home", SAT, "09:08:00", "session"),
            E(17, "home", UNS, "09:09:00", "ok"),
        ],
    ),
    dict(
        name="04-relaunch-window",
        args=IOS18,
        conditions=["home", "desk"],
        shows="Sessions remembered across termination: they count while the app is terminated "
              "and for the relaunch window (10 s) after the next launch L. ana takes hers again "
              "at L+8 in the background: it still counts. ben does not: an event at exactly "
              "L+10 is delivered, one at L+11 and a beacon exit due at L+15 (fired later) are "
              "dropped serviceSessionRequired, and his start at L+12 is a fresh start in the "
              "background that does not count. cy is terminated again 5 s after a launch: the "
              "session is remembered again and the window starts afresh at the next launch.",
        rule="sessions.md, Relaunch: remembered sessions, the window (at or before L + S), "
             "taken again, lost, remembered again",
        words="ana: L3 home satisfied delivered; L5 (terminated) delivered; L6 launch; L7 "
              "delivered (remembered); L8 taken again; L9 delivered. ben: L12, L14 (desk, "
              "terminated) delivered; L15 launch at 09:04:00; L16 (L+10) delivered; L17 (L+11) "
              "dropped serviceSessionRequired; L18 fresh start; L19 fires desk's exit dated "
              "09:04:15, then home unsatisfied: both dropped serviceSessionRequired. cy: L22 "
              "launch, L23 terminated again, L24 delivered; L25 launch; L26 taken again at L+9; "
              "L27 delivered.",
        records=[
            SS("09:00:00", "start", "trip", "always"), A("09:00:10", "background"),
            F("09:01:00", "home"), A("09:02:00", "terminated"), F("09:03:00", "street"),
            A("09:04:00", "background"), F("09:04:05", "home"),
            SS("09:04:08", "start", "trip", "always"), F("09:05:00", "street"),
        ] + BEN_RELAUNCH + [
            SS("09:00:00", "start", "trip", "always", "cy"), A("09:00:10", "terminated", "cy"),
            A("09:01:00", "background", "cy"), A("09:01:05", "terminated", "cy"),
            F("09:02:00", "home", "cy"), A("09:03:00", "background", "cy"),
            SS("09:03:09", "start", "trip", "always", "cy"), F("09:04:00", "street", "cy"),
        ],
        requests=(0, 3, 3),
        expect=[
            E(3, "home", SAT, "09:01:00", "ok"),
            E(5, "home", UNS, "09:03:00", "ok"),
            E(7, "home", SAT, "09:04:05", "ok"),
            E(9, "home", UNS, "09:05:00", "ok"),
            E(12, "home", SAT, "09:01:00", "ok", "ben"),
            E(14, "desk", SAT, "09:03:45", "ok", "ben", ref=3),
            E(16, "home", UNS, "09:04:10", "ok", "ben"),
            E(17, "home", SAT, "09:04:11", "session", "ben"),
            E(19, "desk", UNS, "09:04:15", "session", "ben"),
            E(19, "home", UNS, "09:05:00", "session", "ben"),
            E(24, "home", SAT, "09:02:00", "ok", "cy"),
            E(27, "home", UNS, "09:04:00", "ok", "cy"),
        ],
    ),
    dict(
        name="05-relaunch-window-15",
        args=IOS18 + ["--relaunch-window", "15", "--condition-limit", "1"],
        conditions=["home", "office", "desk"],
        shows="04's ben with a relaunch window of 15 s: his start at L+12 takes the session "
              "again, so every event is delivered. dan ends the remembered session after the "
              "launch: the next event is dropped serviceSessionRequired. ios18 takes ios17's "
              "--condition-limit: office (the second geographic condition, limit 1) waits, and "
              "each device gets its unmonitored event at its first record.",
        rule="sessions.md, Relaunch (--relaunch-window; end of a remembered session); "
             "profiles.md, ios18's condition limit",
        words="ben: L1 office unmonitored (conditionLimitExceeded); L3, L5 (desk) delivered; L6 "
              "launch at 09:04:00; L7, L8 (L+11) delivered; L9 taken again at L+12; L10 fires "
              "desk's exit dated 09:04:15, then home unsatisfied: delivered. dan: L11 office "
              "unmonitored; L15 delivered (remembered); L16 ends it; L17 dropped "
              "serviceSessionRequired.",
        records=BEN_RELAUNCH + [
            SS("09:00:00", "start", "trip", "always", "dan"), A("09:00:10", "background", "dan"),
            A("09:01:00", "terminated", "dan"), A("09:02:00", "background", "dan"),
            F("09:02:05", "home", "dan"), SS("09:02:06", "end", "trip", dev="dan"),
            F("09:02:10", "street", "dan"),
        ],
        requests=(0, 1, 2),
        expect=[
            E(1, "office", UNM, "09:00:00", "ok", "ben", own="conditionLimitExceeded"),
            E(3, "home", SAT, "09:01:00", "ok", "ben"),
            E(5, "desk", SAT, "09:03:45", "ok", "ben", ref=3),
            E(7, "home", UNS, "09:04:10", "ok", "ben"),
            E(8, "home", SAT, "09:04:11", "ok", "ben"),
            E(10, "desk", UNS, "09:04:15", "ok", "ben"),
            E(10, "home", UNS, "09:05:00", "ok", "ben"),
            E(11, "office", UNM, "09:00:00", "ok", "dan", own="conditionLimitExceeded"),
            E(15, "home", SAT, "09:02:05", "ok", "dan"),
            E(17, "home", UNS, "09:02:10", "session", "dan"),
        ],
    ),
    dict(
        name="06-indicator",
        args=IOS18 + ND,
        conditions=["home"],
        shows="The background activity session (indicator) under whenInUse: an indicator record "
              "from the background has no effect (not in use); from the foreground it works. "
              "Terminated with the indicator on and relaunched in the background, ana rejoins it "
              "within the window (L+8): in use again. ben tries at L+12: it stays in the "
              "background. cy is launched straight into it: a rejoin.",
        rule="sessions.md, The background activity session: starts only in the foreground; "
             "rejoin within the window after a relaunch",
        words="ana: L1 the implicit session's prompt; L4 indicator from the background: nothing; "
              "L5 home satisfied dropped insufficientlyInUse; L7 the indicator starts; L8 "
              "delivered; L9 terminated; L10 and L12 dropped insufficientlyInUse; L11 launch at "
              "09:05:00; L13 rejoins; L14 delivered. ben: L18 delivered; L20 launch; L21 (L+12): "
              "background; L22 dropped insufficientlyInUse. cy: L27 launch into the indicator; "
              "L28 delivered.",
        records=[
            A("09:00:00", "foreground"), ANS("09:00:05", "allowWhileUsing"),
            A("09:00:10", "background"), A("09:00:30", "indicator"), F("09:01:00", "home"),
            A("09:02:00", "foreground"), A("09:02:10", "indicator"), F("09:03:00", "street"),
            A("09:04:00", "terminated"), F("09:04:30", "home"), A("09:05:00", "background"),
            F("09:05:05", "street"), A("09:05:08", "indicator"), F("09:06:00", "home"),
            A("09:00:00", "foreground", "ben"), ANS("09:00:05", "allowWhileUsing", "ben"),
            A("09:00:10", "indicator", "ben"), F("09:01:00", "home", "ben"),
            A("09:02:00", "terminated", "ben"), A("09:03:00", "background", "ben"),
            A("09:03:12", "indicator", "ben"), F("09:04:00", "street", "ben"),
            A("09:00:00", "foreground", "cy"), ANS("09:00:05", "allowWhileUsing", "cy"),
            A("09:00:10", "indicator", "cy"), A("09:01:00", "terminated", "cy"),
            A("09:02:00", "indicator", "cy"), F("09:02:30", "home", "cy"),
        ],
        requests=(3, 0, 1),
        expect=[
            E(5, "home", SAT, "09:01:00", "notInUse"),
            E(8, "home", UNS, "09:03:00", "ok"),
            E(10, "home", SAT, "09:04:30", "notInUse"),
            E(12, "home", UNS, "09:05:05", "notInUse"),
            E(14, "home", SAT, "09:06:00", "ok"),
            E(18, "home", SAT, "09:01:00", "ok", "ben"),
            E(22, "home", UNS, "09:04:00", "notInUse", "ben"),
            E(28, "home", SAT, "09:02:30", "ok", "cy"),
        ],
    ),
    dict(
        name="07-session-asks",
        args=IOS18 + ND,
        conditions=["home"],
        shows="Sessions ask on the app's behalf. ana (explicit sessions required) starts an "
              "always session in the background: it asks (insufficientlyInUse) and never counts; "
              "in the foreground it asks again and opens the first prompt for always, so Allow "
              "While Using gives provisional always, whose out-of-use event is dropped "
              "serviceSessionRequired rather than held. Started again in the foreground it "
              "counts: the next event is held and Allow Always delivers it. ben, with the "
              "implicit session too: in the foreground his always session asks first, so the "
              "first prompt is for always (the implicit when-in-use request has no effect) and "
              "Allow While Using gives provisional always; that session, started in the "
              "background before the implicit one was in effect, never counts (dropped "
              "serviceSessionRequired); one started in the foreground does, and the next event "
              "is held, still held at the end.",
        rule="authorization.md, Service sessions: starting asks, each foreground asks again "
             "(explicit in start order, then the implicit one); rule 8 before holding (rule 10)",
        words="ana: L3 the first prompt (for always); L4 provisional always; L6 home satisfied "
              "dropped serviceSessionRequired; L9 trip again in the foreground; L11 unsatisfied "
              "held; L13 allowAlways delivers it (cause 13); L15 satisfied delivered. ben: L17 the "
              "first prompt (for always; the implicit ask noEffect); L18 provisional always; L20 "
              "dropped serviceSessionRequired; L22 a session started in the foreground; L24 held.",
        records=[
            CFG("09:00:00", explicitSessionsRequired=True),
            SS("09:00:00", "start", "trip", "always", purpose="Nav"), A("09:00:10", "foreground"),
            ANS("09:00:15", "allowWhileUsing"), A("09:00:30", "background"),
            F("09:01:00", "home"), A("09:02:00", "foreground"), SS("09:02:05", "end", "trip"),
            SS("09:02:10", "start", "trip", "always"), A("09:02:20", "background"),
            F("09:03:00", "street"), A("09:04:00", "foreground"), ANS("09:04:05", "allowAlways"),
            A("09:04:10", "background"), F("09:05:00", "home"),
            SS("09:00:00", "start", "trip", "always", "ben"), A("09:00:10", "foreground", "ben"),
            ANS("09:00:15", "allowWhileUsing", "ben"), A("09:00:30", "background", "ben"),
            F("09:01:00", "home", "ben"), A("09:02:00", "foreground", "ben"),
            SS("09:02:05", "start", "trip2", "always", "ben"), A("09:02:10", "background", "ben"),
            F("09:03:00", "street", "ben"),
        ],
        requests=(2, 3, 9),
        expect=[
            E(6, "home", SAT, "09:01:00", "session"),
            E(11, "home", UNS, "09:03:00", "held"),
            E(13, "home", UNS, "09:03:00", "ok"),
            E(15, "home", SAT, "09:05:00", "ok"),
            E(20, "home", SAT, "09:01:00", "session", "ben"),
            E(24, "home", UNS, "09:03:00", "held", "ben"),
        ],
    ),
    dict(
        name="08-session-full-accuracy",
        args=IOS18 + ND,
        conditions=["home"],
        shows="A session's fullAccuracyPurpose is a temporary full-accuracy request, and "
              "appConfig's fullAccuracyPurposes applies to it: with reducedAccuracyByDefault the "
              "grant is reduced (events dropped accuracyLimited, in use too); a session naming an "
              "undeclared purpose (Maps) has no effect, one with goal none naming Nav opens the "
              "prompt, and Allow Once delivers; once the grant has lapsed, the foreground's asks "
              "open it again (denied: nothing changes), and without nav they do not.",
        rule="authorization.md, Service sessions (fullAccuracyPurpose); sessions.md, appConfig "
             "reducedAccuracyByDefault and fullAccuracyPurposes",
        words="L2 the implicit session's prompt; L3 whenInUse, reduced; L4 home satisfied "
              "dropped accuracyLimited; L5 maps asks when-in-use and Maps: noEffect twice; L6 nav "
              "opens the temporary full-accuracy prompt; L7 allowOnce; L8 unsatisfied delivered; "
              "L10 (the grant lapsed at 09:00:55) dropped accuracyLimited; L11 the implicit and "
              "maps' asks: noEffect, nav's: the prompt; L12 deny; L13 dropped accuracyLimited. L14 "
              "nav ends; L16 the implicit and maps' asks (Maps too): noEffect.",
        records=[
            CFG("09:00:00", reducedAccuracyByDefault=True, fullAccuracyPurposes=["Nav"]),
            A("09:00:00", "foreground"), ANS("09:00:05", "allowWhileUsing"),
            F("09:00:10", "home"), SS("09:00:20", "start", "maps", "whenInUse", purpose="Maps"),
            SS("09:00:30", "start", "nav", "none", purpose="Nav"), ANS("09:00:35", "allowOnce"),
            F("09:00:40", "street"), A("09:00:50", "background"), F("09:01:30", "home"),
            A("09:02:00", "foreground"), ANS("09:02:05", "deny"), F("09:02:10", "street"),
            SS("09:02:20", "end", "nav"), A("09:02:30", "background"), A("09:03:00", "foreground"),
        ],
        requests=(3, 0, 8),
        expect=[
            E(4, "home", SAT, "09:00:10", "accuracy"),
            E(8, "home", UNS, "09:00:40", "ok"),
            E(10, "home", SAT, "09:01:30", "accuracy"),
            E(13, "home", UNS, "09:02:10", "accuracy"),
        ],
    ),
    dict(
        name="09-app-config-any-profile",
        args=ND,
        conditions=["home"],
        shows="appConfig's three any-profile keys under the standard profile. ana without "
              "backgroundLocation: an indicator record leaves the foreground as background "
              "would (grace period included), and explicitSessionsRequired changes nothing; "
              "with it again, the indicator starts (from the background: the standard profile "
              "lets it). ben with reducedAccuracyByDefault: Allow While Using grants reduced "
              "accuracy (accuracyLimited); with fullAccuracyPurposes Nav and Maps declared (a "
              "second record: the first key stays), a request for Nav prompts, one without a "
              "purpose is unaffected, and one for purpose Other has no effect.",
        rule="sessions.md, appConfig: backgroundLocation, reducedAccuracyByDefault, "
             "fullAccuracyPurposes (any profile)",
        words="ana: L3 the first prompt; L5 indicator acts as background at 09:00:20; L6 (3 s "
              "later, in the grace period) home satisfied delivered; L7 unsatisfied dropped "
              "insufficientlyInUse; L9 the indicator; L10 delivered. ben: L14 the first prompt; "
              "L15 whenInUse, reduced; L16 dropped accuracyLimited; L17 (Nav) the prompt; L18 "
              "allowOnce; L19 delivered; L20 the grant lapses; L22 (no purpose) the prompt; L23 "
              "deny; L24 (Other) noEffect; L25 dropped accuracyLimited.",
        records=[
            CFG("09:00:00", backgroundLocation=False, explicitSessionsRequired=True),
            A("09:00:00", "foreground"), Q("09:00:05", "whenInUse"),
            ANS("09:00:10", "allowWhileUsing"), A("09:00:20", "indicator"), F("09:00:23", "home"),
            F("09:01:00", "street"), CFG("09:01:30", backgroundLocation=True),
            A("09:01:40", "indicator"), F("09:02:00", "home"),
            CFG("09:00:00", "ben", reducedAccuracyByDefault=True),
            CFG("09:00:00", "ben", fullAccuracyPurposes=["Nav", "Maps"]),
            A("09:00:00", "foreground", "ben"), Q("09:00:05", "whenInUse", "ben"),
            ANS("09:00:10", "allowWhileUsing", "ben"), F("09:00:20", "home", "ben"),
            Q("09:00:40", "temporaryFullAccuracy", "ben", purpose="Nav"),
            ANS("09:00:45", "allowOnce", "ben"), F("09:01:00", "street", "ben"),
            A("09:01:10", "background", "ben"), A("09:02:00", "foreground", "ben"),
            Q("09:02:05", "temporaryFullAccuracy", "ben"), ANS("09:02:10", "deny", "ben"),
            Q("09:02:15", "temporaryFullAccuracy", "ben", purpose="Other"),
            F("09:02:20", "home", "ben"),
        ],
        requests=(4, 0, 1),
        expect=[
            E(6, "home", SAT, "09:00:23", "ok"),
            E(7, "home", UNS, "09:01:00", "notInUse"),
            E(10, "home", SAT, "09:02:00", "ok"),
            E(16, "home", SAT, "09:00:20", "accuracy", "ben"),
            E(19, "home", UNS, "09:01:00", "ok", "ben"),
            E(25, "home", SAT, "09:02:20", "accuracy", "ben"),
        ],
    ),
    dict(
        name="10-error-session-standard",
        args=[],
        conditions=["home", "desk"],
        shows="A session record without --profile ios18 is a bad record (field type), refused "
              "after its device's clock has run up to it: desk's exit due before it is written, "
              "then the run stops.",
        rule="observations.md, Bad records (a session record without --profile ios18)",
        words="L1 home satisfied; L2 desk satisfied (minor 3); L3 fires desk's exit dated "
              "09:00:40, then is refused; L4 is never read.",
        records=[
            F("09:00:00", "home"), B("09:00:10", 3), SS("09:01:00", "start", "trip", "always"),
            F("09:02:00", "street"),
        ],
        error=(3, "type"),
        expect=[
            E(1, "home", SAT, "09:00:00", "ok"),
            E(2, "desk", SAT, "09:00:10", "ok", ref=3),
            E(3, "desk", UNS, "09:00:40", "ok"),
        ],
    ),
    dict(
        name="11-error-retake-goal",
        args=IOS18,
        conditions=["home"],
        shows="A remembered session taken again with another goal is a bad record (field goal).",
        rule="sessions.md, Relaunch (taken again with the same goal)",
        words="L3 home satisfied delivered (the app in the background, trip counting); L5 "
              "launch; L6 trip taken again with goal whenInUse: refused.",
        records=[
            SS("09:00:00", "start", "trip", "always"), A("09:00:10", "background"),
            F("09:00:30", "home"), A("09:00:40", "terminated"), A("09:01:00", "background"),
            SS("09:01:05", "start", "trip", "whenInUse"), F("09:02:00", "street"),
        ],
        error=(6, "goal"),
        expect=[E(3, "home", SAT, "09:00:30", "ok")],
    ),
    dict(
        name="12-error-precise-reduced-default",
        args=ND,
        conditions=["home"],
        shows="With appConfig reducedAccuracyByDefault the first prompt has no Precise switch: "
              "an answer to it with precise (even false) is a bad record (field precise).",
        rule="sessions.md, appConfig reducedAccuracyByDefault (any profile)",
        words="L3 the first prompt; L4 home satisfied dropped notDetermined "
              "(authorizationRequestInProgress); L5 refused.",
        records=[
            CFG("09:00:00", reducedAccuracyByDefault=True), A("09:00:00", "foreground"),
            Q("09:00:05", "whenInUse"), F("09:00:08", "home"),
            ANS("09:00:10", "allowWhileUsing", precise=False), F("09:00:20", "street"),
        ],
        error=(5, "precise"),
        expect=[E(4, "home", SAT, "09:00:08", "ndPrompt")],
    ),
    dict(
        name="13-error-app-config-value",
        args=[],
        conditions=["home"],
        shows="An appConfig value of the wrong kind is a bad record naming the field: "
              "fullAccuracyPurposes written as a string, not an array of strings.",
        rule="sessions.md, appConfig (fields and values); observations.md, Bad records",
        words="L1 home satisfied; L2 refused; L3 is never read.",
        records=[
            F("09:00:00", "home"), CFG("09:00:10", fullAccuracyPurposes="Nav"),
            F("09:00:20", "street"),
        ],
        error=(2, "fullAccuracyPurposes"),
        csv=False,  # in CSV the cell "Nav" is one key: no error there
        expect=[E(1, "home", SAT, "09:00:00", "ok")],
    ),
]

# ------------------------------------------------------------------ running the oracle

KEYS = ("cause", "device", "identifier", "state", "date", "delivery", "reason", "refinement",
        "diagnostics")
ERROR = re.compile(r':(\d+): field "([A-Za-z]+)"')


def run(conditions, observations, args):
    """(exit status, stdout bytes, stderr text, requests line or None) of one oracle run."""
    with tempfile.TemporaryDirectory() as tmp:
        counts = os.path.join(tmp, "requests.txt")
        command = [sys.executable, os.path.join(HERE, "reference_monitor.py"),
                   "--conditions", conditions, "--observations", observations,
                   "--request-counts", counts] + args
        result = subprocess.run(command, capture_output=True)
        line = None
        if os.path.exists(counts):
            with open(counts, encoding="utf-8") as f:
                line = f.read() or None
    return result.returncode, result.stdout, result.stderr.decode("utf-8"), line


def requests_line(counts):
    return "requests: %d prompted, %d insufficientlyInUse, %d noEffect\n" % counts


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


def check_run(name, scenario, status, stderr, line):
    """The run's exit status, error line and field, and request counts, against the scenario."""
    if "error" in scenario:
        m = ERROR.search(stderr)
        if status != 1 or m is None or (int(m.group(1)), m.group(2)) != scenario["error"]:
            raise SystemExit("%s: expected a bad record at %r, got exit %d: %s"
                             % (name, scenario["error"], status, stderr))
    elif status != 0:
        raise SystemExit("%s: oracle failed: %s" % (name, stderr))
    want = requests_line(scenario["requests"]) if scenario.get("requests") else None
    if "error" not in scenario and line != want:
        raise SystemExit("%s: request counts %r, expected %r" % (name, line, want))


def check_invariants(name, scenario, events, folder):
    args, records = scenario["args"], scenario["records"]
    ios18 = "ios18" in args
    for e in events:
        if "serviceSessionRequired" in e["diagnostics"] and not ios18:
            raise SystemExit("%s: serviceSessionRequired outside ios18" % name)
        if rm.parse_rfc3339(e["date"]) > rm.parse_rfc3339(records[e["cause"] - 1]["t"]):
            raise SystemExit("%s: a line dated after its cause" % name)
    if "error" in scenario:
        # The lines before the bad record are a prefix of the run without it: one that stops
        # before it (the reader refuses it: it changes nothing), or, when the authorization model
        # refuses it after its device's clock has run up to it, one with an invalid fix in its
        # place (which only moves the clock).
        line = scenario["error"][0]
        kept = records[:line - 1]
        if scenario["error"][1] != "fullAccuracyPurposes":
            bad = records[line - 1]
            kept.append({"type": "fix", "device": bad["device"], "t": bad["t"], "spot": "street",
                         "accuracy": -1})
        path = os.path.join(folder, "before.jsonl")
        write(path, "".join(ms.record_line(r) + "\n" for r in kept))
        status, out, stderr, _ = run(os.path.join(folder, "conditions.geojson"), path, args)
        os.remove(path)
        before = [json.loads(t) for t in out.decode("utf-8").splitlines()]
        if status != 0 or before[:len(events)] != events:
            raise SystemExit("%s: the stopped run is not a prefix of the run before it" % name)


CSV_COLUMNS = ["type", "device", "t", "lat", "lon", "accuracy", "uuid", "major", "minor", "rssi",
               "state", "what", "purpose", "choice", "precise", "action", "id", "goal",
               "fullAccuracyPurpose", "explicitSessionsRequired", "backgroundLocation",
               "reducedAccuracyByDefault", "fullAccuracyPurposes"]


def csv_text(records):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in records:
        line = json.loads(ms.record_line(record))
        row = []
        for name in CSV_COLUMNS:
            value = line.get(name)
            if value is None:
                row.append("")
            elif isinstance(value, bool):
                row.append("true" if value else "false")
            elif isinstance(value, list):
                row.append(" ".join(value))
            else:
                row.append(str(value))
        writer.writerow(row)
    return out.getvalue()


def check_csv(name, scenario, folder, first, line):
    """The same records as CSV: the same lines, causes one higher, the same counts."""
    path = os.path.join(folder, "observations.csv")
    write(path, csv_text(scenario["records"]))
    status, out, stderr, csv_line = run(os.path.join(folder, "conditions.geojson"), path,
                                        scenario["args"])
    os.remove(path)
    shifted = []
    for text in first.decode("utf-8").splitlines():
        event = json.loads(text)
        event["cause"] += 1
        shifted.append(event)
    got = [json.loads(t) for t in out.decode("utf-8").splitlines()]
    if got != shifted or (csv_line != line and "error" not in scenario):
        raise SystemExit("%s: the CSV run differs: %s" % (name, stderr))
    if "error" in scenario:
        m = ERROR.search(stderr)
        if m is None or (int(m.group(1)) - 1, m.group(2)) != scenario["error"]:
            raise SystemExit("%s: the CSV run's error %s" % (name, stderr))


# ------------------------------------------------------------------ refusals without a fixture

def check_refusals(tmp):
    conditions = os.path.join(tmp, "conditions.geojson")
    write(conditions, conditions_text(["home"]))

    def expect(records, args, field, line):
        path = os.path.join(tmp, "obs.jsonl")
        write(path, "".join(ms.record_line(r) + "\n" for r in records))
        status, _, stderr, _ = run(conditions, path, args)
        m = ERROR.search(stderr)
        if status != 1 or m is None or (int(m.group(1)), m.group(2)) != (line, field):
            raise SystemExit("refusal %r at %d: got exit %d: %s" % (field, line, status, stderr))

    start = SS("09:00:00", "start", "trip", "always")
    expect([start, SS("09:00:05", "end", "other")], IOS18, "id", 2)
    expect([start, SS("09:00:05", "start", "trip", "none")], IOS18, "id", 2)
    expect([start, A("09:00:05", "terminated"), SS("09:00:06", "end", "trip")], IOS18, "action", 3)
    expect([start, A("09:00:05", "terminated"), A("09:00:06", "background"),
            SS("09:00:17", "end", "trip")], IOS18, "id", 4)  # lost at L + 10
    expect([start, SS("09:00:05", "start", "x", "sometimes")], IOS18, "goal", 2)
    expect([F("09:00:00", "home"), CFG("09:00:01", backgroundLocation="no")], [],
           "backgroundLocation", 2)
    expect([F("09:00:00", "home"), CFG("09:00:01", fullAccuracyPurposes=["Nav", 1])], [],
           "fullAccuracyPurposes", 2)
    path = os.path.join(tmp, "obs.jsonl")
    write(path, ms.record_line(CFG("09:00:00")) + "\n")
    if run(conditions, path, [])[0] != 1:
        raise SystemExit("appConfig without a field accepted")
    for args in (["--relaunch-window", "5"], ["--profile", "ios17", "--relaunch-window", "5"],
                 IOS18 + ["--loitering-delay", "5"], IOS18 + ["--relaunch-window", "-1"]):
        if run(conditions, path, args)[0] != 1:
            raise SystemExit("options %r accepted" % args)


# ------------------------------------------------------------------ writing

README_HEAD = """# Fixture set `sessions`: service sessions (`--profile ios18`) and `appConfig` (SPEC §3, §5.5)

Small hand-designed scenarios for the 2024 session model — explicit service sessions
([docs/authorization.md](../../docs/authorization.md#service-sessions---profile-ios18)), the
implicit session, the relaunch window and the background activity session
([docs/sessions.md](../../docs/sessions.md)) — and for the `appConfig` record's keys, three of
which apply under every profile. Each folder `NN-short-name/` holds `conditions.geojson`,
`observations.jsonl`, `args.txt` (the evaluate flags on one line; empty for the defaults) and
`expected-events.jsonl`: the output of the Python oracle `scripts/reference_monitor.py`, whose
session rules are in `scripts/reference_sessions.py`. Where the input makes requests,
`expected-summary.txt` holds the summary's request line (`requests: P prompted, I
insufficientlyInUse, N noEffect`, as `--summary FILE` writes it). The `error` scenarios hold a
bad record: the run stops there with exit status 1, `expected-events.jsonl` holds the lines
written before it, and `expected-error.txt` a text the error message contains
(`observations.jsonl:LINE: field "NAME"`); they have no summary. Everything here is generated by
`scripts/make_session_fixtures.py`, which checks every oracle line, the request counts and the
refused line and field against expectations written by hand in that script, and runs each
scenario again from CSV.

Common ground: Lyon, 2026-03-02, times in UTC, the places of `Fixtures/scenarios` (`home` circle
r=80 m, `office` r=150 m, `desk` beacon major 1, all `assuming: "unsatisfied"`); fixes at `home`
(40 m inside) or in the `street` (outside everything), accuracy 10 m. `L` numbers are observation
lines (the `cause` of the events); `L` in the text is also the instant of a launch (the first
`app` record after `terminated`). Devices start as `--initial-authorization` says: `always` (the
default: the app in the foreground) or `notDetermined` (in the background). "Dropped
serviceSessionRequired" is verdict rule 8: `always`, out of use, no counting session with goal
`always`.

Regenerate (from the repository root; needs `pip install shapely`):

```sh
python3 scripts/make_session_fixtures.py
```

which is the same as running, for each folder `S`:

```sh
python3 scripts/reference_monitor.py --conditions S/conditions.geojson --observations S/observations.jsonl $(cat S/args.txt) --request-counts S/expected-summary.txt > S/expected-events.jsonl
```

(the oracle writes an empty counts file when no request was made, and none when it stops at a
bad record; the generator keeps the file only when it has a line).

| # | Scenario (`args.txt`) | What it shows | Rule | Expected |
|---|---|---|---|---|
"""


def conditions_text(identifiers):
    lines = [json.dumps(ms.feature(i), ensure_ascii=False, separators=(", ", ": "))
             for i in identifiers]
    return '{"type": "FeatureCollection", "features": [\n' + ",\n".join(lines) + "\n]}\n"


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "sessions"))
    out = os.path.normpath(parser.parse_args().out)
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        check_refusals(tmp)
    names = [s["name"] for s in SCENARIOS]
    for stale in sorted(os.listdir(out)):
        if stale[:2].isdigit() and stale not in names:
            shutil.rmtree(os.path.join(out, stale))
    rows = []
    for number, scenario in enumerate(SCENARIOS, start=1):
        name, args, records = scenario["name"], scenario["args"], scenario["records"]
        assert name.startswith("%02d-" % number), name
        assert 3 <= len(records) <= 30, name
        folder = os.path.join(out, name)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        conditions = os.path.join(folder, "conditions.geojson")
        observations = os.path.join(folder, "observations.jsonl")
        write(conditions, conditions_text(scenario["conditions"]))
        write(observations, "".join(ms.record_line(r) + "\n" for r in records))
        write(os.path.join(folder, "args.txt"), " ".join(args) + "\n")
        ms.check_spots(rm.load_conditions(conditions), records, name)
        status, first, stderr, line = run(conditions, observations, args)
        check_run(name, scenario, status, stderr, line)
        if run(conditions, observations, args)[:2] != (status, first):
            raise SystemExit("%s: two oracle runs differ" % name)
        events = [json.loads(text) for text in first.decode("utf-8").splitlines()]
        compare(name, events, scenario["expect"])
        check_invariants(name, scenario, events, folder)
        if scenario.get("csv", True):
            check_csv(name, scenario, folder, first, line)
        with open(os.path.join(folder, "expected-events.jsonl"), "wb") as f:
            f.write(first)
        if "error" in scenario:
            write(os.path.join(folder, "expected-error.txt"),
                  'observations.jsonl:%d: field "%s"\n' % scenario["error"])
            outcome = "stops at L%d (field `%s`)" % scenario["error"]
        elif line is not None:
            write(os.path.join(folder, "expected-summary.txt"), line)
            outcome = "`%s`" % line.strip()
        else:
            outcome = "no request"
        rows.append("| %d | `%s` (`%s`) | %s | %s | %d line%s from %d records; %s. %s |"
                    % (number, name, " ".join(args) or "—", ms.cell(scenario["shows"]),
                       ms.cell(scenario["rule"]), len(events), "" if len(events) == 1 else "s",
                       len(records), outcome,
                       ms.cell(scenario["words"])))
        print("%s: %d records, %d expected lines, %s" % (name, len(records), len(events), outcome),
              file=sys.stderr)
    write(os.path.join(out, "README.md"), README_HEAD + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
