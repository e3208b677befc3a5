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
  - a byte order mark, blank lines, a device spelt in NFC and in NFD, names needing JSON escapes
    and CSV quotes, `device` not the first member, and files cut into 2 KB splits;
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


def run(spark, tmp, label, args, out=None):
    out = out or os.path.join(tmp, label.replace(" ", "_").replace("/", "_").replace(",", ""))
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


def write_parts(directory, pieces, names):
    os.makedirs(directory)
    for name, lines in zip(names, pieces):
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in lines))


def check_inputs(spark, perimeter, tmp, cond):
    """Several files as one stream (JSON Lines, CSV with a header in each, Parquet with a timestamp
    column), and the quarantine."""
    P = ["--perimeter", perimeter, "--conditions", cond]
    city = os.path.join(REPO, "Fixtures", "city")
    jsonl = open(os.path.join(city, "observations.jsonl"), encoding="utf-8").read().splitlines()
    cuts = [0, 60, 61, 140, len(jsonl)]  # a one-line part too
    pieces = [jsonl[a:b] for a, b in zip(cuts, cuts[1:])]

    # JSON Lines: a directory of parts, an empty one and Spark's _SUCCESS among them.
    parts = os.path.join(tmp, "jsonl-parts")
    write_parts(parts, pieces + [[]], ["part-00000.jsonl", "part-00001.jsonl", "part-00002.jsonl",
                                       "part-00003.jsonl", "part-00004.jsonl"])
    open(os.path.join(parts, "_SUCCESS"), "w").close()
    expected = tool_events(perimeter, cond, os.path.join(city, "observations.jsonl"))
    label = "city jsonl in 4 parts + an empty one, N=3"
    print(label)
    out = os.path.join(tmp, "jsonl-parts-out")
    got = run(spark, tmp, label, P + ["--observations", parts, "--partitions", "3"], out=out)
    compare(expected, got, label)
    sources = [json.loads(l) for f in sorted(glob.glob(os.path.join(out, "_sources", "part-*")))
               for l in open(f, encoding="utf-8") if l.strip()]
    check([(os.path.basename(s["file"]), s["first"], s["lines"]) for s in sources] ==
          [("part-0000%d.jsonl" % i, 1 + cuts[i], len(pieces[i])) for i in range(4)],
          f"{label}: _sources lists each part (Spark skips the empty one) with its first position "
          "and its lines")

    # CSV: each part has its header. A position counts every line, headers too, so the tool's
    # causes over one file are mapped to the parts' positions.
    csv_lines = open(os.path.join(city, "observations.csv"), encoding="utf-8").read().splitlines()
    header, rows = csv_lines[0], csv_lines[1:]
    pieces = [rows[a:b] for a, b in zip([0, 70, 150], [70, 150, len(rows)])]
    parts = os.path.join(tmp, "csv-parts")
    write_parts(parts, [[header] + p for p in pieces], ["a.csv", "b.csv", "c.csv"])
    position = {1: 1}  # the one file's line -> the parts' position
    line, pos = 1, 0
    for p in pieces:
        pos += 1  # this part's header
        for _ in p:
            line += 1
            pos += 1
            position[line] = pos
    expected = [canonical(dict(json.loads(e), cause=position[json.loads(e)["cause"]]))
                for e in tool_events(perimeter, cond, os.path.join(city, "observations.csv"))]
    label = "city csv in 3 parts, N=2"
    print(label)
    got = run(spark, tmp, label, P + ["--observations", os.path.join(parts, "*.csv"),
                                      "--partitions", "2"])
    compare(expected, got, label)

    bad_parts = os.path.join(tmp, "csv-bad-parts")
    broken = [list(p) for p in pieces]
    cells = broken[1][9].split(",")
    cells[3] = "95.0"
    broken[1][9] = ",".join(cells)  # line 11 of b.csv (line 1 is its header)
    write_parts(bad_parts, [[header] + p for p in broken], ["a.csv", "b.csv", "c.csv"])
    expect_failure(spark, tmp, "bad record at line 11 of the second CSV part",
                   P + ["--observations", bad_parts, "--input-format", "csv", "--partitions", "2"],
                   os.path.join(bad_parts, "b.csv") + ':11: field "lat"')

    # Parquet: three files written in order, `t` a timestamp column.
    from pyspark.sql import functions as F
    schema = spark.read.json(os.path.join(city, "observations.jsonl")).schema
    parts = os.path.join(tmp, "parquet-parts")
    os.makedirs(parts)
    for i, (a, b) in enumerate(zip([0, 90, 91], [90, 91, len(jsonl)])):
        piece = os.path.join(tmp, f"piece-{i}.jsonl")
        write_parts_file(piece, jsonl[a:b])
        staged = os.path.join(tmp, f"piece-{i}.parquet")
        (spark.read.schema(schema).json(piece).coalesce(1)
         .withColumn("t", F.when(F.col("t").rlike("^[0-9.]+$"),
                                 F.timestamp_seconds(F.col("t").cast("decimal(20,6)")))
                     .otherwise(F.to_timestamp("t")))
         .write.parquet(staged))
        [f] = glob.glob(os.path.join(staged, "part-*.parquet"))
        shutil.move(f, os.path.join(parts, f"part-{i:05d}.parquet"))
    expected = tool_events(perimeter, cond, os.path.join(city, "observations.jsonl"))
    label = "city as 3 Parquet files with a timestamp column, N=7"
    print(label)
    got = run(spark, tmp, label, P + ["--observations", parts, "--input-format", "parquet",
                                      "--partitions", "7", "--out-format", "jsonl"])
    compare(expected, got, label)

    # Quarantine: two bad records set aside, the events those of the tool's own --quarantine run.
    bad = os.path.join(tmp, "quarantine.jsonl")
    lines = list(jsonl)
    for i, field, value in ((99, "lat", 95.0), (149, "lon", 200.0)):
        rec = json.loads(lines[i])
        rec[field] = value
        lines[i] = json.dumps(rec)
    write_parts_file(bad, lines)
    tool_quarantine = os.path.join(tmp, "tool-quarantine.jsonl")
    expected = tool_events(perimeter, cond, bad, extra=["--quarantine", tool_quarantine])
    label = "city jsonl with 2 bad records, --quarantine, N=3"
    print(label)
    qdir = os.path.join(tmp, "quarantine-out")
    got = run(spark, tmp, label, P + ["--observations", bad, "--partitions", "3",
                                      "--quarantine", qdir])
    compare(expected, got, label)
    want = [canonical(json.loads(l)) for l in open(tool_quarantine, encoding="utf-8")]
    have = [canonical({k: v for k, v in json.loads(l).items() if v is not None})
            for f in sorted(glob.glob(os.path.join(qdir, "part-*"))) for l in open(f, encoding="utf-8")
            if l.strip()]
    if have != want:
        print(f"  tool: {want}\n  job:  {have}")
    check(len(want) == 2 and have == want,
          f"{label}: the quarantine holds the tool's own quarantine lines ({len(have)} vs {len(want)})")


