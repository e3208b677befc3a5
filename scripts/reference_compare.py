#!/usr/bin/env python3
"""Reference (test oracle) of `perimeter compare` (SPEC §5.7, docs/whatif.md).

Written from the spec, not from the Swift code, and deliberately naive: each variant is a full run
of the reference monitor (scripts/reference_monitor.py) with the variant's options, and the
comparison is counted from its event lines. No geometry is shared between variants.

Per variant: events (an event's held and final lines count once), delivered (at once, or held and
then delivered), held (still held at the end), dropped (by final reason), refused (always 0 here:
a variant whose run stops at a refused record is an error of the fixture), request outcomes. Then
the conditions, in the conditions file's order, whose delivered events — the multiset of (device,
state, date, refinement) — are not the same under every variant, with each variant's count.

Usage:
    python3 scripts/reference_compare.py --conditions C --observations O --variant SPEC --variant SPEC ...

Prints the comparison as one JSON object (the tool's `--json`, without its `geometryPasses`).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REASONS = ["authorizationDenied", "authorizationRestricted", "notDetermined", "accuracyLimited", "insufficientlyInUse",
           "alwaysAuthorizationDenied", "displaced", "expired", "serviceSessionRequired", "provisionalAlways"]


def flags(spec):
    """A variant's options as the reference monitor's flags."""
    out = []
    for item in spec.split(","):
        key, value = item.split("=", 1)
        out += ["--" + ("initial-authorization" if key == "initial" else key), value]
    return out


def run(conditions, observations, spec):
    with tempfile.TemporaryDirectory() as tmp:
        counts = os.path.join(tmp, "requests.txt")
        result = subprocess.run([sys.executable, os.path.join(HERE, "reference_monitor.py"), "--conditions", conditions,
                                 "--observations", observations, "--request-counts", counts] + flags(spec),
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit("reference_compare: variant %s: %s" % (spec, result.stderr.strip()))
        with open(counts) as f:
            words = f.read().split()
    # (An empty file: the run made no request.)
    requests = {"prompted": int(words[1]), "insufficientlyInUse": int(words[3]), "noEffect": int(words[5])} if words \
        else {"prompted": 0, "insufficientlyInUse": 0, "noEffect": 0}
    return [json.loads(line) for line in result.stdout.splitlines() if line], requests


def tally(lines):
    """Each event's final outcome: (counts, delivered events by condition)."""
    events = delivered = 0
    dropped = collections.Counter()
    held = {}
    by_condition = collections.defaultdict(list)

    def settle(event, verdict, reason):
        nonlocal delivered
        if verdict == "delivered":
            delivered += 1
            by_condition[event["identifier"]].append(
                (event["device"], event["state"], event["date"], json.dumps(event["refinement"], sort_keys=True)))
        elif verdict == "dropped":
            dropped[reason] += 1

    for e in lines:
        key = (e["device"], e["identifier"], e["state"], e["date"], json.dumps(e["refinement"], sort_keys=True))
        if key in held and e["delivery"] != "held" and held[key]:
            # A final line: the earliest held line of the same event it can resolve.
            held[key].pop(0)
            if not held[key]:
                del held[key]
            settle(e, e["delivery"], e["reason"])
            continue
        events += 1
        if e["delivery"] == "held":
            held.setdefault(key, []).append(e)
        else:
            settle(e, e["delivery"], e["reason"])
    return events, delivered, sum(len(v) for v in held.values()), dropped, by_condition


def identifiers(conditions):
    with open(conditions) as f:
        return [feature["id"] for feature in json.load(f)["features"]]


def records(observations):
    with open(observations) as f:
        return sum(1 for line in f if line.strip())


def compare(conditions, observations, specs):
    variants, delivered_by = [], []
    for spec in specs:
        lines, requests = run(conditions, observations, spec)
        events, delivered, held, dropped, by_condition = tally(lines)
        variants.append({"variant": spec, "events": events, "delivered": delivered, "held": held,
                         "dropped": sum(dropped.values()),
                         "reasons": {r: dropped[r] for r in REASONS if dropped[r]}, "refused": 0, "requests": requests})
        delivered_by.append({k: sorted(v) for k, v in by_condition.items()})
    differences = []
    for identifier in identifiers(conditions):
        each = [d.get(identifier, []) for d in delivered_by]
        if any(x != each[0] for x in each):
            differences.append({"identifier": identifier, "delivered": [len(x) for x in each]})
    return {"records": records(observations), "variants": variants, "differences": differences}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conditions", required=True)
    parser.add_argument("--observations", required=True)
    parser.add_argument("--variant", action="append", required=True)
    args = parser.parse_args()
    print(json.dumps(compare(args.conditions, args.observations, args.variant), separators=(",", ":")))


if __name__ == "__main__":
    main()
