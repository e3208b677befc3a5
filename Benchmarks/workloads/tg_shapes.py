"""The polygons of tidwall/tg's own benchmark, for the single-polygon workloads of generate.py.

* ``read_shapes(DIR)``: tg's test shapes (Rhode Island ``ri``, Arizona ``az``, Texas ``tx``,
  British Columbia ``bc``, Brazil ``br``), read from ``DIR/tests/shapes.h`` of a copy of tg's source
  that the caller provides. They are C macros of ``{x, y}`` pairs (x = longitude, y = latitude),
  each ring closed; tg's data is never copied into this repository, only read at generation time.
* ``random_polygon(rng)``: the "Random-10000" polygon of tg's ``tests/bench.c``
  (``test_pip_bench_rand_polygon`` -> ``make_polygon`` in ``tests/tests.h``), made with the same
  formula from our own random numbers, so that it needs no copy of tg.
"""

from __future__ import annotations

import hashlib
import math
import os
import re

# test_pip_bench_rand_polygon's parameters: a centre in Tempe, Arizona, a radius of 0.002 degrees,
# radii shrunk by up to 70 % (c) and angles jittered by up to 70 % of a step (s).
RANDOM_X, RANDOM_Y, RANDOM_R, RANDOM_C, RANDOM_S = -111.9575, 33.4329, 0.002, 0.7, 0.7

TG_SHAPES = ("ri", "az", "tx", "bc", "br")

_DEFINE = re.compile(r"#define\s+(\w+)\s*\\\s*$")
_PAIR = re.compile(r"\{\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\}")


def shapes_path(tg_dir: str) -> str:
    return os.path.join(tg_dir, "tests", "shapes.h")


def read_shapes(tg_dir: str) -> dict:
    """name -> closed ring [(lon, lat), ...] in the file's order. Python's float() rounds a decimal
    literal correctly, as the C compiler does, so these are the doubles tg's tests use."""
    path = shapes_path(tg_dir)
    with open(path) as f:
        lines = f.read().split("\n")
    shapes: dict = {}
    current = None
    for line in lines:
        m = _DEFINE.match(line)
        if m:
            current = m.group(1)
            shapes[current] = []
            continue
        if current is not None:
            shapes[current] += [(float(x), float(y)) for x, y in _PAIR.findall(line)]
            if not line.rstrip().endswith("\\"):
                current = None
    missing = [n for n in TG_SHAPES if len(shapes.get(n, [])) < 4]
    if missing:
        raise SystemExit(f"{path}: no shape {', '.join(missing)} (is this a copy of tidwall/tg?)")
    for name in TG_SHAPES:
        ring = shapes[name]
        if ring[0] != ring[-1]:
            ring.append(ring[0])
    return {name: shapes[name] for name in TG_SHAPES}


def shapes_digest(tg_dir: str) -> str:
    """SHA-256 of shapes.h, recorded in the manifest to tell which copy of tg the shapes came from."""
    with open(shapes_path(tg_dir), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def random_polygon(rng, n: int = 10_000):
    """tg's make_polygon(n, x, y, r, c, s): point i (of n, the last one repeating the first) at angle
    p·i + p/2 − p·s·u₁ degrees, p = 360/(n − 1), and distance r − r·c·u₂ from the centre, u₁ and u₂
    uniform in [0, 1) (tg draws them from rand(); here from `rng`, two per point, u₁ first). The
    angles strictly increase (each lies in [p(i − 0.2), p(i + 0.5)]), so the ring is simple and
    counter-clockwise, with n − 1 distinct vertices as tg's "Random-10000" has."""
    u = rng.random(2 * n).tolist()
    p = 360.0 / (n - 1)
    ring = []
    for i in range(n - 1):
        th = p * i + p * 0.5 - p * (RANDOM_S * u[2 * i])
        radians = (math.pi / 180.0) * th
        e = RANDOM_R - RANDOM_R * (RANDOM_C * u[2 * i + 1])
        ring.append((RANDOM_X + math.cos(radians) * e, RANDOM_Y + math.sin(radians) * e))
    ring.append(ring[0])
    return ring
