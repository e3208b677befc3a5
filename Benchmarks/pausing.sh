#!/bin/bash
# What live updates' pausing saves, and that it changes no event: over a stream in which devices
# stand still half the time (Benchmarks/workloads/still_half.py) and over the benchmark's stream,
# `updates --events` with pausing (`--live default`) and without (`--live airborne`), round by round,
# beside `evaluate` on the same conditions; the events of all three must be the same bytes.
#
# usage: Benchmarks/pausing.sh ROUNDS CPUS PERIMETER [WORKDIR]
#   WORKDIR (default .build/workloads-text) holds generate.py's mixed.geojson and fixes.csv; the
#   still-half stream is made beside it (10,000 devices, 1,000 s: 10M fixes) if absent.
set -euo pipefail
rounds=$1; cpus=$2; tool=$3; work=${4:-.build/workloads-text}
still=$work/still-half.csv
[ -f "$still" ] || python3 Benchmarks/workloads/still_half.py --devices 10000 --seconds 1000 --out "$still"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
timed() {  # NAME COMMAND...: runs it pinned, appends its seconds to $scratch/NAME.times
  local name=$1; shift
  /usr/bin/time -f "%e" -o "$scratch/time" taskset -c "$cpus" "$@" 2> "$scratch/$name.err" || { cat "$scratch/$name.err"; exit 1; }
  tail -n 1 "$scratch/time" >> "$scratch/$name.times"
}
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for stream in "$still" "$work/fixes.csv"; do
  rm -f "$scratch"/*.times
  for _ in $(seq "$rounds"); do
    timed evaluate "$tool" evaluate --assume unsatisfied --conditions "$work/mixed.geojson" --observations "$stream" --out "$scratch/evaluate.jsonl"
    for live in default airborne; do
      timed "$live" "$tool" updates --assume unsatisfied --conditions "$work/mixed.geojson" --observations "$stream" \
          --events "$scratch/events-$live.jsonl" --out "$scratch/updates-$live.jsonl" --live "$live"
    done
  done
  echo "== $(basename "$stream")"
  for f in evaluate events-default events-airborne; do printf '%-16s events md5 %s\n' "$f" "$(md5sum < "$scratch/$f.jsonl" | cut -c1-8)"; done
  cmp -s "$scratch/evaluate.jsonl" "$scratch/events-default.jsonl" && cmp -s "$scratch/evaluate.jsonl" "$scratch/events-airborne.jsonl" \
      || { echo "the events differ"; exit 1; }
  for live in default airborne; do
    printf 'updates --live %-9s %10d updates, %6d MB, median %s s; %s\n' "$live" "$(wc -l < "$scratch/updates-$live.jsonl")" \
        "$(( $(stat -c %s "$scratch/updates-$live.jsonl") / 1000000 ))" "$(median "$scratch/$live.times")" "$(tail -n 1 "$scratch/$live.err")"
  done
  echo "evaluate alone: median $(median "$scratch/evaluate.times") s"
done
