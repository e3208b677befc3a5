#!/usr/bin/env python3
"""Write a large beacon-ranging workload for benchmarks of `perimeter range` (no oracle).

    python3 scripts/make_ranging_workload.py --constraints N --sightings M --devices D \
        --seed S --out-dir DIR

writes

- DIR/conditions.geojson: N beacon features, all with `"ranging": true`, over a shared pool of
  about N / 40 UUIDs: about 1 % UUID only (`site-U`, on half of the UUIDs at most), about 25 %
  UUID + major (`room-U-MAJOR`) and the rest UUID + major + minor (`desk-U-MAJOR-MINOR`), the
  desks under the rooms' majors. Every identity is distinct, so a sighting matches at most three
  constraints (its site, its room, its desk), and most match one to three; in file order the kinds
  are shuffled (seeded).
- DIR/sightings.csv: header `type,device,t,uuid,major,minor,rssi`, then M sightings over D devices
  (`dev-000000`...), round-robin, one per device per second: device d's k-th sighting is at
  2026-03-02T09:00:00Z + k + a fraction of a second below 1 (Unix seconds, 3 decimals), so each
  device's records are in time order. Each device stays in a room (UUID and major) for about 30
  sightings and then moves; the minor is drawn over a little more than the desks of that room;
  about 5 % of the rooms are unknown majors and 3 % of sightings are of a UUID outside the pool
  (these match a site or nothing); RSSI uniform in -95...-40, 2 % of them 0.

With `--rooms-only`, every constraint is a room (UUID + major) of 6 beacons (minors 0-5), as a
museum guide ranges the room its visitor is in; with `--per-second K`, each device sees K sightings
a second (of its room's beacons), and stays in a room for the same number of seconds.

Deterministic for a given seed. Written streaming, in constant memory (N features are built one at
a time too), at about a few million lines a minute.
"""

import argparse
import json
import math
import os
import random
import sys
import time
import uuid as uuidlib

BASE_UNIX = 1772442000  # 2026-03-02T09:00:00Z
CHUNK = 20000


