#!/usr/bin/env python3
"""Run `perimeter evaluate` over a recorded stream with PySpark, partitioned by device.

    spark-submit Integrations/spark/perimeter_spark.py \
        --conditions C --observations O --out DIR \
        [--input-format jsonl|csv] [--out-format parquet|jsonl] [--partitions N] \
        [--groups G] [--perimeter PATH] [-- extra evaluate flags, e.g. --assume unsatisfied]

What it does
------------
1. Reads the observations as text lines (`sc.textFile`) and numbers them with their original
   1-based line number (`zipWithIndex`). ONE input file (or one path Spark reads as one ordered
   text file) is supported in this first step: line numbers are those of that file.
   Blank lines (nothing but spaces and tabs) are dropped: the tool skips them too, and they
   keep counting in line numbers because the numbering is done before.
   For CSV, line 1 is the header: it is not a record, it is sent first to every partition's tool
   process.
2. Takes each record's device name (JSON Lines: the `device` member; CSV: the `device` column as
   the header names it), NFC-normalised (the tool treats canonically equivalent spellings as one
   device), and keys the record by `(bucket, line)` with bucket = zlib.crc32(UTF-8 name) % N.
   A line whose device cannot be read (not JSON, no `device`, ...) goes to bucket 0, so that the
   tool sees it and refuses it, naming it.
   `repartitionAndSortWithinPartitions` with partitionFunc = the bucket puts every device's records
   in one partition, in input order; Spark's sort spills to disk, no partition is held whole.
3. In each partition (`mapPartitions`) it starts
   `perimeter evaluate --conditions C --observations - --format F --out - [--groups G] [extra]`;
   a writer thread streams the partition's lines into its standard input (the CSV header first)
   while the task reads events from its standard output line by line as they come.
   Each event's `cause` is its line in the piped stream; it is mapped back to the original line
   with an `array('q')` of the original line numbers of the lines piped: 8 bytes a record of the
   partition, the only per-record memory the task keeps.
   A tool that exits non-zero fails the task with the tool's standard error, its `<stdin>:LINE`
   (or `-:LINE`) rewritten to `OBSERVATIONS:ORIGINAL_LINE`: the job fails naming the bad record.
4. The binary, the conditions and the groups file reach the executors with `sc.addFile` and are
   found in the task with `SparkFiles.get` (the binary is made executable there).
5. Writes the events as a DataFrame with the tool's event fields (EVENT_SCHEMA) to `--out`, as
   Parquet (default) or JSON Lines (`--out-format jsonl`, nulls written as `null`).
   One output file per partition; within a file, events are in the tool's order, so each device's
   events are in the order one `perimeter evaluate` over the whole file gives.

Assumption: evaluation is independent per device (the engine keeps its state per device, and
`--groups` memberships are per device), so the union of the per-partition runs is one run's events.
`check_spark_job.py` checks this on Fixtures/city against one `perimeter evaluate`.
"""

import argparse
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
import unicodedata
import zlib
from array import array

from pyspark import SparkFiles, TaskContext
from pyspark.sql import SparkSession
from pyspark.sql.types import (ArrayType, IntegerType, LongType, StringType, StructField,
                               StructType)

# The event line as docs/outputs.md describes it, keys in the tool's order.
REFINEMENT_SCHEMA = StructType([
    StructField("uuid", StringType(), False),
    StructField("major", IntegerType(), False),
    StructField("minor", IntegerType(), False),
])
EVENT_SCHEMA = StructType([
    StructField("device", StringType(), False),
    StructField("identifier", StringType(), False),
    StructField("state", StringType(), False),
    StructField("date", StringType(), False),       # RFC 3339 UTC text, exactly as the tool writes it
    StructField("delivery", StringType(), False),
    StructField("reason", StringType(), True),
    StructField("refinement", REFINEMENT_SCHEMA, True),
    StructField("diagnostics", ArrayType(StringType(), False), False),
    StructField("cause", LongType(), False),        # original line in the observations file
])
EVENT_KEYS = [f.name for f in EVENT_SCHEMA.fields]

# evaluate options that name outputs or state of one process: they make no sense per partition.
REFUSED_EXTRA = {"--out", "--observations", "--conditions", "--groups", "--format", "--state",
                 "--quarantine", "--authorization-out", "--summary", "--approximate", "--monitor",
                 "--final"}


