"""What check_spark_job.py and check_spark_inputs.py share: running the job and the tool, and
comparing their events."""

import collections
import glob
import json
import os
import subprocess
import sys
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
