#!/usr/bin/env python3
"""Check perimeter_spark.py against one `perimeter evaluate` run. Exit status 0 if all pass, else 1.

    python3 Integrations/spark/check_spark_job.py [--perimeter PATH] [--quick]

Runs the job in local[2,3] (2 threads, a task may be tried 3 times) in one SparkSession, on
  - Fixtures/city/observations.jsonl and .csv with 1, 2 and 7 partitions, Parquet and JSON Lines;
  - Fixtures/scenarios/05-provisional-displaced with its extra flags (held and dropped events);
  - Fixtures/audiences/02-groups-file with --groups;
  - a task of partition 0 that fails once before writing anything (same events after the retry);
  - a bad record at line 100 of a copy of city/observations.jsonl and .csv: the job must fail naming
    that file and line 100;
  - city split into parts: JSON Lines in a directory (with an empty part and _SUCCESS), CSV parts
    each with its header (a glob), Parquet parts with a timestamp column; a bad record in a CSV
    part, named by that part and its own line;
  - --quarantine: two bad records set aside, equal to the tool's own quarantine lines;
  - an existing --out or --quarantine, and an --out that is the input: refused, nothing touched;
  - a byte order mark, blank lines, a device spelt in NFC and in NFD, names needing JSON escapes
    and CSV quotes, `device` not the first member, and files cut into 2 KB splits;
then through `spark-submit` (the command line a user runs): in local mode, and to a standalone
cluster of one master and one worker started on this machine (check_spark_cluster.py), whose
executor gets the binary, the conditions and the job's modules only through Spark's shipping.
For each run: the events, as canonical JSON lines, are the same multiset as the tool's, and each
device's events come in the tool's order.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_spark_cluster  # noqa: E402
import check_spark_inputs  # noqa: E402
from check_support import (FAILURES, HERE, REPO, check, compare, expect_failure, run,  # noqa: E402
                           spark_events, tool_events)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--perimeter", default=os.path.join(REPO, ".build", "release", "perimeter"))
    p.add_argument("--quick", action="store_true", help="skip the spark-submit runs")
    opts = p.parse_args()
    perimeter = opts.perimeter
    if not os.path.isfile(perimeter):
        print(f"no perimeter binary at {perimeter}: swift build -c release --static-swift-stdlib --product perimeter")
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
            expect_failure(spark, tmp, f"bad record at line 100 of {ext}, N=3",
                           P + ["--conditions", cond, "--observations", bad, "--partitions", "3"],
                           f'{bad}:100: field "lat"')

        check_spark_inputs.check_inputs(spark, perimeter, tmp, cond)
        check_spark_inputs.check_tricky(spark, perimeter, tmp, cond)
        check_spark_inputs.check_refusals(spark, perimeter, tmp, cond)
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
        check_spark_cluster.check_standalone(perimeter, tmp, cond, obs)

    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + str(len(FAILURES)) if FAILURES else 'all passed'} "
          f"in {time.time() - t0:.1f} s")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
