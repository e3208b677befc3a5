#!/bin/bash
# Prints the md5 of `perimeter evaluate`'s output on a fixed set of runs over the generated text
# workloads, one line per run, so that an engine change can show it writes the same events byte for
# byte (run it with the old and the new tool, and compare the two listings).
#
# usage: Benchmarks/tools/reference-outputs.sh PERIMETER [WORKDIR]
#   WORKDIR defaults to .build/workloads-text, made by
#   python3 Benchmarks/workloads/generate.py --out .build/workloads-text --text --no-single
#
# Every run starts its conditions unsatisfied (--assume): with `unknown`, a device's first
# observation reports every condition, hundreds of millions of lines (the beacons alone: 8 minutes).
set -euo pipefail
perimeter=$1
work=${2:-.build/workloads-text}
run() {
    local name=$1; shift
    local sum start
    start=$(date +%s)
    sum=$("$perimeter" evaluate "$@" 2> /dev/null | md5sum | cut -c1-8)
    printf '%-34s %s  (%d s)\n' "$name" "$sum" $(( $(date +%s) - start ))
}
run "mixed, CSV"                    --assume unsatisfied --conditions "$work/mixed.geojson" --observations "$work/fixes.csv"
run "mixed, JSON Lines"             --assume unsatisfied --conditions "$work/mixed.geojson" --observations "$work/fixes.jsonl"
run "mixed, RFC 3339 times"         --assume unsatisfied --conditions "$work/mixed.geojson" --observations "$work/fixes-rfc3339.jsonl"
run "mixed, --hysteresis 150 (index)" --assume unsatisfied --hysteresis 150 --conditions "$work/mixed.geojson" --observations "$work/fixes.csv"
run "circles, --hysteresis 30"      --assume unsatisfied --hysteresis 30 --conditions "$work/circles.geojson" --observations "$work/fixes.csv"
run "polygons, --confirmation 5"    --assume unsatisfied --confirmation 5 --conditions "$work/polygons.geojson" --observations "$work/fixes.csv"
run "beacons"                       --assume unsatisfied --conditions "$work/beacons.geojson" --observations "$work/sightings.jsonl"
