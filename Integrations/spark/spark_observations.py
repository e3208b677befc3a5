"""Reading observations for perimeter_spark.py: the files of a stream in order, each record with its
position in the stream and its device, as a DataFrame the JVM keys, shuffles and sorts.

The stream is the concatenation of the input files, sorted by path. A record's *position* is its
1-based line in that concatenation (every line counts, a CSV header and blank lines included), or for
Parquet the rows of the files before it plus its row index plus one. With one input file the position
is the file's own line (or row) number, the `cause` one `perimeter evaluate` over it gives. `Sources`
maps a position back to a file and its line.
"""

import bisect
import os

BOM = "\ufeff"


class InputError(SystemExit):
    """A problem with the input as a whole, reported before any evaluation."""


class Sources:
    """The input files in stream order and the position just before each one's first line."""

    def __init__(self, files, starts, total):
        self.files = files          # names as errors show them
        self.starts = starts        # starts[i]: lines (rows) of the files before file i
        self.total = total
        self.header_position = 1    # CSV: the position of the header the tool is given first

    def locate(self, position):
        """(file name, line in that file) of a 1-based position in the stream."""
        i = bisect.bisect_right(self.starts, position - 1) - 1
        return self.files[i], position - self.starts[i]

    def rows(self):
        """One row per file: name, first position, number of lines (or rows)."""
        ends = self.starts[1:] + [self.total]
        return [(f, s + 1, e - s) for f, s, e in zip(self.files, self.starts, ends)]


def display_name(uri, given):
    """The name errors show: the path as the user gave it for one file, a local path for a file
    found by listing, else the URI."""
    local = None
    for prefix in ("file:///", "file:/"):
        if uri.startswith(prefix):
            local = "/" + uri[len(prefix):]
            break
    if len(given) == 1 and (uri == given[0] or (local and local == os.path.abspath(given[0]))):
        return given[0]
    return local or uri


def not_ascii(column):
    """1 when the text has a character beyond ASCII (more bytes than characters), else 0."""
    from pyspark.sql import functions as F
    return (F.length(column) != F.octet_length(column)).cast("int")


def device_key(device, any_not_ascii):
    """The column the records are partitioned by: the device name, NFC-normalised as the tool
    compares names, so that canonically equivalent spellings meet in one partition. ASCII is NFC
    already; the normalisation (in Python, so each row crosses to a Python worker and back) only
    runs when the counting pass saw a character beyond ASCII."""
    if not any_not_ascii:
        return device
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql import functions as F

    @F.arrow_udf("string")
    def nfc(names: pa.Array) -> pa.Array:
        return pc.utf8_normalize(names, "NFC")

    return F.when(not_ascii(device) == 0, device).otherwise(nfc(device))


def literal_table(spark, rows, names):
    """A small table written into the query plan itself: joining with it needs no Spark job (a
    DataFrame made from a Python list would run one, Python workers and all, to be broadcast)."""
    from pyspark.sql import functions as F
    def value(v):
        return F.lit(v).cast("long") if isinstance(v, int) else F.lit(v)
    structs = [F.struct(*[value(v).alias(n) for v, n in zip(row, names)]) for row in rows]
    return spark.range(1).select(F.inline(F.array(*structs)))


def _list(spark, fmt, paths):
    from pyspark.errors import AnalysisException
    try:
        return spark.read.format(fmt).load(paths)
    except AnalysisException as e:
        first = str(e).strip().splitlines()[0]
        raise InputError(f"perimeter_spark: {', '.join(paths)}: {first}")


