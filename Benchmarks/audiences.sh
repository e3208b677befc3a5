#!/bin/bash
# Conditions per device (SPEC 5.6): the same stream of fixes evaluated against 20k shared circles
# (shared.geojson, the baseline) and against 1,000 shared circles plus 20 private circles for each
# device (audiences.geojson, `"devices": ["d<i>"]`, 2,001,000 conditions for 100k devices), round by
# round so that a noisy machine slows both alike. The target: audiences' records/s at least half
# the baseline's. Then the memory a condition takes: each conditions file once against a stream
# without records, (its peak RSS - the peak RSS of an empty FeatureCollection's run) / conditions.
# An engine without 5.6 reads audiences.geojson as 2,001,000 shared conditions (a smoke run).
#
# usage: Benchmarks/audiences.sh ROUNDS CPUS PERIMETER [WORKDIR]
#   CPUS as taskset -c takes them (0, or 0,1). WORKDIR (default .build/workloads-audiences) holds
#   Benchmarks/workloads/audiences.py's shared.geojson, audiences.geojson and fixes.csv; made at
#   full size (100k devices, 10M fixes; about 30 s, 1.2 GB) if it has no manifest.json. For a
#   small run make it first, e.g. python3 Benchmarks/workloads/audiences.py --devices 1000
#   --fixes 100000 --out .build/workloads-audiences-small, and pass that directory. With perimeter-bench
#   built beside PERIMETER, also what the engine keeps per condition (`perimeter-bench storage`).
set -euo pipefail
rounds=$1; cpus=$2; tool=$3; work=${4:-.build/workloads-audiences}
[ -f "$work/manifest.json" ] || python3 Benchmarks/workloads/audiences.py --out "$work"
scratch=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$scratch"' EXIT
variants=(shared audiences)
timed() {  # NAME COMMAND...: runs it pinned, appends "seconds peak-KB" to $scratch/NAME.times
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" taskset -c "$cpus" "$@" 2> "$scratch/$name.err" \
      || { cat "$scratch/$name.err" "$scratch/time"; exit 1; }
  tail -n 1 "$scratch/time" >> "$scratch/$name.times"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
conditions() { grep -c '^{"type":"Feature"' "$1"; }
records=$(( $(wc -l < "$work/fixes.csv") - 1 ))

# Events go through a pipe to a counter: an engine without 5.6 writes ~44 events a record here
# (hundreds of millions, tens of GB).
count='END { print NR, n + 0 }
  match($0, /"device":"[^"]*"/) { d = substr($0, RSTART + 10, RLENGTH - 11) }
  match($0, /"identifier":"p[0-9]+-/) { if ("d" substr($0, RSTART + 15, RLENGTH - 16) != d) n++ }'
for round in $(seq "$rounds"); do
  for v in "${variants[@]}"; do
    rm -f "$scratch/$v.jsonl"; mkfifo "$scratch/$v.jsonl"
    awk "$count" "$scratch/$v.jsonl" > "$scratch/count" &
    timed "$v" "$tool" evaluate --assume unsatisfied --conditions "$work/$v.geojson" \
        --observations "$work/fixes.csv" --out "$scratch/$v.jsonl"
    wait $!
    # events, and events of a device on another device's private circle (none under 5.6)
    read -r events foreign < "$scratch/count"
    echo "$events" >> "$scratch/$v.events"; echo "$foreign" > "$scratch/$v.foreign"
    # the engine's own seconds, from its summary (... in 12.34 s, ...)
    grep -v '…' "$scratch/$v.err" | tail -n 1 | sed -n 's/.* in \([0-9.]*\) s,.*/\1/p' >> "$scratch/$v.engine"
    echo "round $round $v: $(tail -n 1 "$scratch/$v.times" | awk '{printf "%s s, %d MB", $1, $2 / 1024}'), $events events"
  done
done

# Memory: the conditions alone (a CSV header, no records), beside an empty FeatureCollection.
head -n 1 "$work/fixes.csv" > "$scratch/empty.csv"
echo '{"type":"FeatureCollection","features":[]}' > "$scratch/empty.geojson"
timed empty-conditions "$tool" evaluate --assume unsatisfied --conditions "$scratch/empty.geojson" \
    --observations "$scratch/empty.csv" --out "$scratch/empty.jsonl"
for v in "${variants[@]}"; do
  timed "$v-conditions" "$tool" evaluate --assume unsatisfied --conditions "$work/$v.geojson" \
      --observations "$scratch/empty.csv" --out "$scratch/empty.jsonl"
done

echo
for v in "${variants[@]}"; do
  echo "== $v ($(conditions "$work/$v.geojson") conditions): $(grep -v '…' "$scratch/$v.err" | tail -n 1)"
  [ "$(sort -u "$scratch/$v.events" | wc -l)" -eq 1 ] || echo "   the events count differs between rounds: $(tr '\n' ' ' < "$scratch/$v.events")"
done
empty_kb=$(awk '{print $2}' "$scratch/empty-conditions.times")
{
  for v in "${variants[@]}"; do
    printf '%s %s %s %s %s %s %s %s %s %s\n' "$v" "$(conditions "$work/$v.geojson")" \
        "$(awk '{print $1}' "$scratch/$v.times" | median)" "$(median < "$scratch/$v.engine")" \
        "$(awk '{print $2}' "$scratch/$v.times" | sort -n | tail -n 1)" \
        "$(tail -n 1 "$scratch/$v.events")" \
        "$(awk '{print $1}' "$scratch/$v-conditions.times")" "$(awk '{print $2}' "$scratch/$v-conditions.times")" \
        "$(awk '{print $1}' "$scratch/$v.times" | sort -n | tr '\n' ',')" "$(cat "$scratch/$v.foreign")"
  done
} > "$scratch/rows"
python3 - "$scratch/rows" "$records" "$empty_kb" "$cpus" <<'EOF'
import sys
rows = [line.split() for line in open(sys.argv[1])]
records, empty_kb, cpus = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"\n{records:,} records, CPUs {cpus}; wall = /usr/bin/time's elapsed seconds (loading the conditions "
      f"included), engine = the summary's seconds;\nconditions only = a run without records; bytes/condition = "
      f"(its peak RSS - {empty_kb / 1024:.1f} MB, an empty FeatureCollection's) / conditions\n")
print("| variant   | conditions | wall s, sorted         | median | records/s | engine s | records/s "
      "| events      | peak RSS MB | conditions only  | bytes/condition |")
print("|-----------|-----------:|------------------------|-------:|----------:|---------:|----------:"
      "|------------:|------------:|-----------------:|----------------:|")
wall, engine, foreign = {}, {}, {}
for name, n, med, eng, peak_kb, events, load_s, load_kb, times, other in rows:
    n, med, eng, peak_kb, events, load_kb = int(n), float(med), float(eng), int(peak_kb), int(events), int(load_kb)
    wall[name], engine[name], foreign[name] = records / med, records / eng, int(other)
    per = (load_kb - empty_kb) * 1024 / n
    print(f"| {name:9s} | {n:10,d} | {times.rstrip(',').replace(',', ' '):22s} | {med:6.2f} | {wall[name]:9,.0f} "
          f"| {eng:8.2f} | {engine[name]:9,.0f} | {events:11,d} | {peak_kb / 1024:11,.0f} "
          f"| {float(load_s):6.2f} s {load_kb / 1024:5,.0f} MB | {per:15,.0f} |")
print(f"\nevents of a device on another device's private circle: {foreign['audiences']:,}"
      + (" (every device is evaluated against every condition: no 5.6 in this engine)" if foreign["audiences"] else ""))
for what, rate in (("wall", wall), ("engine", engine)):
    ratio = rate["audiences"] / rate["shared"]
    print(f"throughput audiences / shared ({what}): {ratio:.3f} (target >= 0.5: {'met' if ratio >= 0.5 else 'NOT met'})")
EOF
# What the engine keeps per condition once loaded (peak RSS above also counts the file's parse), when
# perimeter-bench is built beside PERIMETER.
bench=$(dirname "$tool")/perimeter-bench
if [ -x "$bench" ]; then
  for v in "${variants[@]}"; do
    echo; echo "== $v: what the engine keeps ($bench storage)"
    "$bench" storage "$work/$v.geojson"
  done
fi