def layout(n, rooms_only=False):
    """Counts and spans of the constraints: (uuids, sites, rooms, desks, majors, minors)."""
    uuids = max(1, math.ceil(n / 40))
    if rooms_only:  # the museum: a constraint per room, rooms of `minors` beacons
        return uuids, 0, n, 0, max(1, math.ceil(n / uuids)), 6
    sites = min(max(1, uuids // 2), max(0, n // 80) or (1 if n >= 3 else 0))
    rooms = max(1, n // 4) if n >= 2 else 0
    rooms = min(rooms, n - sites)
    desks = n - sites - rooms
    majors = max(1, math.ceil(rooms / uuids))  # majors per UUID in use by rooms (and desks)
    minors = max(1, math.ceil(desks / (uuids * majors)))  # minors per room in use by desks
    return uuids, sites, rooms, desks, majors, minors


def constraint(kind, k, pool, spans):
    uuids, _, _, _, majors, _ = spans
    if kind == 0:  # site: UUID only, on UUIDs 0, 2, 4, ...
        u = (2 * k) % uuids
        return "site-%d" % u, {"uuid": pool[u]}
    if kind == 1:  # room: UUID + major
        u, major = k % uuids, k // uuids
        return "room-%d-%d" % (u, major), {"uuid": pool[u], "major": major}
    u, q = k % uuids, k // uuids  # desk: UUID + major + minor, under the rooms' majors
    major, minor = q % majors, q // majors
    return "desk-%d-%d-%d" % (u, major, minor), {"uuid": pool[u], "major": major, "minor": minor}


def write_conditions(path, n, pool, spans, rng):
    _, sites, rooms, desks, _, _ = spans
    remaining = [sites, rooms, desks]
    taken = [0, 0, 0]
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write('{"type": "FeatureCollection", "features": [\n')
        for i in range(n):
            # draw a kind in proportion to what is left: a shuffle in constant memory
            pick = rng.randrange(sum(remaining))
            kind = 0 if pick < remaining[0] else (1 if pick < remaining[0] + remaining[1] else 2)
            remaining[kind] -= 1
            identifier, beacon = constraint(kind, taken[kind], pool, spans)
            taken[kind] += 1
            feature = {"type": "Feature", "id": identifier, "geometry": None,
                       "properties": {"beacon": beacon, "ranging": True}}
            f.write(("  " if i == 0 else ",\n  ") + json.dumps(feature, separators=(",", ":")))
        f.write("\n]}\n")


def write_sightings(path, m, d, pool, spans, rng, per_second=1):
    uuids, _, _, _, majors, minors = spans
    stranger = str(uuidlib.UUID(int=rng.getrandbits(128))).upper()  # in no constraint
    names = ["dev-%06d" % i for i in range(d)]
    minor_span = max(2, minors + max(1, minors // 4))  # a little more than the desks of a room
    if spans[3] == 0 and spans[1] == 0:
        minor_span = minors  # rooms only: each room's beacons
    rssi_text = [str(v) for v in range(-95, -39)]
    random_ = rng.random

    def new_room():
        u = pool[int(random_() * uuids)]
        if random_() < 0.05:
            major = majors + int(random_() * 100)  # a major with no room
        else:
            major = int(random_() * majors)
        return [u, str(major), 0]

    rooms = [new_room() for _ in range(d)]
    for room in rooms:
        room[2] = int(random_() * 60) * per_second  # sightings left before moving
    written = 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("type,device,t,uuid,major,minor,rssi\n")
        k = 0
        buffer = []
        while written < m:
            second = BASE_UNIX + k // per_second
            for i in range(min(d, m - written)):
                room = rooms[i]
                room[2] -= 1
                if room[2] < 0:
                    room[:] = new_room()
                    room[2] = (15 + int(random_() * 30)) * per_second
                r = random_()
                beacon_uuid = stranger if r < 0.03 else room[0]
                rssi = "0" if r > 0.98 else rssi_text[int(random_() * 56)]
                millisecond = (k % per_second) * 1000 // per_second + int(random_() * 1000 / per_second)
                buffer.append("sighting,%s,%d.%03d,%s,%s,%d,%s\n" % (
                    names[i], second, millisecond, beacon_uuid, room[1],
                    int(random_() * minor_span), rssi))
                if len(buffer) >= CHUNK:
                    f.write("".join(buffer))
                    buffer.clear()
            written += min(d, m - written)
            k += 1
        f.write("".join(buffer))
    return k


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--constraints", type=int, required=True)
    parser.add_argument("--sightings", type=int, required=True)
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--rooms-only", action="store_true",
                        help="every constraint a room (UUID + major) of 6 beacons, as a museum ranges")
    parser.add_argument("--per-second", type=int, default=1, help="sightings per device per second")
    args = parser.parse_args(argv)
    if args.constraints < 1 or args.sightings < 0 or args.devices < 1:
        parser.error("--constraints and --devices must be >= 1, --sightings >= 0")
    started = time.monotonic()
    rng = random.Random(args.seed)
    spans = layout(args.constraints, args.rooms_only)
    pool = [str(uuidlib.UUID(int=rng.getrandbits(128), version=4)).upper() for _ in range(spans[0])]
    os.makedirs(args.out_dir, exist_ok=True)
    write_conditions(os.path.join(args.out_dir, "conditions.geojson"), args.constraints, pool,
                     spans, rng)
    seconds = write_sightings(os.path.join(args.out_dir, "sightings.csv"), args.sightings,
                              args.devices, pool, spans, rng, args.per_second)
    uuids, sites, rooms, desks, majors, minors = spans
    print("make_ranging_workload: %d constraints (%d UUIDs: %d sites, %d rooms, %d desks), "
          "%d sightings over %d devices and %d s, in %.1f s"
          % (args.constraints, uuids, sites, rooms, desks, args.sightings, args.devices, seconds // args.per_second,
             time.monotonic() - started), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
