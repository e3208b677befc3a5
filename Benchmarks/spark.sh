#!/bin/bash
# Perimeter on Spark against the tool alone and against what a Spark user writes today with shapely.
#
# usage: Benchmarks/spark.sh ROUNDS RECORDS_FILE CONDITIONS [PARTITIONS]
#   e.g. Benchmarks/spark.sh 3 .build/workloads-text/fixes.csv .build/workloads-text/mixed.geojson
#
# Round by round (alternating, so noise hits all alike) it times with /usr/bin/time -f %e:
#   tool    .build/release/perimeter evaluate --assume unsatisfied on the file, events to a file
#   spark   spark-submit --master local[2] Integrations/spark/perimeter_spark.py
#           --partitions P ... -- --assume unsatisfied, Parquet out (wall time includes JVM start)
#   shapely spark-submit --master local[2] Benchmarks/spark/shapely_job.py --partitions P,
#           stateless containment pairs, Parquet out
#   spark-cat  (NULL_RUNNER=1, the default; NULL_RUNNER=0 skips it) perimeter_spark.py with a
#           `cat > /dev/null` script as the binary: Spark's own cost (JVM, read, number, sort by
#           device, the pipe) without evaluation or events
# and prints, per variant, the times, the median, records/s (data lines of the file / median) and
# the ratio of the median to the tool's. PARTITIONS defaults to 2. Both Spark jobs run with the same
# spark-submit options (SPARK_OPTS, default --driver-memory 4g) and an event log, from which the
# last round's Spark stage times are printed (where the Spark run's time goes).
# Outputs go to a scratch directory removed at exit.
set -euo pipefail
if [ $# -lt 3 ]; then sed -n 2,4p "$0" >&2; exit 2; fi
rounds=$1; records=$2; conditions=$3; partitions=${4:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
perimeter=${PERIMETER:-$root/.build/release/perimeter}
null_runner=${NULL_RUNNER:-1}
read -r -a spark_opts <<< "${SPARK_OPTS:---driver-memory 4g}"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/perimeter-spark-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/events"
printf '#!/bin/sh\nexec cat > /dev/null\n' > "$scratch/cat-perimeter"
chmod +x "$scratch/cat-perimeter"

n=$(( $(wc -l < "$records") ))
case "$records" in *.csv) n=$(( n - 1 ));; esac   # the header is not a record

submit=(spark-submit --master 'local[2]' "${spark_opts[@]}"
        --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file://$scratch/events"
        --conf spark.eventLog.rolling.enabled=false --conf spark.eventLog.compress=false
        --conf spark.ui.showConsoleProgress=false)

variants=(tool spark shapely)
[ "$null_runner" = 1 ] && variants+=(spark-cat)
declare -A times
timing=$scratch/time
run() {  # run VARIANT ROUND
  local v=$1 r=$2 log=$scratch/$1.log
  case $v in
    tool)
      /usr/bin/time -f %e -o "$timing" "$perimeter" evaluate --assume unsatisfied \
          --conditions "$conditions" --observations "$records" --out "$scratch/tool-events.jsonl" \
          > "$log" 2>&1 ;;
    spark)
      /usr/bin/time -f %e -o "$timing" "${submit[@]}" --conf "spark.bench.label=spark-r$r" \
          "$root/Integrations/spark/perimeter_spark.py" --conditions "$conditions" \
          --observations "$records" --out "$scratch/spark-out" --mode overwrite \
          --partitions "$partitions" --perimeter "$perimeter" -- --assume unsatisfied \
          > "$log" 2>&1 ;;
    spark-cat)
      /usr/bin/time -f %e -o "$timing" "${submit[@]}" --conf "spark.bench.label=spark-cat-r$r" \
          "$root/Integrations/spark/perimeter_spark.py" --conditions "$conditions" \
          --observations "$records" --out "$scratch/spark-cat-out" --mode overwrite \
          --partitions "$partitions" --perimeter "$scratch/cat-perimeter" \
          > "$log" 2>&1 ;;
    shapely)
      /usr/bin/time -f %e -o "$timing" "${submit[@]}" --conf "spark.bench.label=shapely-r$r" \
          "$root/Benchmarks/spark/shapely_job.py" --conditions "$conditions" \
          --observations "$records" --out "$scratch/shapely-out" --partitions "$partitions" \
          > "$log" 2>&1 ;;
  esac || { echo "spark.sh: $v failed (round $r):" >&2; tail -n 30 "$log" >&2; exit 1; }
  times[$v]="${times[$v]:-} $(tail -n 1 "$timing")"
  echo "round $r $v $(tail -n 1 "$timing") s" >&2
}

