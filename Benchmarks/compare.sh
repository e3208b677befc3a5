#!/bin/bash
# What a what-if comparison costs (SPEC §5.7): `perimeter compare` with four variants that differ
# only in authorization against four `perimeter evaluate` runs, one per variant, over the same
# conditions and observations, alternating round by round on a noisy machine. Prints each round's
# wall times and the medians' ratio.
#
# usage: Benchmarks/compare.sh ROUNDS CPUS CONDITIONS OBSERVATIONS PERIMETER
#   e.g. Benchmarks/compare.sh 3 0,1 .build/workloads-text/mixed.geojson .build/workloads-text/fixes.csv .build/release/perimeter
set -euo pipefail
rounds=$1; cpus=$2; conditions=$3; observations=$4; tool=$5
variants=("assume=unsatisfied" "assume=unsatisfied,initial=notDetermined" "assume=unsatisfied,grace-period=0,initial=notDetermined"
          "assume=unsatisfied,initial=notDetermined,holding-capacity=3")
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
seconds() { /usr/bin/time -f "%e" -o "$timing" taskset -c "$cpus" "$@" > /dev/null 2> /dev/null; tail -n 1 "$timing"; }
compare_times=(); evaluate_times=()
for round in $(seq "$rounds"); do
  args=(); for v in "${variants[@]}"; do args+=(--variant "$v"); done
  c=$(seconds "$tool" compare --conditions "$conditions" --observations "$observations" "${args[@]}" --json)
  total=0
  for v in "${variants[@]}"; do
    flags=(); IFS=',' read -ra items <<< "$v"
    for item in "${items[@]}"; do key=${item%%=*}; [ "$key" = initial ] && key=initial-authorization; flags+=("--$key" "${item#*=}"); done
    e=$(seconds "$tool" evaluate --conditions "$conditions" --observations "$observations" "${flags[@]}")
    total=$(echo "$total + $e" | bc)
  done
  echo "round $round: compare (4 variants) $c s; evaluate x4 $total s"
  compare_times+=("$c"); evaluate_times+=("$total")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mc=$(median "${compare_times[@]}"); me=$(median "${evaluate_times[@]}")
echo "median: compare $mc s, four evaluate runs $me s: compare takes $(echo "scale=2; $mc / $me" | bc) of four runs ($(echo "scale=2; 4 * $mc / $me" | bc) runs' worth)"
