#!/bin/bash
# Times `perimeter evaluate` for several builds of the tool, alternating them round by round so that
# a noisy machine slows them alike, and prints each build's wall times, fastest first.
#
# usage: Benchmarks/alternate.sh ROUNDS CPUS CONDITIONS OBSERVATIONS PERIMETER...
#   e.g. Benchmarks/alternate.sh 5 0 .build/workloads-text/mixed.geojson .build/workloads-text/fixes.csv \
#            /tmp/old/.build/release/perimeter .build/release/perimeter
# CPUS is a taskset list (0, or 0,1). Outputs go to /dev/null.
set -euo pipefail
rounds=$1; cpus=$2; conditions=$3; observations=$4; shift 4
declare -A times
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
for _ in $(seq "$rounds"); do
  for tool in "$@"; do
    /usr/bin/time -f "%e" -o "$timing" taskset -c "$cpus" "$tool" evaluate --assume unsatisfied \
        --conditions "$conditions" --observations "$observations" > /dev/null 2> /dev/null
    t=$(tail -n 1 "$timing")
    times[$tool]="${times[$tool]:-} $t"
  done
done
for tool in "$@"; do
  echo "$tool: $(echo ${times[$tool]} | tr ' ' '\n' | sort -n | tr '\n' ' ')"
done