def check_tricky(spark, perimeter, tmp, cond):
    """Input that is easy to get wrong: a byte order mark, blank lines, one device spelt in NFC and
    in NFD, a name that needs JSON escapes or CSV quotes, `device` not the first member; and files
    cut into many small splits, so that positions cross split and partition boundaries."""
    import csv
    import io
    import unicodedata
    city = os.path.join(REPO, "Fixtures", "city")
    names = {"alice": ["Zo\u00e9", unicodedata.normalize("NFD", "Zo\u00e9")],
             "bob": ['Smith, "J"', 'Smith, "J"']}

    out = []
    for i, line in enumerate(open(os.path.join(city, "observations.jsonl"), encoding="utf-8")):
        rec = json.loads(line)
        rec["device"] = names.get(rec["device"], [rec["device"]] * 2)[i % 2]
        if i % 3 == 0:
            rec = dict(sorted(rec.items(), key=lambda kv: kv[0] == "device"))  # device last
        out.append(json.dumps(rec, ensure_ascii=(i % 4 == 0)))
        if i % 37 == 5:
            out.append(" \t")
    jsonl = os.path.join(tmp, "tricky.jsonl")
    with open(jsonl, "w", encoding="utf-8") as f:
        f.write("\ufeff" + "\n".join(out) + "\n\n")

    rows = list(csv.reader(open(os.path.join(city, "observations.csv"), encoding="utf-8")))
    k = rows[0].index("device")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(rows[0])
    for i, r in enumerate(rows[1:]):
        r[k] = names.get(r[k], [r[k]] * 2)[i % 2]
        w.writerow(r)
        if i % 41 == 7:
            buf.write("\n")
    tricky_csv = os.path.join(tmp, "tricky.csv")
    with open(tricky_csv, "w", encoding="utf-8") as f:
        f.write("\ufeff" + buf.getvalue())

    for path in (jsonl, tricky_csv):
        expected = tool_events(perimeter, cond, path)
        check(len({json.loads(e)["device"] for e in expected} & {"Zo\u00e9", 'Smith, "J"'}) == 2,
              f"{os.path.basename(path)}: the tool's events name the renamed devices")
        for split_bytes in (None, "2048"):
            label = f"{os.path.basename(path)} N=7" + (f" splits of {split_bytes} B" if split_bytes else "")
            print(label)
            if split_bytes:
                spark.conf.set("spark.sql.files.maxPartitionBytes", split_bytes)
                spark.conf.set("spark.sql.files.openCostInBytes", "1")
            try:
                got = run(spark, tmp, label, ["--perimeter", perimeter, "--conditions", cond,
                                              "--observations", path, "--partitions", "7"])
            finally:
                spark.conf.unset("spark.sql.files.maxPartitionBytes")
                spark.conf.unset("spark.sql.files.openCostInBytes")
            compare(expected, got, label)


def write_parts_file(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in lines))


def expect_failure(spark, tmp, label, args, needle):
    print(label)
    try:
        run(spark, tmp, label, args)
        check(False, f"{label}: the job failed")
    except Exception as e:  # Py4JJavaError / PythonException with the worker's traceback
        msg = str(e)
        check(True, f"{label}: the job failed")
        check(needle in msg, f"{label}: the error names {needle}")
        check("<stdin>" not in msg, f"{label}: no unmapped <stdin>:LINE left")
        for l in msg.splitlines():
            if "perimeter: error" in l:
                print("       " + l.strip()[:200])


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
            expect_failure(spark, tmp, f"bad record at line 100 of {ext}, N=3",
                           P + ["--conditions", cond, "--observations", bad, "--partitions", "3"],
                           f'{bad}:100: field "lat"')

        check_inputs(spark, perimeter, tmp, cond)
        check_tricky(spark, perimeter, tmp, cond)
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
