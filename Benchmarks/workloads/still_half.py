#!/usr/bin/env python3
"""A stream of fixes in which devices stand still half the time, for measuring what live updates'
pausing saves (`Benchmarks/pausing.sh`).

    python3 Benchmarks/workloads/still_half.py --devices 10000 --seconds 1000 --out FILE [--seed S]

Devices start uniformly in the benchmark's 50 km square centred on Paris (`generate.py`) and take
turns of 300 s walking (1-30 m/s, turning now and then, as the benchmark's devices do) and 300 s
standing (within 5 m of where they stopped), each from its own phase, so that at any second about
half stand still. One fix a device a second, in one shuffled device order, accuracy 5-65 m, as
`generate.py` writes them: CSV `type,device,t,lat,lon,accuracy`. Standard library only.
"""

import argparse
import math
import random

CENTRE_LAT, CENTRE_LON = 48.85, 2.35  # Paris, as generate.py
METRES_PER_DEGREE = 6371008.8 * math.pi / 180
T0 = 1772352000  # 2026-03-01T08:00:00Z
TURN = 300


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--seconds", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=20261127)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    half = 25000.0
    cos_lat = math.cos(math.radians(CENTRE_LAT))
    devices = []
    for _ in range(args.devices):
        devices.append([rng.uniform(-half, half), rng.uniform(-half, half), rng.uniform(1, 30),
                        rng.uniform(0, 2 * math.pi), rng.randrange(2 * TURN)])
    order = list(range(args.devices))
    rng.shuffle(order)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("type,device,t,lat,lon,accuracy\n")
        lines = []
        for second in range(args.seconds):
            for rank, d in enumerate(order):
                device = devices[d]
                standing = ((second + device[4]) // TURN) % 2 == 1
                if not standing:
                    if rng.random() < 0.05:
                        device[3] = rng.uniform(0, 2 * math.pi)
                    device[0] = max(-half, min(half, device[0] + device[2] * math.sin(device[3])))
                    device[1] = max(-half, min(half, device[1] + device[2] * math.cos(device[3])))
                    east, north = device[0], device[1]
                else:
                    r, a = rng.uniform(0, 5), rng.uniform(0, 2 * math.pi)
                    east, north = device[0] + r * math.sin(a), device[1] + r * math.cos(a)
                lat = CENTRE_LAT + north / METRES_PER_DEGREE
                lon = CENTRE_LON + east / (METRES_PER_DEGREE * cos_lat)
                ms = rank * 1000 // args.devices
                lines.append("fix,d%d,%d.%03d,%.7f,%.7f,%d\n" % (d, T0 + second, ms, lat, lon, rng.randint(5, 65)))
            if len(lines) >= 100000:
                f.write("".join(lines))
                lines.clear()
        f.write("".join(lines))


if __name__ == "__main__":
    main()
