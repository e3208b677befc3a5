#!/usr/bin/env python3
"""Run `perimeter evaluate` over a recorded stream with PySpark, partitioned by device.

    spark-submit Integrations/spark/perimeter_spark.py \
        --conditions C --observations PATH... --out DIR \
        [--input-format jsonl|csv|parquet] [--out-format parquet|jsonl] [--partitions N] \
        [--groups G] [--quarantine QDIR] [--perimeter PATH] [-- evaluate flags, e.g. --assume unsatisfied]

1. The observations are the files PATH... name (files, directories, globs: any path Spark reads),
   sorted by path and taken as one stream, their concatenation. Each record is numbered with its
   position in that stream (spark_observations.py): with one file, its line (Parquet: its row).
2. `repartition(N, device)` (the name NFC-normalised) and `sortWithinPartitions(position)`, Spark
   SQL's own shuffle and sort, put each device's records in one partition, in input order.
3. Each partition (`mapInArrow`) streams its records through one
   `perimeter evaluate --observations - --out -`
   (spark_partition.py); each event's `cause` is mapped back to the record's position, each error
   and quarantined record to its file and line.
4. The binary, the conditions and the groups file reach the executors with `sc.addFile`.
5. The events are written as Parquet or JSON Lines with the tool's event fields (EVENT_SCHEMA);
   `_sources` beside them lists each input file with its first position and its number of lines.
   With `--quarantine QDIR` bad records are written to QDIR (the tool's quarantine lines) instead of
   failing the job.

Evaluation is independent per device (the engine's state and `--groups` memberships are per
device), so the union of the partitions' events is one run's events; check_spark_job.py checks it.
"""

import argparse
import os
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql.types import (ArrayType, IntegerType, LongType, StringType, StructField,
                               StructType)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import spark_observations  # noqa: E402
import spark_partition  # noqa: E402

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
    StructField("cause", LongType(), False),        # the record's position: with one file, its line
])
# The tool's quarantine line (docs/outputs.md), `file` and `line` those of the original input.
QUARANTINE_SCHEMA = StructType([
    StructField("file", StringType(), False),
    StructField("line", LongType(), False),
    StructField("field", StringType(), True),
    StructField("reason", StringType(), False),
    StructField("record", StringType(), True),
    StructField("recordBase64", StringType(), True),
    StructField("recordLength", LongType(), True),
])
SOURCES_SCHEMA = StructType([
    StructField("file", StringType(), False),
    StructField("first", LongType(), False),   # the position (cause) of its line 1
    StructField("lines", LongType(), False),   # lines (Parquet: rows) in the file
])

# evaluate options that name outputs or state of one process: they make no sense per partition.
REFUSED_EXTRA = {"--out", "--observations", "--conditions", "--groups", "--format", "--state",
                 "--quarantine", "--authorization-out", "--summary", "--approximate", "--monitor",
                 "--final"}


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    else:
        extra = []
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conditions", required=True, help="GeoJSON conditions file")
    p.add_argument("--observations", required=True, nargs="+", metavar="PATH",
                   help="files, directories or globs Spark reads; sorted by path, they are one stream")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--input-format", choices=["jsonl", "csv", "parquet"],
                   help="default: from the first path's extension (.csv, .parquet, else JSON Lines)")
    p.add_argument("--out-format", choices=["parquet", "jsonl"], default="parquet")
    p.add_argument("--partitions", type=int, default=None,
                   help="number of device buckets/partitions (default: spark.default.parallelism)")
    p.add_argument("--groups", help="CSV of group memberships (device,group)")
    p.add_argument("--quarantine", metavar="QDIR",
                   help="write bad records to QDIR as JSON Lines and go on (default: the first bad "
                   "record fails the job, naming its file and line)")
    p.add_argument("--max-quarantined", type=int, default=100_000, metavar="K",
                   help="with --quarantine, fail the job when a partition has more than K bad "
                   "records (default 100000): they travel to the driver")
    p.add_argument("--perimeter", help="path of the perimeter binary (default: .build/release/perimeter "
                   "beside the repository, else `perimeter` on PATH)")
    p.add_argument("--mode", choices=["overwrite", "errorifexists"], default="errorifexists",
                   help="what to do when --out or --quarantine exists (default: stop before any work)")
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
        first = a.observations[0].lower().rstrip("/")
        a.input_format = ("csv" if first.endswith(".csv") else
                          "parquet" if first.endswith(".parquet") else "jsonl")
    outputs = [a.out.rstrip("/")] + ([a.quarantine.rstrip("/")] if a.quarantine else [])
    named = [o.rstrip("/") for o in a.observations] + [a.conditions] + ([a.groups] if a.groups else [])
    if len(set(outputs)) < len(outputs):
        p.error("--out and --quarantine name the same directory")
    for o in outputs:
        if o in named:
            p.error(f"{o} is an input: the job writes only directories it creates "
                    "(or replaces, with --mode overwrite)")
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
                         "build it (swift build -c release --static-swift-stdlib --product perimeter) or pass --perimeter")
    return os.path.abspath(path)


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


