#!/bin/bash
# Times reading one long line from a file and from a pipe (standard input), side by side in one
# run, so that the pipe's cost shows as a ratio to the file's: reading must be linear whatever the
# source. Each input is a fix record with one field of SIZE MB, which the reader refuses after
# reading the whole line (so the run stops there, exit 1), then one good line.
#
# usage: Benchmarks/tools/long-lines.sh PERIMETER [SIZES_MB...]   (default sizes: 25 50 100)
set -uo pipefail
perimeter=$1; shift
sizes=${*:-25 50 100}
work=$(mktemp -d /tmp/long-lines-XXXX)
trap 'rm -rf "$work"' EXIT
conditions=$(dirname "$0")/../../Fixtures/city/conditions.geojson
printf '%-8s %-22s %-22s %s\n' "MB" "file: s (peak MB)" "pipe: s (peak MB)" "pipe/file"
for mb in $sizes; do
    f="$work/line-$mb.jsonl"
    python3 - "$f" "$mb" <<'PY'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
with open(path, "w") as out:
    out.write('{"type":"fix","device":"d","t":1,"lat":0,"lon":0,"accuracy":1,"note":"' + "x" * (mb << 20) + '"}\n')
    out.write('{"type":"fix","device":"d","t":2,"lat":0,"lon":0,"accuracy":1}\n')
PY
    # The line is read whole: the limit is set above it.
    read -r fs fk < <( { /usr/bin/time -f '%e %M' "$perimeter" evaluate --conditions "$conditions" --observations "$f" --max-line-bytes 2000000000 --out /dev/null 2>/dev/null; } 2>&1 | tail -1)
    read -r ps pk < <( { /usr/bin/time -f '%e %M' sh -c "cat '$f' | '$perimeter' evaluate --conditions '$conditions' --observations - --max-line-bytes 2000000000 --out /dev/null 2>/dev/null"; } 2>&1 | tail -1)
    printf '%-8s %-22s %-22s %.2f\n' "$mb" "$fs ($((fk / 1024)))" "$ps ($((pk / 1024)))" "$(echo "$ps / $fs" | bc -l)"
    rm -f "$f"
done
