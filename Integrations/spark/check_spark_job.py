#!/usr/bin/env python3
"""Check perimeter_spark.py against one `perimeter evaluate` run. Exit status 0 if all pass, else 1.

    python3 Integrations/spark/check_spark_job.py [--perimeter PATH] [--quick]

Runs the job in local[2,3] (2 threads, a task may be tried 3 times) in one SparkSession, on
  - Fixtures/city/observations.jsonl and .csv with 1, 2 and 7 partitions, Parquet and JSON Lines;
  - Fixtures/scenarios/05-provisional-displaced with its extra flags (held and dropped events);
  - Fixtures/audiences/02-groups-file with --groups;
  - a task of partition 0 that fails once before writing anything (same events after the retry);
  - a bad record at line 100 of a copy of city/observations.jsonl: the job must fail naming
    that file and line 100;
and once through `spark-submit` (the command line a user runs).
For each run: the events, as canonical JSON lines, are the same multiset as the tool's, and each
device's events come in the tool's order.
"""

import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import perimeter_spark  # noqa: E402

FAILURES = []


def check(cond, what):
    if cond:
        print(f"  ok   {what}")
    else:
        print(f"  FAIL {what}")
        FAILURES.append(what)


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tool_events(perimeter, conditions, observations, groups=None, extra=()):
    cmd = [perimeter, "evaluate", "--conditions", conditions, "--observations", observations,
           "--out", "-"]
    if groups:
        cmd += ["--groups", groups]
    cmd += list(extra)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return [canonical(json.loads(l)) for l in out.decode("utf-8").splitlines() if l.strip()]


def spark_events(spark, out_dir, out_format, files=None):
    """The job's events, file by file, each file's rows in its order; `files` gets the number of
    events of each part file."""
    events = []
    suffix = ".parquet" if out_format == "parquet" else ".json"
    for f in sorted(glob.glob(os.path.join(out_dir, "part-*" + suffix))):
        if out_format == "parquet":
            rows = spark.read.schema(perimeter_spark.EVENT_SCHEMA).parquet(f).collect()
            for r in rows:
                events.append(canonical(r.asDict(recursive=True)))
        else:
            with open(f, encoding="utf-8") as fh:
                events += [canonical(json.loads(l)) for l in fh if l.strip()]
        if files is not None:
            files.append(len(events) - sum(files))
    return events


def by_device(lines):
    d = collections.defaultdict(list)
    for l in lines:
        d[json.loads(l)["device"]].append(l)
    return d


def compare(expected, got, label):
    check(len(expected) > 0, f"{label}: the tool wrote events ({len(expected)})")
    check(collections.Counter(expected) == collections.Counter(got),
          f"{label}: same multiset of events ({len(got)} vs {len(expected)})")
    check(by_device(expected) == by_device(got), f"{label}: same order per device")


