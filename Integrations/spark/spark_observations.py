"""Reading observations for perimeter_spark.py: the files of a stream in order, each record numbered
and keyed by its device's bucket.

The stream is the concatenation of the input files, sorted by path. Every record gets its
*position*: its 1-based line in that concatenation (every line counts, a CSV header and blank lines
included), or for Parquet the number of rows before it plus its row index plus one. With one input
file the position is the file's own line (or row) number, which is the `cause` one
`perimeter evaluate` over that file gives. `Sources` maps a position back to a file and its line.
"""

import bisect
import json
import re
import unicodedata
import zlib

BOM = b"\xef\xbb\xbf"

# The `device` member when it opens the object and its value has no escape: the common case, read
# without a JSON parse. A record whose `device` is elsewhere (or named twice: the tool refuses it
# wherever it lands) goes through json.loads.
_LEADING_DEVICE = re.compile(rb'[ \t]*\{[ \t]*"device"[ \t]*:[ \t]*"([^"\\]*)"')


class InputError(SystemExit):
    """A problem with the input as a whole, reported before any evaluation."""


class Sources:
    """The input files in stream order and the position just before each one's first line."""

    def __init__(self, files, starts, given):
        self.files = files          # names as errors show them
        self.starts = starts        # starts[i]: positions of files before file i
        self.given = given
        self.header_position = 1    # CSV: the position of the header the tool is given

    def locate(self, position):
        """(file name, line in that file) of a 1-based position in the stream."""
        i = bisect.bisect_right(self.starts, position - 1) - 1
        return self.files[i], position - self.starts[i]

    def rows(self, total):
        """One row per file: name, first position, number of lines (or rows)."""
        ends = self.starts[1:] + [total]
        return [(f, s + 1, e - s) for f, s, e in zip(self.files, self.starts, ends)]


def display_name(uri, given):
    """The name errors show: the path as the user gave it for one file, a local path for a file
    found by listing, else the URI."""
    if len(given) == 1 and _same_file(uri, given[0]):
        return given[0]
    for prefix in ("file:///", "file:/"):
        if uri.startswith(prefix):
            return "/" + uri[len(prefix):]
    return uri


def _same_file(uri, path):
    import os
    for prefix in ("file:///", "file:/"):
        if uri.startswith(prefix):
            return os.path.abspath(path) == "/" + uri[len(prefix):]
    return uri == path


def bucket_of(name, n):
    """The device bucket: crc32 of the NFC-normalised UTF-8 name (stable across processes, unlike
    Python's hash), 0 for a record whose device cannot be read (the tool refuses it there)."""
    if not name:
        return 0
    if not name.isascii():
        name = unicodedata.normalize("NFC", name.decode("utf-8", "replace")).encode("utf-8")
    return zlib.crc32(name) % n


def device_of_json(line):
    m = _LEADING_DEVICE.match(line)
    if m:
        return m.group(1)
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    d = obj.get("device") if isinstance(obj, dict) else None
    return d.encode("utf-8") if isinstance(d, str) else None


def csv_device_index(header):
    import csv
    try:
        names = [c.strip(" ") for c in next(csv.reader([header.decode("utf-8", "replace")]))]
    except (StopIteration, csv.Error):
        return None
    return names.index("device") if "device" in names else None


def device_of_csv(line, index):
    if index is None:
        return None
    if b'"' in line:
        import csv
        try:
            cells = [c.encode("utf-8") for c in next(csv.reader([line.decode("utf-8", "replace")]))]
        except (StopIteration, csv.Error):
            return None
    else:
        cells = line.split(b",")
    return cells[index] if index < len(cells) else None


def is_blank(line):
    return line.strip(b" \t") == b""


def list_files(spark, fmt, paths):
    """The files Spark's `fmt` reader finds for `paths` (it skips `_` and `.` files), or an
    InputError naming the path that matches nothing."""
    from pyspark.errors import AnalysisException
    try:
        return spark.read.format(fmt).load(paths).inputFiles()
    except AnalysisException as e:
        first = str(e).strip().splitlines()[0]
        raise InputError(f"perimeter_spark: {', '.join(paths)}: {first}")