class PerimeterFailed(RuntimeError):
    pass


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    else:
        extra = []
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conditions", required=True, help="GeoJSON conditions file")
    p.add_argument("--observations", required=True, help="one JSON Lines or CSV file (any Spark path)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--input-format", choices=["jsonl", "csv"],
                   help="default: from the extension (.csv is CSV, else JSON Lines)")
    p.add_argument("--out-format", choices=["parquet", "jsonl"], default="parquet")
    p.add_argument("--partitions", type=int, default=None,
                   help="number of device buckets/partitions (default: spark.default.parallelism)")
    p.add_argument("--groups", help="CSV of group memberships (device,group)")
    p.add_argument("--perimeter", help="path of the perimeter binary (default: .build/release/perimeter "
                   "beside the repository, else `perimeter` on PATH)")
    p.add_argument("--mode", choices=["overwrite", "errorifexists"], default="errorifexists",
                   help="what to do when --out exists (default: fail)")
    # For tests: the first attempt of partition 0 fails (before writing anything) while MARKER does
    # not exist; it creates MARKER. Only meaningful when driver and executors share a file system.
    p.add_argument("--test-fail-once", metavar="MARKER", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    for flag in extra:
        if flag.split("=", 1)[0] in REFUSED_EXTRA:
            p.error(f"{flag} cannot be passed to the per-partition runs")
    if a.partitions is not None and a.partitions < 1:
        p.error("--partitions must be at least 1")
    if a.input_format is None:
        a.input_format = "csv" if a.observations.lower().endswith(".csv") else "jsonl"
    a.extra = extra
    return a


def find_perimeter(given):
    if given:
        path = given
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.normpath(os.path.join(here, "..", "..", ".build", "release", "perimeter"))
        if not os.path.exists(path):
            import shutil
            path = shutil.which("perimeter")
    if not path or not os.path.isfile(path):
        raise SystemExit(f"perimeter_spark: the perimeter binary was not found ({given or path}); "
                         "build it (swift build -c release --product perimeter) or pass --perimeter")
    return os.path.abspath(path)


def stable_bucket(device, n):
    if device is None:
        return 0
    return zlib.crc32(unicodedata.normalize("NFC", device).encode("utf-8")) % n


def device_of_json(line):
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    d = obj.get("device") if isinstance(obj, dict) else None
    return d if isinstance(d, str) and d else None


def csv_device_index(header):
    import csv
    try:
        names = [c.strip(" ") for c in next(csv.reader([header]))]
    except (StopIteration, csv.Error):
        return None
    return names.index("device") if "device" in names else None


def device_of_csv(line, index):
    import csv
    if index is None:
        return None
    try:
        cells = next(csv.reader([line]))
    except (StopIteration, csv.Error):
        return None
    return cells[index] if index < len(cells) and cells[index] else None


def map_error(stderr_text, lines, observations):
    """Rewrite `<stdin>:N` / `-:N` in the tool's messages to `observations:ORIGINAL`."""
    def sub(m):
        n = int(m.group(2))
        orig = lines[n - 1] if 1 <= n <= len(lines) else None
        return f"{observations}:{orig}" if orig is not None else m.group(0)
    return re.sub(r"(<stdin>|(?<![\w/.-])-):(\d+)", sub, stderr_text)


def make_partition_runner(perimeter_name, conditions_name, groups_name, input_format, extra,
                          header, observations, fail_once_marker):
    """The function mapPartitions runs; it closes over small values only."""

    def run(iterator):
        ctx = TaskContext.get()
        if fail_once_marker and ctx is not None and ctx.partitionId() == 0 \
                and not os.path.exists(fail_once_marker):
            open(fail_once_marker, "w").close()
            raise RuntimeError("perimeter_spark: injected failure of partition 0 (--test-fail-once)")

        first = next(iterator, None)
        if first is None:
            return  # no record in this partition: no process
        binary = SparkFiles.get(perimeter_name)
        mode = os.stat(binary).st_mode
        if not mode & stat.S_IXUSR:
            try:
                os.chmod(binary, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            except OSError:
                pass  # another task did it
        cmd = [binary, "evaluate", "--conditions", SparkFiles.get(conditions_name),
               "--observations", "-", "--format", input_format, "--out", "-"]
        if groups_name:
            cmd += ["--groups", SparkFiles.get(groups_name)]
        cmd += list(extra)

        lines = array("q")  # original line number of each piped line: 8 bytes a record
        errfile = tempfile.TemporaryFile()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errfile, bufsize=1 << 16)
        writer_error = []

        def feed():
            try:
                out = proc.stdin
                if header is not None:
                    lines.append(1)
                    out.write(header.encode("utf-8") + b"\n")
                item = first
                while item is not None:
                    (_, lineno), text = item
                    lines.append(lineno)  # before the write: an event can only name a line written
                    out.write(text.encode("utf-8") + b"\n")
                    item = next(iterator, None)
            except BrokenPipeError:
                pass  # the tool stopped (a bad record): its exit status says why
            except BaseException as e:  # the input failed: stop the tool, report it
                writer_error.append(e)
                proc.kill()
            finally:
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass

        t = threading.Thread(target=feed, name="perimeter-stdin", daemon=True)
        t.start()
        try:
            for raw in proc.stdout:
                ev = json.loads(raw)
                cause = ev["cause"]
                ev["cause"] = lines[cause - 1]
                ref = ev.get("refinement")
                yield (ev["device"], ev["identifier"], ev["state"], ev["date"], ev["delivery"],
                       ev.get("reason"),
                       None if ref is None else (ref["uuid"], ref["major"], ref["minor"]),
                       ev.get("diagnostics") or [], ev["cause"])
            rc = proc.wait()
            t.join()
            if writer_error:
                raise writer_error[0]
            if rc != 0:
                errfile.seek(0)
                err = errfile.read().decode("utf-8", "replace")
                raise PerimeterFailed(
                    f"perimeter evaluate exited with status {rc} in partition "
                    f"{ctx.partitionId() if ctx else '?'}:\n" + map_error(err, lines, observations))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            errfile.close()

    return run


def ship(sc, path, stage):
    """sc.addFile a copy of `path` named DIGEST-NAME; returns that name for SparkFiles.get."""
    import hashlib
    import shutil
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    name = f"{h.hexdigest()[:16]}-{os.path.basename(path)}"
    copy = os.path.join(stage, name)
    if not os.path.exists(copy):
        shutil.copy2(path, copy)
    sc.addFile(copy)
    return name


def run_job(spark, a):
    """Run the job described by parse_args' result `a` in an existing SparkSession."""
    perimeter = find_perimeter(a.perimeter)
    sc = spark.sparkContext
    n = a.partitions or sc.defaultParallelism
    # Ship each file under a name made of its content's digest and its own name: distinct names
    # for distinct files, so that several jobs in one SparkContext (or two files both called
    # conditions.geojson) never clash in SparkFiles.
    if __name__ != "__main__":
        # Imported as a module: the task functions are pickled by reference to this module,
        # so the executors' Python workers need it too.
        sc.addPyFile(os.path.abspath(__file__))
    stage = tempfile.mkdtemp(prefix="perimeter-spark-")
    try:
        _run_job(spark, a, sc, n, perimeter, stage)
    finally:
        import shutil
        shutil.rmtree(stage, ignore_errors=True)


def _run_job(spark, a, sc, n, perimeter, stage):
    shipped = {}
    for role, path in (("perimeter", perimeter), ("conditions", a.conditions), ("groups", a.groups)):
        if path:
            shipped[role] = ship(sc, path, stage)

    numbered = sc.textFile(a.observations).zipWithIndex().map(lambda p: (p[1] + 1, p[0]))

    header = None
    if a.input_format == "csv":
        first = numbered.filter(lambda p: p[0] == 1).map(lambda p: p[1]).take(1)
        if not first:
            raise SystemExit(f"perimeter_spark: {a.observations}: empty, no CSV header")
        header = first[0].lstrip("\ufeff")
        index = csv_device_index(header)
        device_of = lambda line: device_of_csv(line, index)  # noqa: E731
    else:
        device_of = device_of_json

    def keyed(p):
        lineno, text = p
        if lineno == 1:
            text = text.lstrip("\ufeff")
        return ((stable_bucket(device_of(text), n), lineno), text)

    records = (numbered
               .filter(lambda p: not (header is not None and p[0] == 1))
               .filter(lambda p: p[1].strip(" \t") != "")
               .map(keyed)
               .repartitionAndSortWithinPartitions(n, partitionFunc=lambda k: k[0]))

    runner = make_partition_runner(shipped["perimeter"], shipped["conditions"],
                                   shipped.get("groups"),
                                   a.input_format, a.extra, header, a.observations,
                                   a.test_fail_once)
    events = spark.createDataFrame(records.mapPartitions(runner), EVENT_SCHEMA)
    writer = events.write.mode(a.mode)
    if a.out_format == "parquet":
        writer.parquet(a.out)
    else:
        writer.option("ignoreNullFields", "false").json(a.out)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    spark = SparkSession.builder.appName("perimeter-evaluate").getOrCreate()
    try:
        run_job(spark, a)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