def refuse_existing(spark, a):
    """Without --mode overwrite, an output directory that exists stops the job before any work
    (Spark's writer would only find out after the evaluation)."""
    if a.mode == "overwrite":
        return
    sc = spark.sparkContext
    conf = sc._jsc.hadoopConfiguration()
    for flag, out in (("--out", a.out), ("--quarantine", a.quarantine)):
        if out:
            path = sc._jvm.org.apache.hadoop.fs.Path(out)
            if path.getFileSystem(conf).exists(path):
                raise SystemExit(f"perimeter_spark: {flag} {out} exists; remove it or pass "
                                 "--mode overwrite")


def run_job(spark, a):
    """Run the job described by parse_args' result `a` in an existing SparkSession."""
    perimeter = find_perimeter(a.perimeter)
    refuse_existing(spark, a)
    sc = spark.sparkContext
    n = a.partitions or sc.defaultParallelism
    # The task functions and the sources table live in these modules: the executors' Python
    # workers import them too.
    for module in (spark_observations, spark_partition):
        sc.addPyFile(module.__file__)
    stage = tempfile.mkdtemp(prefix="perimeter-spark-")
    try:
        _run_job(spark, a, sc, n, perimeter, stage)
    finally:
        import shutil
        shutil.rmtree(stage, ignore_errors=True)


def _run_job(spark, a, sc, n, perimeter, stage):
    # Ship each file under a name made of its content's digest and its own name: distinct names
    # for distinct files, so that several jobs in one SparkContext (or two files both called
    # conditions.geojson) never clash in SparkFiles.
    shipped = {role: ship(sc, path, stage) for role, path in
               (("perimeter", perimeter), ("conditions", a.conditions), ("groups", a.groups)) if path}

    if a.input_format == "parquet":
        records, sources, header = spark_observations.read_parquet(spark, a.observations)
    else:
        records, sources, header = spark_observations.read_text(spark, a.observations,
                                                                a.input_format)
    # Every device's records in one partition, in input order. An explicit number of partitions:
    # adaptive execution keeps it.
    records = records.repartition(n, "device").sortWithinPartitions("position") \
        .select("position", "record")

    quarantined = sc.accumulator([], spark_partition.ListParam()) if a.quarantine else None
    job = {"perimeter": shipped["perimeter"], "conditions": shipped["conditions"],
           "groups": shipped.get("groups"), "extra": a.extra, "sources": sources,
           "format": "csv" if a.input_format == "csv" else "jsonl",
           "header": header, "header_position": sources.header_position,
           "quarantine": quarantined, "max_quarantined": a.max_quarantined,
           "fail_once_marker": a.test_fail_once}
    events = records.mapInArrow(spark_partition.make_runner(job, EVENT_SCHEMA), EVENT_SCHEMA)
    writer = events.write.mode(a.mode)
    if a.out_format == "parquet":
        writer.parquet(a.out)
    else:
        writer.option("ignoreNullFields", "false").json(a.out)
    # Spark's readers skip `_`-prefixed paths: the table of sources sits beside the events.
    spark_observations.literal_table(spark, sources.rows(), SOURCES_SCHEMA.fieldNames()) \
        .coalesce(1).write.mode("overwrite").json(a.out.rstrip("/") + "/_sources")

    if quarantined is not None:
        bad = {(q["file"], q["line"]): q for q in quarantined.value}  # a stage run twice adds twice
        order = {name: i for i, name in enumerate(sources.files)}
        rows = [tuple(bad[k].get(f.name) for f in QUARANTINE_SCHEMA.fields)
                for k in sorted(bad, key=lambda k: (order[k[0]], k[1]))]
        spark.createDataFrame(rows, QUARANTINE_SCHEMA).coalesce(1).write.mode(a.mode) \
            .json(a.quarantine)
        if rows:
            print(f"perimeter_spark: {len(rows)} bad record(s) written to {a.quarantine}",
                  file=sys.stderr)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    spark = SparkSession.builder.appName("perimeter-evaluate").getOrCreate()
    try:
        run_job(spark, a)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
