#!/bin/bash
# `perimeter range` against the monitoring path over the same sightings: `evaluate` with the same
# features as beacon conditions (their matching is the monitoring path's), then `range`, round by
# round so that a noisy machine slows both alike. Both write to /dev/null; the summary lines give
# the events and results counted.
#
# usage: Benchmarks/ranging.sh ROUNDS CPUS PERIMETER [WORKDIR]
#   WORKDIR defaults to .build/ranging-museum, made if absent by
#   python3 scripts/make_ranging_workload.py --constraints 100000 --sightings 10000000 \
#       --devices 10000 --seed 7 --rooms-only --per-second 4 --out-dir WORKDIR
set -euo pipefail
rounds=$1; cpus=$2; tool=$3; work=${4:-.build/ranging-museum}
if [ ! -f "$work/sightings.csv" ]; then
  python3 scripts/make_ranging_workload.py --constraints 100000 --sightings 10000000 --devices 10000 \
      --seed 7 --rooms-only --per-second 4 --out-dir "$work"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
monitoring=(); ranging=()
for _ in $(seq "$rounds"); do
  /usr/bin/time -f "%e" -o "$scratch/time" taskset -c "$cpus" "$tool" evaluate --assume unsatisfied \
      --conditions "$work/conditions.geojson" --observations "$work/sightings.csv" --out /dev/null 2> "$scratch/evaluate"
  monitoring+=("$(tail -n 1 "$scratch/time")")
  /usr/bin/time -f "%e" -o "$scratch/time" taskset -c "$cpus" "$tool" range \
      --conditions "$work/conditions.geojson" --observations "$work/sightings.csv" --out /dev/null 2> "$scratch/range"
  ranging+=("$(tail -n 1 "$scratch/time")")
done
grep -v '…' "$scratch/evaluate" | tail -n 1
grep -v '…' "$scratch/range" | tail -n 1
sorted() { printf '%s\n' "$@" | sort -n | tr '\n' ' '; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
records=$(wc -l < "$work/sightings.csv")
echo "evaluate (monitoring's beacon matching): $(sorted "${monitoring[@]}")s"
echo "range:                                   $(sorted "${ranging[@]}")s"
python3 -c "m, r, n = $(median "${monitoring[@]}"), $(median "${ranging[@]}"), $records - 1
print(f'median: evaluate {n / m / 1e6:.2f} M sightings/s, range {n / r / 1e6:.2f} M sightings/s, range / evaluate time {r / m:.2f}')"
