#!/usr/bin/env python3
"""What a Spark user does today without Perimeter: stateless containment of fixes with shapely 2.

    spark-submit --master 'local[2]' Benchmarks/spark/shapely_job.py \
        --conditions C.geojson --observations fixes.csv --out DIR [--count] [--partitions N] \
        [--polygon-strategy polygon-tree|points-tree|covered-by] [--batch ROWS]

1. Reads the fixes CSV with Spark (`spark.read.csv`, header; columns named by the header,
   `device` and `type` as strings, every other column as double; rows whose `type` is not `fix`
   are dropped when there is a `type` column).
2. Repartitions by device into N partitions (`repartition(N, "device")`).
3. In `mapInPandas`, once per task, loads the conditions file (shipped with `sc.addFile`) and
   builds the indexes of `Benchmarks/peers/shapely_peer.py` (shipped with `addPyFile`):
   circles: an STRtree of each circle's conservative lat/lon box, queried with the batch's points,
   then the haversine distance on the candidate pairs with numpy, `d <= radius`;
   polygons: shapely 2 vectorised, the peer's strategies (default `polygon-tree`: STRtree of the
   polygons queried with the batch's points, then `shapely.covers` of the prepared polygons on the
   candidate pairs; `points-tree`: an STRtree of the batch's points queried with all prepared
   polygons, `predicate="covers"`; `covered-by`: `tree.query(points, predicate="covered_by")`).
4. Outputs one row (device, t, condition) per containing (fix, condition) pair, `condition` the
   0-based index of the feature in the conditions file; writes them as Parquet to `--out`, or with
   `--count` only counts them (printed on standard output as `containments N`).

What it does NOT do, that `perimeter evaluate` does:
- no state: each fix is tested alone; there are no entered/exited transitions, no per-device
  state machine, so no events at all (a fix inside a zone gives a row at every fix, not one event);
- no hysteresis, dwell, or debouncing; no handling of out-of-order or duplicate fixes;
- no accuracy margins: a fix's `accuracy` is ignored, the point is taken as exact (Perimeter decides
  satisfied/unsatisfied/unknown from the accuracy disc against the region);
- no authorization / delivery policy (held, dropped, provisional), no groups/audiences, no
  diagnostics, no `cause` line, no validation of bad records (Spark's CSV reader turns them into
  nulls, which are dropped here);
- only circles (GeoJSON Point + `radius`) and (Multi)Polygons; no beacons or other condition kinds.
"""

import argparse
import os
import sys
import time

from pyspark import SparkFiles
from pyspark.sql import SparkSession
from pyspark.sql.types import DoubleType, IntegerType, StringType, StructField, StructType

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.normpath(os.path.join(HERE, "..", "peers", "shapely_peer.py"))
OUT_SCHEMA = StructType([
    StructField("device", StringType(), False),
    StructField("t", DoubleType(), False),
    StructField("condition", IntegerType(), False),
])


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conditions", required=True)
    p.add_argument("--observations", required=True, help="fixes CSV with a header")
    p.add_argument("--out", help="Parquet output directory (overwritten)")
    p.add_argument("--count", action="store_true", help="count the pairs instead of writing them")
    p.add_argument("--partitions", type=int, default=None,
                   help="default: spark.default.parallelism")
    p.add_argument("--polygon-strategy", default="polygon-tree",
                   choices=["polygon-tree", "points-tree", "covered-by"])
    p.add_argument("--batch", type=int, default=100_000,
                   help="spark.sql.execution.arrow.maxRecordsPerBatch (rows per pandas batch)")
    a = p.parse_args(argv)
    if not a.count and not a.out:
        p.error("give --out DIR or --count")
    return a


def load_conditions(path):
    """(circle feature indices, lat, lon, radius), (polygon feature indices, polygons)."""
    import json
    import numpy as np
    import shapely
    from shapely.geometry import shape
    with open(path) as f:
        features = json.load(f)["features"]
    ci, clat, clon, crad, pi, polys = [], [], [], [], [], []
    for k, feat in enumerate(features):
        g = feat["geometry"]
        if g["type"] == "Point":
            r = (feat.get("properties") or {}).get("radius")
            if r is None:
                continue
            ci.append(k)
            clon.append(g["coordinates"][0])
            clat.append(g["coordinates"][1])
            crad.append(float(r))
        elif g["type"] in ("Polygon", "MultiPolygon"):
            pi.append(k)
            polys.append(shape(g))
    return ((np.array(ci, dtype=np.int32), np.array(clat, dtype=float), np.array(clon, dtype=float),
             np.array(crad, dtype=float)),
            (np.array(pi, dtype=np.int32), np.array(polys, dtype=object) if polys else
             np.empty(0, dtype=object)))


def make_task(conditions_name, strategy):
    def task(batches):
        import numpy as np
        import pandas as pd
        import shapely
        from shapely_peer import CircleIndex, PolygonIndex  # shipped with addPyFile

        (ci, clat, clon, crad), (pi, polys) = load_conditions(SparkFiles.get(conditions_name))
        circles = CircleIndex(clat, clon, crad) if len(ci) else None
        polygons = PolygonIndex(polys, strategy) if len(pi) else None
        for df in batches:
            df = df.dropna(subset=["device", "t", "lat", "lon"])
            lat = df["lat"].to_numpy(dtype=float)
            lon = df["lon"].to_numpy(dtype=float)
            points = shapely.points(lon, lat)
            rows_i, rows_j = [], []
            if circles is not None:
                i, j = circles.query(points, lat, lon)
                rows_i.append(i)
                rows_j.append(ci[j])
            if polygons is not None:
                i, j = polygons.query(points)
                rows_i.append(i)
                rows_j.append(pi[j])
            i = np.concatenate(rows_i) if rows_i else np.empty(0, np.int64)
            j = np.concatenate(rows_j) if rows_j else np.empty(0, np.int32)
            yield pd.DataFrame({
                "device": df["device"].to_numpy()[i],
                "t": df["t"].to_numpy(dtype=float)[i],
                "condition": j.astype(np.int32),
            })
    return task


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    spark = (SparkSession.builder.appName("shapely-containment")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(a.batch))
             .getOrCreate())
    try:
        sc = spark.sparkContext
        n = a.partitions or sc.defaultParallelism
        sc.addPyFile(PEER)
        sc.addFile(os.path.abspath(a.conditions))
        with open(a.observations, encoding="utf-8") as f:  # the header names the columns
            names = [c.strip() for c in f.readline().lstrip("\ufeff").rstrip("\r\n").split(",")]
        schema = StructType([StructField(c, StringType() if c in ("device", "type") else DoubleType(),
                                         True) for c in names])
        fixes = spark.read.csv(a.observations, header=True, schema=schema)
        if "type" in names:
            fixes = fixes.filter(fixes["type"] == "fix")
        fixes = fixes.select("device", "t", "lat", "lon").repartition(n, "device")
        pairs = fixes.mapInPandas(make_task(os.path.basename(a.conditions), a.polygon_strategy),
                                  OUT_SCHEMA)
        t = time.perf_counter()
        if a.count:
            print(f"containments {pairs.count()}")
        else:
            pairs.write.mode("overwrite").parquet(a.out)
        print(f"shapely_job: {time.perf_counter() - t:.2f} s in the action", file=sys.stderr)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
