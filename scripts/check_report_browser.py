#!/usr/bin/env python3
"""Load `perimeter report`'s HTML in a real browser (Debian's chromium, headless) and check it.

    python3 scripts/check_report_browser.py [--perimeter PATH] [--artifacts DIR]

For each fixture below it writes the report, then with chromium:
  - loads it with every console message logged: the page must log nothing (an uncaught error or a
    failed load is logged there);
  - dumps the DOM after the scripts ran: the number of condition shapes (`path.condition`) and
    event markers (`circle.event-marker`) must be what this script expects, worked out here from
    the fixture's GeoJSON, its observations and the tool's own events — not from the report;
  - saves a screenshot, DIR/report-FIXTURE.png (default DIR: .build/artifacts), a build artifact.
It also checks that the page fetches nothing: no src= or href= attribute, no url( in it.
Exit status 0 when every check passes.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FAILURES = []

FIXTURES = [
    # name, conditions, observations, extra evaluate flags
    ("city", "Fixtures/city/conditions.geojson", "Fixtures/city/observations.jsonl", []),
    ("provisional", "Fixtures/scenarios/05-provisional-displaced/conditions.geojson",
     "Fixtures/scenarios/05-provisional-displaced/observations.jsonl", "@args"),
]


def check(cond, what):
    print(("  ok   " if cond else "  FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no chromium on PATH: apt-get install -y chromium")


def browser(args, page, timeout=120):
    cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
           "--user-data-dir=" + tempfile.mkdtemp(prefix="report-chromium-")] + args + ["file://" + page]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def expected_counts(conditions, observations, events):
    """Shapes: every feature with a geometry (the fixtures are small: all lie about the tracks).
    Markers: one per event (a held event and its outcome are one), for events whose device had a
    valid fix at or before the event's record."""
    features = json.load(open(conditions, encoding="utf-8"))["features"]
    shapes = sum(1 for f in features if f.get("geometry"))
    first_fix = {}
    for n, line in enumerate(open(observations, encoding="utf-8"), start=1):
        if not line.strip():
            continue
        r = json.loads(line)
        if r.get("type") == "fix" and r.get("accuracy", -1) >= 0 and r["device"] not in first_fix:
            first_fix[r["device"]] = n
    held = collections.Counter()
    markers = 0
    for e in events:
        key = (e["device"], e["identifier"], e["state"], e["date"], json.dumps(e["refinement"]))
        if held[key] and e["delivery"] != "held":
            held[key] -= 1  # the outcome of a held event: the same marker
            continue
        if e["delivery"] == "held":
            held[key] += 1
        if first_fix.get(e["device"], 1 << 62) <= e["cause"]:
            markers += 1
    return shapes, markers


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--perimeter", default=os.path.join(REPO, ".build", "debug", "perimeter"))
    p.add_argument("--artifacts", default=os.path.join(REPO, ".build", "artifacts"))
    a = p.parse_args()
    os.makedirs(a.artifacts, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="check-report-")
    for name, conditions, observations, extra in FIXTURES:
        print(name)
        conditions, observations = os.path.join(REPO, conditions), os.path.join(REPO, observations)
        if extra == "@args":
            extra = open(os.path.join(os.path.dirname(observations), "args.txt")).read().split()
        page = os.path.join(tmp, name + ".html")
        r = subprocess.run([a.perimeter, "report", "--conditions", conditions, "--observations", observations,
                            "--out", page, "--title", name] + extra, stderr=subprocess.PIPE)
        check(r.returncode == 0, f"{name}: perimeter report exits 0 ({r.stderr.decode().strip()[-300:]})")
        if r.returncode != 0:
            continue
        text = open(page, encoding="utf-8").read()
        check(not re.search(r'\s(src|href)\s*=|url\(', text), f"{name}: the page fetches nothing (no src=, href=, url()")
        out = subprocess.run([a.perimeter, "evaluate", "--conditions", conditions, "--observations", observations,
                              "--out", "-"] + extra, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        events = [json.loads(l) for l in out.decode().splitlines() if l.strip()]
        shapes, markers = expected_counts(conditions, observations, events)

        run = browser(["--dump-dom", "--virtual-time-budget=5000"], page)
        dom = run.stdout.decode("utf-8", "replace")
        console = [l for l in run.stderr.decode("utf-8", "replace").splitlines() if "CONSOLE" in l]
        check(not console, f"{name}: no console messages" + ("".join("\n       " + l[:300] for l in console)))
        got_shapes = len(re.findall(r'<path[^>]*class="condition ', dom))
        got_markers = len(re.findall(r'<circle[^>]*class="event-marker ', dom))
        check(got_shapes == shapes, f"{name}: {got_shapes} condition shapes in the DOM, expected {shapes}")
        check(got_markers == markers, f"{name}: {got_markers} event markers on the map, expected {markers}")
        check('id="timeline"><svg' in dom, f"{name}: a timeline was drawn")

        shot = os.path.join(a.artifacts, f"report-{name}.png")
        if os.path.exists(shot):
            os.remove(shot)
        browser(["--screenshot=" + shot, "--window-size=1400,1200", "--virtual-time-budget=5000"], page)
        check(os.path.exists(shot) and os.path.getsize(shot) > 10_000, f"{name}: screenshot {shot}")
    shutil.rmtree(tmp, ignore_errors=True)
    print("all passed" if not FAILURES else f"FAILED: {len(FAILURES)}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