def read_text(spark, paths, input_format):
    """JSON Lines or CSV as lines. Returns (records, sources, header): records a DataFrame of
    `position` long, `device` string, `record` binary, without headers and blank lines; header the
    CSV header (bytes) every partition's tool is given first, None for JSON Lines.

    One Spark job counts each split's lines (and reads each file's first line); the positions are
    then each line's id within its scan partition plus its split's offset."""
    from pyspark.sql import functions as F
    lines = _list(spark, "text", paths).select(
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
        F.monotonically_increasing_id().alias("id"), "value")
    # A split's first line matters only as a CSV header.
    first_line = F.min_by("value", "id") if input_format == "csv" else F.lit(None)
    splits = sorted(lines.groupBy("file", "block").agg(
        F.count("*").alias("n"), F.min("id").alias("first_id"), first_line.alias("first_line"),
        F.max(not_ascii("value")).alias("not_ascii")).collect())
    if not splits:
        raise InputError(f"perimeter_spark: {', '.join(paths)}: no input file")

    offsets, files, starts, firsts = [], [], [], []
    position = 0
    for s in splits:
        if s.block == 0:
            files.append(s.file)
            starts.append(position)
            firsts.append(s.first_line)
        offsets.append((s.file, s.block, position - s.first_id))
        position += s.n
    sources = Sources([display_name(f, paths) for f in files], starts, position)
    first_positions = [s + 1 for s in starts]

    records = lines.join(F.broadcast(literal_table(spark, offsets, ("file", "block", "offset"))),
                         ["file", "block"]).select(
        (F.col("id") + F.col("offset") + 1).alias("position"), "value")
    header = None
    if input_format == "csv":
        headers = [(name, f[len(BOM):] if f.startswith(BOM) else f)
                   for name, f in zip(sources.files, firsts)]
        header = headers[0][1]
        for name, h in headers[1:]:
            if h != header:
                raise InputError(f"perimeter_spark: {name}:1: the CSV header differs from "
                                 f"{headers[0][0]}'s; every file of one stream needs the same columns")
        records = records.where(~F.col("position").isin(first_positions))  # each file's header
        device = _csv_device(header)
    else:
        records = records.withColumn("value", F.when(
            F.col("position").isin(first_positions), F.regexp_replace("value", "^" + BOM, ""))
            .otherwise(F.col("value")))
        device = F.get_json_object("value", "$.device")
    records = records.where(~F.col("value").rlike("^[ \\t]*$"))  # the tool skips them too
    any_not_ascii = any(s.not_ascii for s in splits)
    return (records.select("position", device_key(device, any_not_ascii).alias("device"),
                           F.col("value").cast("binary").alias("record")),
            sources, None if header is None else header.encode("utf-8"))


def _csv_device(header):
    """The `device` cell: split at commas when the line has no quote, else parsed as CSV with
    RFC 4180's doubled quotes. A row too short, or a header without `device`, gives null: the tool
    refuses that record wherever it lands."""
    import csv
    from pyspark.sql import functions as F
    try:
        names = [c.strip(" ") for c in next(csv.reader([header]))]
    except (StopIteration, csv.Error):
        return F.lit(None).cast("string")
    if "device" not in names:
        return F.lit(None).cast("string")
    k = names.index("device")
    schema = ", ".join(f"c{i} STRING" for i in range(len(names)))
    quoted = F.from_csv("value", schema, {"escape": '"', "mode": "PERMISSIVE"}).getField(f"c{k}")
    plain = F.try_element_at(F.split("value", ",", -1), F.lit(k + 1))
    return F.when(F.col("value").contains('"'), quoted).otherwise(plain)


PARQUET_TIME_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"  # Spark keeps microseconds


def read_parquet(spark, paths):
    """Parquet rows, each written as the JSON Lines record the tool reads (nulls left out,
    timestamps as RFC 3339 UTC). The position of a row follows the files sorted by path and the
    row's index in its file (`_metadata.row_index`), never the order Spark happens to scan in."""
    from pyspark.sql import functions as F
    df = _list(spark, "parquet", paths)
    columns = list(df.columns)
    if "device" not in columns:
        raise InputError(f"perimeter_spark: {', '.join(paths)}: no `device` column "
                         f"(columns: {', '.join(sorted(columns))})")
    files = sorted(df.groupBy("_metadata.file_path").agg(
        F.count("*"), F.max(not_ascii(F.col("device").cast("string")))).collect())
    counts = [(r[0], r[1]) for r in files]
    if not counts:
        raise InputError(f"perimeter_spark: {', '.join(paths)}: no row")
    starts, position = [], 0
    for _, size in counts:
        starts.append(position)
        position += size
    sources = Sources([display_name(u, paths) for u, _ in counts], starts, position)
    offsets = literal_table(spark, [(u, s) for (u, _), s in zip(counts, starts)], ("file", "offset"))

    rows = df.select(
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.row_index").alias("row"),
        F.col("device").cast("string").alias("device"),
        F.to_json(F.struct(*[F.col(f"`{c}`") for c in columns]),
                  {"timestampFormat": PARQUET_TIME_FORMAT,
                   "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'"}).alias("record"))
    records = rows.join(F.broadcast(offsets), "file").select(
        (F.col("offset") + F.col("row") + 1).alias("position"),
        device_key(F.col("device"), any(r[2] for r in files)).alias("device"),
        F.col("record").cast("binary").alias("record"))
    return records, sources, None