def read_text(spark, paths, input_format, n):
    """JSON Lines or CSV read as lines. Returns (records, sources, header): records an RDD of
    ((bucket, position), line bytes) without headers and blank lines; header the CSV header every
    partition's tool is given first (None for JSON Lines)."""
    sc = spark.sparkContext
    uris = sorted(list_files(spark, "text", paths))
    if not uris:
        raise InputError(f"perimeter_spark: {', '.join(paths)}: no input file")
    per_file = [sc.textFile(u, use_unicode=False) for u in uris]
    first_split = {}
    k = 0
    for i, rdd in enumerate(per_file):
        first_split[k] = i
        k += rdd.getNumPartitions()
    lines = sc.union(per_file) if len(per_file) > 1 else per_file[0]

    def count(index, it):
        first = next(it, None)
        if first is None:
            return [(index, 0, None)]
        return [(index, 1 + sum(1 for _ in it), first if index in first_split else None)]

    counts = sorted(lines.mapPartitionsWithIndex(count).collect())
    split_starts, position = [], 0
    file_starts, file_firsts = [], []
    for index, size, first in counts:
        if index in first_split:
            file_starts.append(position)
            file_firsts.append(first)
        split_starts.append(position)
        position += size
    sources = Sources([display_name(u, paths) for u in uris], file_starts, paths)
    file_first_positions = {s + 1 for s, f in zip(file_starts, file_firsts) if f is not None}

    header = None
    if input_format == "csv":
        headers = [(name, f[len(BOM):] if f.startswith(BOM) else f)
                   for name, f in zip(sources.files, file_firsts) if f is not None]
        if not headers:
            raise InputError(f"perimeter_spark: {', '.join(paths)}: empty, no CSV header")
        header = headers[0][1]
        sources.header_position = 1 + next(s for s, f in zip(file_starts, file_firsts) if f is not None)
        for name, h in headers[1:]:
            if h != header:
                raise InputError(f"perimeter_spark: {name}:1: the CSV header differs from "
                                 f"{headers[0][0]}'s; every file of one stream needs the same columns")
        index = csv_device_index(header)
        device_of = lambda line: device_of_csv(line, index)  # noqa: E731
    else:
        device_of = device_of_json

    def keyed(index, it):
        position = split_starts[index]
        for line in it:
            position += 1
            if position in file_first_positions:
                if header is not None:
                    continue  # each CSV file's header; the tool gets one, first
                if line.startswith(BOM):
                    line = line[len(BOM):]
            if is_blank(line):
                continue  # the tool skips blank lines too; they keep their number
            yield (bucket_of(device_of(line), n), position), line

    return lines.mapPartitionsWithIndex(keyed), sources, header, position


PARQUET_TIME_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"  # Spark keeps microseconds


def read_parquet(spark, paths, n):
    """Parquet rows, each written as the JSON Lines record the tool reads (nulls left out,
    timestamps as RFC 3339 UTC). The position of a row follows the files sorted by path and the
    row's index in its file (`_metadata.row_index`), never the order Spark happens to scan in."""
    from pyspark.sql import functions as F
    list_files(spark, "parquet", paths)
    df = spark.read.parquet(*paths)
    columns = [c for c in df.columns]
    if "device" not in columns:
        raise InputError(f"perimeter_spark: {', '.join(paths)}: no `device` column "
                         f"(columns: {', '.join(sorted(columns))})")
    counts = sorted((r[0], r[1]) for r in df.groupBy("_metadata.file_path").count().collect())
    if not counts:
        raise InputError(f"perimeter_spark: {', '.join(paths)}: no row")
    index_of = {uri: i for i, (uri, _) in enumerate(counts)}
    starts, position = [], 0
    for _, size in counts:
        starts.append(position)
        position += size
    sources = Sources([display_name(u, paths) for u, _ in counts], starts, paths)

    rows = df.select(
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.row_index").alias("row"),
        F.col("device").cast("string").alias("device"),
        F.to_json(F.struct(*[F.col(f"`{c}`") for c in columns]),
                  {"timestampFormat": PARQUET_TIME_FORMAT,
                   "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'"}).alias("record"))

    def keyed(r):
        device = r.device.encode("utf-8") if r.device else None
        position = starts[index_of[r.file]] + r.row + 1
        return (bucket_of(device, n), position), r.record.encode("utf-8")

    return rows.rdd.map(keyed), sources, None, position