def run(spark, tmp, label, args):
    out = os.path.join(tmp, label.replace(" ", "_").replace("/", "_"))
    a = perimeter_spark.parse_args(args[:args.index("--")] + ["--out", out] + args[args.index("--"):]
                                   if "--" in args else args + ["--out", out])
    t = time.time()
    perimeter_spark.run_job(spark, a)
    print(f"  {label}: {time.time() - t:.2f} s")
    files = []
    events = spark_events(spark, out, a.out_format, files)
    print(f"  events per part file: {files}")
    if a.partitions and a.partitions > 1 and len(by_device(events)) > 1:
        check(len([k for k in files if k]) > 1, f"{label}: events from more than one partition")
    return events


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--perimeter", default=os.path.join(REPO, ".build", "release", "perimeter"))
    p.add_argument("--quick", action="store_true", help="skip the spark-submit run")
    opts = p.parse_args()
    perimeter = opts.perimeter
    if not os.path.isfile(perimeter):
        print(f"no perimeter binary at {perimeter}: swift build -c release --product perimeter")
        return 1

    from pyspark.sql import SparkSession
    t0 = time.time()
    spark = (SparkSession.builder.master("local[2,3]").appName("check-perimeter-spark")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    print(f"SparkSession local[2,3] in {time.time() - t0:.1f} s")
    tmp = tempfile.mkdtemp(prefix="check-perimeter-spark-")
    try:
        city = os.path.join(REPO, "Fixtures", "city")
        cond = os.path.join(city, "conditions.geojson")
        P = ["--perimeter", perimeter]

        for ext in ("jsonl", "csv"):
            obs = os.path.join(city, "observations." + ext)
            expected = tool_events(perimeter, cond, obs)
            for n in (1, 2, 7):
                for fmt in (("parquet", "jsonl") if n == 2 else ("parquet",)):
                    label = f"city {ext} N={n} {fmt}"
                    print(label)
                    got = run(spark, tmp, label, P + ["--conditions", cond, "--observations", obs,
                                                      "--partitions", str(n), "--out-format", fmt])
                    compare(expected, got, label)

        # Extra flags; held and dropped events (reason, diagnostics).
        sc5 = os.path.join(REPO, "Fixtures", "scenarios", "05-provisional-displaced")
        extra = open(os.path.join(sc5, "args.txt")).read().split()
        expected = tool_events(perimeter, os.path.join(sc5, "conditions.geojson"),
                               os.path.join(sc5, "observations.jsonl"), extra=extra)
        for n in (1, 7):
            label = f"scenario 05 N={n}"
            print(label)
            got = run(spark, tmp, label, P + ["--conditions", os.path.join(sc5, "conditions.geojson"),
                                              "--observations", os.path.join(sc5, "observations.jsonl"),
                                              "--partitions", str(n), "--"] + extra)
            compare(expected, got, label)

        # Groups file.
        au = os.path.join(REPO, "Fixtures", "audiences", "02-groups-file")
        expected = tool_events(perimeter, os.path.join(au, "conditions.geojson"),
                               os.path.join(au, "observations.jsonl"),
                               groups=os.path.join(au, "groups.csv"))
        label = "audiences 02 groups N=3"
        print(label)
        got = run(spark, tmp, label, P + ["--conditions", os.path.join(au, "conditions.geojson"),
                                          "--observations", os.path.join(au, "observations.jsonl"),
                                          "--groups", os.path.join(au, "groups.csv"),
                                          "--partitions", "3"])
        compare(expected, got, label)

        # A task that fails once, then succeeds on its second attempt.
        obs = os.path.join(city, "observations.jsonl")
        expected = tool_events(perimeter, cond, obs)
        marker = os.path.join(tmp, "failed-once")
        label = "city jsonl N=2 partition 0 fails once"
        print(label)
        got = run(spark, tmp, label, P + ["--conditions", cond, "--observations", obs,
                                          "--partitions", "2", "--test-fail-once", marker])
        check(os.path.exists(marker), f"{label}: the injected failure happened")
        compare(expected, got, label)

        # A bad record: the job fails, naming the original file and line.
        for ext in ("jsonl", "csv"):
            src = os.path.join(city, "observations." + ext)
            bad = os.path.join(tmp, "bad." + ext)
            with open(src, encoding="utf-8") as f:
                lines = f.read().splitlines()
            if ext == "jsonl":
                rec = json.loads(lines[99])
                rec["lat"] = 95.0
                lines[99] = json.dumps(rec)
            else:
                cells = lines[99].split(",")
                cells[3] = "95.0"
                lines[99] = ",".join(cells)
            with open(bad, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            label = f"bad record at line 100 of {ext}, N=3"
            print(label)
            try:
                run(spark, tmp, label, P + ["--conditions", cond, "--observations", bad,
                                            "--partitions", "3"])
                check(False, f"{label}: the job failed")
            except Exception as e:  # Py4JJavaError / PythonException with the worker's traceback
                msg = str(e)
                check(True, f"{label}: the job failed")
                check(f'{bad}:100: field "lat"' in msg,
                      f"{label}: the error names {os.path.basename(bad)}:100 and the field")
                check("<stdin>" not in msg, f"{label}: no unmapped <stdin>:LINE left")
                for l in msg.splitlines():
                    if "perimeter: error" in l:
                        print("       " + l.strip()[:200])
    finally:
        spark.stop()

    if not opts.quick:
        # The command line, through spark-submit.
        obs = os.path.join(city, "observations.csv")
        expected = tool_events(perimeter, cond, obs)
        out = os.path.join(tmp, "spark-submit-out")
        label = "spark-submit city csv N=7 jsonl"
        print(label)
        cmd = [shutil.which("spark-submit") or "spark-submit", "--master", "local[2]",
               "--conf", "spark.ui.enabled=false",
               os.path.join(HERE, "perimeter_spark.py"), "--perimeter", perimeter,
               "--conditions", cond, "--observations", obs, "--out", out,
               "--partitions", "7", "--out-format", "jsonl"]
        t = time.time()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        print(f"  {label}: {time.time() - t:.2f} s (JVM start included)")
        check(r.returncode == 0, f"{label}: exit status 0 (got {r.returncode})")
        if r.returncode != 0:
            print(r.stderr.decode("utf-8", "replace")[-3000:])
        else:
            compare(expected, spark_events(None, out, "jsonl"), label)

    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + str(len(FAILURES)) if FAILURES else 'all passed'} "
          f"in {time.time() - t0:.1f} s")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
