#!/bin/bash
# Runs `perimeter evaluate ARGS...` once per thread count and checks that every run writes the same
# bytes, hashing the output a million lines at a time in the pipe (tools/chunkhash.c), so that even
# outputs of a hundred gigabytes never touch the disk. Prints each run's time and the first chunk
# where two runs differ, if any; exits 1 then.
#
# usage: Benchmarks/tools/same-bytes.sh "1 2" PERIMETER evaluate ARGS...
#   e.g. Benchmarks/tools/same-bytes.sh "1 2" .build/release/perimeter evaluate \
#            --initial-authorization notDetermined --conditions .build/workloads-text/beacons.geojson \
#            --observations .build/workloads-text/sightings.jsonl
set -euo pipefail
threads=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/chunkhash" "$here/chunkhash.c"
first=""
status=0
for t in $threads; do
    start=$(date +%s%N)
    "$@" --threads "$t" 2> /dev/null | "$work/chunkhash" > "$work/threads-$t"
    elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "--threads $t: $elapsed ms, $(tail -n 1 "$work/threads-$t" | awk '{print $4}') lines"
    if [ -z "$first" ]; then
        first=$t
    elif ! cmp -s "$work/threads-$first" "$work/threads-$t"; then
        echo "--threads $t differs from --threads $first, first at line $(diff "$work/threads-$first" "$work/threads-$t" | grep -m1 '^>' | awk '{print $2}')"
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "same bytes"
exit $status
