"""check_spark_job.py's checks of the input side: several files as one stream, Parquet, the
quarantine, input that is easy to get wrong, and outputs the job must refuse."""

import glob
import json
import os
import shutil

from check_support import REPO, canonical, check, compare, expect_failure, run, tool_events, \
    write_parts_file


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


def check_refusals(spark, perimeter, tmp, cond):
    """The job writes only directories it creates: an existing --out stops it before any work, and
    an output that is an input is refused outright."""
    obs = os.path.join(REPO, "Fixtures", "city", "observations.jsonl")
    existing = os.path.join(tmp, "exists")
    os.makedirs(existing)
    keep = os.path.join(existing, "keep.txt")
    write_parts_file(keep, ["mine"])
    for label, out, extra in (("an --out that exists", existing, []),
                              ("a --quarantine that exists", os.path.join(tmp, "fresh"),
                               ["--quarantine", existing]),
                              ("an --out that is the input", obs, [])):
        print(label)
        try:
            run(spark, tmp, label, ["--perimeter", perimeter, "--conditions", cond,
                                    "--observations", obs] + extra, out=out)
            check(False, f"{label}: refused")
        except SystemExit as e:
            check(True, f"{label}: refused ({str(e)[:90] or 'usage error'})")
    check(open(keep).read() == "mine\n" and open(obs).read().startswith('{"type"'),
          "the existing directory and the input are untouched")
    check(not os.path.exists(os.path.join(tmp, "fresh")), "no --out written when --quarantine exists")
