#!/usr/bin/env python3
"""Generates Fixtures/compare/: what-if comparisons (SPEC §5.7) whose expected output comes from the
naive oracle scripts/reference_compare.py (a full reference run per variant).

Each folder: conditions.geojson and observations.jsonl (copied from another fixture, named in the
folder's README line), variants.txt (one --variant spec a line) and expected.json (the tool's
`--json` without `geometryPasses`). A few numbers of each are checked here by hand, so that a
wrong oracle fails the generator.

Usage: python3 scripts/make_compare_fixtures.py [--out DIR]
"""
import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_compare  # noqa: E402

FIXTURES = os.path.join(HERE, "..", "Fixtures")

CASES = [
    dict(name="01-city-permissions", source="city", observations="observations.jsonl",
         shows="the city recording as plain evaluation, a fresh install (nothing asked: all dropped "
               "notDetermined), the same under ios18 with three held events allowed, and with 20 m "
               "of hysteresis (a second geometry)",
         variants=["profile=standard", "initial=notDetermined", "profile=ios18,initial=notDetermined,holding-capacity=3",
                   "hysteresis=20"],
         check=lambda r: r["variants"][0]["delivered"] == r["variants"][0]["events"] == 105
         and r["variants"][1]["reasons"] == {"notDetermined": 105} and len(r["differences"]) == 13),
    dict(name="02-holding", source="scenarios/05-provisional-displaced", observations="observations.jsonl",
         shows="provisional always with one held event (one displaced), with two, with none, and held "
               "events expiring after 30 s",
         variants=["initial=notDetermined", "initial=notDetermined,holding-capacity=2",
                   "initial=notDetermined,holding-capacity=0", "initial=notDetermined,maximum-holding-age=30"],
         check=lambda r: r["variants"][0]["reasons"].get("displaced", 0) == 1
         and r["variants"][1]["reasons"].get("displaced", 0) == 0),
    dict(name="03-relaunch-windows", source="sessions/04-relaunch-window", observations="observations.jsonl",
         shows="sessions taken again after a relaunch, with windows of 5, 10 and 15 s",
         variants=["profile=ios18,relaunch-window=5", "profile=ios18", "profile=ios18,relaunch-window=15"],
         check=lambda r: r["variants"][0]["events"] == r["variants"][2]["events"]
         and r["variants"][0]["delivered"] <= r["variants"][1]["delivered"] <= r["variants"][2]["delivered"]),
    dict(name="04-platforms", source="profiles/06-android-dwelling", observations="observations.jsonl",
         shows="one recording under android (dwelling after 60 s and after 30 s), ios17 and standard: "
               "three geometries",
         variants=["profile=android,loitering-delay=60", "profile=android", "profile=ios17", "profile=standard"],
         check=lambda r: r["variants"][2]["events"] == r["variants"][3]["events"]
         and r["variants"][0]["events"] > r["variants"][3]["events"]),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(FIXTURES, "compare"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    readme = ["# compare/", "", "What-if comparisons (`perimeter compare`, SPEC §5.7, docs/whatif.md). Expected outputs from "
              "`scripts/reference_compare.py`, a full run of the Python reference per variant; regenerate with "
              "`python3 scripts/make_compare_fixtures.py`.", "", "| folder | recording | what it shows | variants |",
              "|---|---|---|---|"]
    for case in CASES:
        folder = os.path.join(args.out, case["name"])
        os.makedirs(folder, exist_ok=True)
        source = os.path.join(FIXTURES, case["source"])
        shutil.copyfile(os.path.join(source, "conditions.geojson"), os.path.join(folder, "conditions.geojson"))
        shutil.copyfile(os.path.join(source, case["observations"]), os.path.join(folder, "observations.jsonl"))
        with open(os.path.join(folder, "variants.txt"), "w", newline="\n") as f:
            f.write("".join(v + "\n" for v in case["variants"]))
        result = reference_compare.compare(os.path.join(folder, "conditions.geojson"), os.path.join(folder, "observations.jsonl"),
                                           case["variants"])
        if not case["check"](result):
            sys.exit("make_compare_fixtures: %s: the hand check failed on %s" % (case["name"], json.dumps(result)))
        with open(os.path.join(folder, "expected.json"), "w", newline="\n") as f:
            f.write(json.dumps(result, separators=(",", ":")) + "\n")
        readme.append("| `%s` | `%s` | %s | %s |" % (case["name"], case["source"], case["shows"],
                                                     ", ".join("`%s`" % v for v in case["variants"])))
        print("%s: %s" % (case["name"], ", ".join("%d/%d delivered" % (v["delivered"], v["events"]) for v in result["variants"])))
    with open(os.path.join(args.out, "README.md"), "w", newline="\n") as f:
        f.write("\n".join(readme) + "\n")


if __name__ == "__main__":
    main()
