#!/bin/bash
# What `evaluate --state` costs: the same run with and without a state, alternating round by round so
# that a noisy machine slows both alike, and the state file's size per condition and per device.
#
# usage: Benchmarks/checkpoint-cost.sh ROUNDS CPUS CONDITIONS OBSERVATIONS PERIMETER [EXTRA FLAGS...]
#   e.g. Benchmarks/checkpoint-cost.sh 3 0,1 .build/workloads-10m/mixed.geojson .build/workloads-10m/fixes.csv \
#            .build/release/perimeter
# Events go to a file in a scratch folder in both runs (a state needs --out). Each --state run starts
# from a new state file, with the default checkpoint interval (10 s) unless EXTRA says otherwise.
set -euo pipefail
rounds=$1; cpus=$2; conditions=$3; observations=$4; tool=$5; shift 5
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
timing=$scratch/time
plain=(); state=()
for _ in $(seq "$rounds"); do
  rm -f "$scratch"/events.jsonl
  /usr/bin/time -f "%e" -o "$timing" taskset -c "$cpus" "$tool" evaluate --assume unsatisfied \
      --conditions "$conditions" --observations "$observations" --out "$scratch/events.jsonl" 2> /dev/null
  plain+=("$(tail -n 1 "$timing")")
  rm -f "$scratch"/events.jsonl "$scratch"/state.sqlite
  /usr/bin/time -f "%e" -o "$timing" taskset -c "$cpus" "$tool" evaluate --assume unsatisfied \
      --conditions "$conditions" --observations "$observations" --out "$scratch/events.jsonl" \
      --state "$scratch/state.sqlite" --final "$@" 2> "$scratch/stderr" || { cat "$scratch/stderr"; exit 1; }
  state+=("$(tail -n 1 "$timing")")
done
sorted() { printf '%s\n' "$@" | sort -n | tr '\n' ' '; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "without --state: $(sorted "${plain[@]}")s"
echo "with --state:    $(sorted "${state[@]}")s"
echo "median ratio:    $(python3 -c "print(f'{$(median "${state[@]}") / $(median "${plain[@]}"):.3f}')")"

# The state's size: conditions alone (a run over no records), then with every device.
: > "$scratch/empty.jsonl"
"$tool" evaluate --assume unsatisfied --conditions "$conditions" --observations "$scratch/empty.jsonl" \
    --out "$scratch/none.jsonl" --state "$scratch/conditions.sqlite" 2> /dev/null
python3 - "$scratch/conditions.sqlite" "$scratch/state.sqlite" <<'PY'
import os, sqlite3, sys
def counts(path):
    c = sqlite3.connect(path)
    return [c.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("condition", "device")]
bare, full = sys.argv[1], sys.argv[2]
conditions, _ = counts(bare)
_, devices = counts(full)
size_bare, size_full = os.path.getsize(bare), os.path.getsize(full)
print(f"state file: {size_full / 1e6:.1f} MB with {conditions} conditions and {devices} devices; "
      f"{size_bare / conditions:.0f} bytes a condition, {(size_full - size_bare) / max(devices, 1):.0f} bytes a device")
PY
