"""One partition of perimeter_spark.py's job (`mapInArrow`): its records streamed through one
`perimeter evaluate` process, its events read back as they come, each cause and each bad record
named by the file and line it came from."""

import json
import os
import re
import stat
import subprocess
import tempfile
import threading
from array import array

from pyspark import AccumulatorParam, SparkFiles, TaskContext


class PerimeterFailed(RuntimeError):
    pass


class ListParam(AccumulatorParam):
    """Quarantined records travel to the driver with each successful task's result; a task
    that failed contributes nothing, and the driver drops repeats (a stage run again)."""

    def zero(self, value):
        return []

    def addInPlace(self, a, b):
        a.extend(b)
        return a


def map_error(stderr_text, lines, sources):
    """Rewrite `<stdin>:N` / `-:N` in the tool's messages to `FILE:LINE` of the original input."""
    def sub(m):
        n = int(m.group(2))
        if not 1 <= n <= len(lines):
            return m.group(0)
        name, line = sources.locate(lines[n - 1])
        return f"{name}:{line}"
    return re.sub(r"(<stdin>|(?<![\w/.-])-):(\d+)", sub, stderr_text)


def make_runner(job, event_schema):
    """The function mapInArrow runs over batches of `position`, `record`. `job` is a small dict
    (names of shipped files, flags, the sources table): the closure holds nothing per record."""
    from pyspark.sql.pandas.types import to_arrow_schema
    job = dict(job, arrow_schema=to_arrow_schema(event_schema))

    def run(iterator):
        ctx = TaskContext.get()
        marker = job.get("fail_once_marker")
        if marker and ctx is not None and ctx.partitionId() == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            raise RuntimeError("perimeter_spark: injected failure of partition 0 (--test-fail-once)")

        first = next(iterator, None)
        while first is not None and first.num_rows == 0:
            first = next(iterator, None)
        if first is None:
            return  # no record in this partition: no process
        yield from _evaluate(job, ctx, first, iterator)

    return run


def _binary(name):
    binary = SparkFiles.get(name)
    mode = os.stat(binary).st_mode
    if not mode & stat.S_IXUSR:
        try:
            os.chmod(binary, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError:
            pass  # another task did it
    return binary


def _evaluate(job, ctx, first, iterator):
    sources = job["sources"]
    cmd = [_binary(job["perimeter"]), "evaluate", "--conditions", SparkFiles.get(job["conditions"]),
           "--observations", "-", "--format", job["format"], "--out", "-"]
    if job.get("groups"):
        cmd += ["--groups", SparkFiles.get(job["groups"])]
    quarantine = None
    if job.get("quarantine") is not None:
        quarantine = tempfile.NamedTemporaryFile(prefix="perimeter-quarantine-", suffix=".jsonl")
        cmd += ["--quarantine", quarantine.name]
    cmd += list(job["extra"])

    lines = array("q")  # position of each piped line in the input: 8 bytes a record
    import pyarrow as pa
    import pyarrow.compute as pc
    errfile = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errfile,
                            bufsize=1 << 16)
    writer_error = []

    def feed():
        try:
            out = proc.stdin
            if job.get("header") is not None:
                lines.append(job["header_position"])
                out.write(job["header"] + b"\n")
            batch = first
            while batch is not None:
                # Before the write: an event can only name a line written.
                lines.frombytes(batch.column(0).cast(pa.int64()).to_numpy().tobytes())
                # Each record and its newline, one buffer for the batch.
                text = pc.binary_join_element_wise(batch.column(1), pa.scalar(b""), b"\n")
                out.write(_data(text))
                batch = next(iterator, None)
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
        events = []
        for raw in proc.stdout:
            ev = json.loads(raw)
            ev["cause"] = lines[ev["cause"] - 1]
            events.append(ev)
            if len(events) == 8192:
                yield pa.RecordBatch.from_pylist(events, schema=job["arrow_schema"])
                events = []
        if events:
            yield pa.RecordBatch.from_pylist(events, schema=job["arrow_schema"])
        rc = proc.wait()
        t.join()
        if writer_error:
            raise writer_error[0]
        if rc != 0:
            errfile.seek(0)
            err = errfile.read().decode("utf-8", "replace")
            raise PerimeterFailed(
                f"perimeter evaluate exited with status {rc} in partition "
                f"{ctx.partitionId() if ctx else '?'}:\n" + map_error(err, lines, sources))
        if quarantine is not None:
            _report_quarantine(job, quarantine.name, lines, sources, ctx)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        errfile.close()
        if quarantine is not None:
            quarantine.close()


def _data(array):
    """The bytes of a (large) binary array's values, end to end, without a copy."""
    import numpy as np
    import pyarrow as pa
    _, offsets, data = array.buffers()
    kind = np.int64 if pa.types.is_large_binary(array.type) else np.int32
    bounds = np.frombuffer(offsets, dtype=kind)[array.offset:array.offset + len(array) + 1]
    return memoryview(data)[int(bounds[0]):int(bounds[-1])]


def _report_quarantine(job, path, lines, sources, ctx):
    bad = []
    limit = job["max_quarantined"]
    with open(path, "rb") as f:
        for raw in f:
            q = json.loads(raw)
            q["file"], q["line"] = sources.locate(lines[q["line"] - 1])
            bad.append(q)
            if len(bad) > limit:
                raise PerimeterFailed(
                    f"perimeter_spark: more than {limit} bad records in partition "
                    f"{ctx.partitionId() if ctx else '?'} (--max-quarantined); the first: "
                    f"{bad[0]['file']}:{bad[0]['line']}: field {bad[0].get('field')}: {bad[0]['reason']}")
    if bad:
        job["quarantine"].add(bad)
