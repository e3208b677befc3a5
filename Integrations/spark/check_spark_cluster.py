"""check_spark_job.py's run on a Spark standalone cluster of one master and one worker on this
machine: the executor is a JVM of its own, in a working directory of its own, so the binary, the
conditions and the job's modules reach it only through Spark's file shipping, as on a real cluster."""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from check_support import HERE, check, compare, spark_events, tool_events


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_class():
    submit = shutil.which("spark-submit")
    if not submit:
        raise SystemExit("spark-submit is not on PATH")
    return os.path.join(os.path.dirname(os.path.realpath(submit)), "spark-class")


def wait_for_worker(ui_port, deadline):
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as r:
                if json.load(r).get("aliveworkers", 0) >= 1:
                    return True
        except (OSError, ValueError, http.client.HTTPException):
            # A master still starting may answer before its page is ready: an empty, partial or cut
            # off body (ValueError from json, IncompleteRead) means "not yet", like a refused connection.
            pass
        time.sleep(0.5)
    return False


def check_standalone(perimeter, tmp, cond, obs):
    label = "spark-submit to a standalone cluster (1 master, 1 worker of 2 cores), city csv N=5"
    print(label)
    env = dict(os.environ, SPARK_WORKER_DIR=os.path.join(tmp, "worker"),
               SPARK_LOG_DIR=os.path.join(tmp, "logs"), PYSPARK_PYTHON=sys.executable,
               SPARK_LOCAL_IP="127.0.0.1")
    port, ui, worker_ui = free_port(), free_port(), free_port()
    master_url = f"spark://127.0.0.1:{port}"
    cls = spark_class()
    logs = open(os.path.join(tmp, "cluster.log"), "wb")
    started = time.time()
    daemons = [subprocess.Popen([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                 "--port", str(port), "--webui-port", str(ui)],
                                env=env, stdout=logs, stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        daemons.append(subprocess.Popen(
            [cls, "org.apache.spark.deploy.worker.Worker", master_url, "--cores", "2",
             "--memory", "2g", "--webui-port", str(worker_ui)],
            env=env, stdout=logs, stderr=subprocess.STDOUT, start_new_session=True))
        up = wait_for_worker(ui, time.time() + 90)
        check(up, f"{label}: the worker registered ({time.time() - started:.1f} s)")
        if not up:
            return
        out = os.path.join(tmp, "standalone-out")
        # A copy of the binary outside the repository: the executor must get it by shipping.
        binary = os.path.join(tmp, "bin", "perimeter")
        os.makedirs(os.path.dirname(binary))
        shutil.copy2(perimeter, binary)
        cmd = [shutil.which("spark-submit"), "--master", master_url, "--conf", "spark.ui.enabled=false",
               "--executor-memory", "1g", os.path.join(HERE, "perimeter_spark.py"),
               "--perimeter", binary, "--conditions", cond, "--observations", obs, "--out", out,
               "--partitions", "5", "--out-format", "jsonl"]
        t = time.time()
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        print(f"  {label}: {time.time() - t:.2f} s")
        check(r.returncode == 0, f"{label}: exit status 0 (got {r.returncode})")
        if r.returncode != 0:
            print(r.stderr.decode("utf-8", "replace")[-3000:])
            return
        compare(tool_events(perimeter, cond, obs), spark_events(None, out, "jsonl"), label)
        apps = os.listdir(env["SPARK_WORKER_DIR"])
        shipped = [f for a in apps for root, _, files in os.walk(os.path.join(env["SPARK_WORKER_DIR"], a))
                   for f in files if f.endswith("-perimeter")]
        check(len(apps) == 1 and shipped,
              f"{label}: the executor ran in the worker's own directory, with the shipped binary "
              f"({shipped[:1]})")
    finally:
        for d in reversed(daemons):
            try:
                os.killpg(d.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for d in daemons:
            try:
                d.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(d.pid, signal.SIGKILL)
        logs.close()