for r in $(seq "$rounds"); do
  for v in "${variants[@]}"; do run "$v" "$r"; done
done

# Sizes of the last round's outputs, as a check that every variant did its work.
tool_events=$(wc -l < "$scratch/tool-events.jsonl")
spark_rows=$(python3 -c "import pyarrow.parquet as pq, sys; print(pq.read_table(sys.argv[1]).num_rows)" "$scratch/spark-out")
shapely_rows=$(python3 -c "import pyarrow.parquet as pq, sys; print(pq.read_table(sys.argv[1]).num_rows)" "$scratch/shapely-out")

echo
echo "records: $n ($records), conditions: $conditions, partitions: $partitions, rounds: $rounds"
echo "outputs: tool $tool_events events, spark $spark_rows events, shapely $shapely_rows containment pairs"
python3 - "$n" "${variants[@]}" <<PY
import statistics, sys
n = int(sys.argv[1])
times = {$(for v in "${variants[@]}"; do printf '"%s": [%s], ' "$v" "$(echo ${times[$v]} | tr ' ' ',')"; done)}
base = statistics.median(times["tool"])
print(f"{'variant':<10} {'times (s)':<28} {'median':>7} {'records/s':>12} {'x tool':>7}")
for v in sys.argv[2:]:
    m = statistics.median(times[v])
    print(f"{v:<10} {' '.join(f'{t:.2f}' for t in times[v]):<28} {m:7.2f} {n / m:12,.0f} {m / base:7.2f}")
PY

echo
echo "where the last round's Spark time goes (event log: application start to end, jobs, stages):"
python3 - "$scratch/events" "$rounds" <<'PY'
import glob, json, os, sys
d, last = sys.argv[1], sys.argv[2]
for path in sorted(glob.glob(os.path.join(d, "*"))):
    ev = [json.loads(l) for l in open(path) if l.strip()]
    app = next((e for e in ev if e["Event"] == "SparkListenerApplicationStart"), None)
    env = next((e for e in ev if e["Event"] == "SparkListenerEnvironmentUpdate"), {})
    label = dict(env.get("Spark Properties", [])).get("spark.bench.label", "")
    if app is None or not label.endswith(f"-r{last}"):
        continue
    end = next((e["Timestamp"] for e in ev if e["Event"] == "SparkListenerApplicationEnd"), None)
    t0 = app["Timestamp"]
    print(f"{label} ({app['App Name']}): SparkContext up to stopped {((end or t0) - t0) / 1000:.2f} s")
    tasks = {}
    for e in ev:
        if e["Event"] == "SparkListenerTaskEnd":
            tasks.setdefault(e["Stage ID"], []).append(e)
    for e in ev:
        if e["Event"] == "SparkListenerJobStart":
            print(f"  job {e['Job ID']} starts at +{(e['Submission Time'] - t0) / 1000:.2f} s")
        if e["Event"] == "SparkListenerStageCompleted":
            s = e["Stage Info"]
            st = tasks.get(s["Stage ID"], [])
            run = sum(t["Task Metrics"]["Executor Run Time"] for t in st if t.get("Task Metrics")) / 1000
            shw = sum(t["Task Metrics"]["Shuffle Write Metrics"]["Shuffle Bytes Written"]
                      for t in st if t.get("Task Metrics")) / 1e6
            print(f"    stage {s['Stage ID']:>2} {s['Stage Name'][:48]:<48} "
                  f"+{(s['Submission Time'] - t0) / 1000:6.2f} s  {(s['Completion Time'] - s['Submission Time']) / 1000:6.2f} s wall, "
                  f"{len(st)} tasks, {run:6.2f} s task run, {shw:7.1f} MB shuffle written")
PY
