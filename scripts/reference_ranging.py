#!/usr/bin/env python3
"""Reference implementation (test oracle) of Perimeter's beacon ranging (docs/ranging.md, SPEC §5.2).

Written from docs/ranging.md alone (with docs/authorization.md for the verdict); it reuses
scripts/reference_monitor.py for reading observations and conditions, for time arithmetic and
for the authorization model, which it runs over every record as `perimeter evaluate` would.

Ranging constraints are the beacon features of the conditions file with
`"properties": {"ranging": true}`, in file order, named by their `id`. For every device and
constraint a result is due at each whole second `s` (Unix seconds) for which a matching sighting of
that device has a time `t` with `s - window < t <= s`. A result lists each concrete beacon
(UUID, major, minor) with a matching sighting in the window:

- `rssi`: the mean of its non-zero RSSI values in the window (the integer sum divided by the count,
  one float division); 0.0 if all were 0;
- `distance`: 10 ** ((power - rssi) / (10 * n)), `power` the measured power of its latest sighting
  in the window (field `power`, default -59, whatever that sighting's rssi), n the path-loss
  exponent; -1.0 when rssi is 0;
- `proximity`: `unknown` when rssi is 0 or no sighting of it (of any rssi) has s - 2 < t <= s;
  else `immediate` below 0.5 m, `near` below 4 m, `far` otherwise;

ordered: known proximities by distance, then the unknown ones; ties (and the unknown among
themselves) by UUID (as 128-bit numbers, the same as upper-case text), then major, then minor.
`cause` is the line of the latest matching sighting in the window (at equal times, the later line).

When results are written: per record of a device at time t, first the device's results due at the
seconds s < t (by second, then constraint order), then the record goes to the monitor, then (if it
is a sighting) it joins the window of each matching constraint. At the end of the input each
device, in the order of its first record, gets its results for the seconds s <= its last record's
time (only that second itself can be left, when the last time is whole); nothing after it.

The verdict of a result at s is the monitoring verdict (docs/authorization.md) taken on a copy of
the device's authorization as of its latest record, with the lapses due by s applied; `held`
becomes `dropped`, reason `insufficientlyInUse` (nothing is held for ranging). Reduced accuracy is
rule 5 of the table already (`accuracyLimited`).

All window arithmetic is in integer nanoseconds: a sighting at t_ns is in the window of s when
s * 1e9 - window_ns < t_ns <= s * 1e9, the window being any number > 0 of seconds, exact to the
nanosecond. Numbers are written as the shortest decimal that reads back as the same double: whole numbers
without a fraction (-61.5, -70, 0, -1).

Usage:
    python3 scripts/reference_ranging.py --conditions FILE --observations FILE \
        [--ranging-window S] [--path-loss-exponent N] \
        [--initial-authorization always|notDetermined|restricted] [--grace-period S] \
        [--holding-capacity N] [--maximum-holding-age S] \
        [--hysteresis M] [--accuracy-weight K] [--confirmation S] \
        [--beacon-exit-timeout S] [--assume unknown|satisfied|unsatisfied]

Result lines go to stdout. A bad record or conditions file: a message on stderr, exit 1, no
output. A bad option, or conditions without any ranging constraint: exit 64.

Dependencies: the Python standard library and shapely 2 (through reference_monitor).
"""

import argparse
import collections
import copy
import csv
import json
import math
import os
import re
import sys
import uuid as uuidlib
from decimal import Decimal, InvalidOperation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_monitor as rm  # noqa: E402

NS = rm.NS_PER_S
MAX_NS = 2**63 - 1  # a duration beyond 64-bit nanoseconds is the longest there is (state.md)
DEFAULT_POWER = -59
STALE_NS = 2 * NS  # a beacon with no sighting in (s - 2 s, s] is `unknown`
USAGE = 64


class UsageError(Exception):
    pass


# --------------------------------------------------------------------------- constraints

class Constraint:
    def __init__(self, order, identifier, uuid_value, major, minor):
        self.order = order  # position among the ranging constraints (file order)
        self.identifier = identifier
        self.uuid = uuid_value  # uuid.UUID
        self.major = major
        self.minor = minor

    def matches(self, beacon_uuid, major, minor):
        return (beacon_uuid == self.uuid
                and (self.major is None or self.major == major)
                and (self.minor is None or self.minor == minor))


def load_constraints(path):
    """The ranging constraints of a conditions file, in file order. The file as a whole is checked
    by reference_monitor.load_conditions (which the monitor needs anyway)."""
    with open(path, encoding="utf-8-sig") as f:
        document = json.load(f, parse_float=Decimal)
    constraints = []
    for index, feature in enumerate(document.get("features", [])):
        identifier = feature.get("id")
        properties = feature.get("properties") or {}
        if "ranging" not in properties:
            continue
        ranging = properties["ranging"]
        if not isinstance(ranging, bool):
            raise rm.InputError("%s: features[%d] (id %r): properties.ranging must be true or false, got %r"
                                % (path, index, identifier, ranging))
        if feature.get("geometry") is not None:
            # `ranging` on a circle or polygon is an error, whatever its value
            raise rm.InputError("%s: features[%d] (id %r): properties.ranging is only for beacon features"
                                % (path, index, identifier))
        if not ranging:
            continue
        beacon = properties.get("beacon") or {}
        constraints.append(Constraint(len(constraints), identifier, uuidlib.UUID(beacon["uuid"]),
                                      beacon.get("major"), beacon.get("minor")))
    return constraints


# --------------------------------------------------------------------------- observations
#
# reference_monitor's records do not keep `rssi` and `power`; these readers are its readers with
# both fields added to sightings (rssi required, an integer -200...0; power optional, an integer
# -200...50, default -59).

def integral(value, name, low, high):
    if isinstance(value, bool):
        raise ValueError("%s: expected an integer, got %r" % (name, value))
    try:
        number = Decimal(value) if isinstance(value, (str, int, Decimal)) else None
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite() or number != number.to_integral_value():
        raise ValueError("%s: expected an integer, got %r" % (name, value))
    number = int(number)
    if not low <= number <= high:
        raise ValueError("%s: %d is outside %d...%d" % (name, number, low, high))
    return number


def add_signal(record, fields):
    if record.kind != "sighting":
        for name in ("rssi", "power"):
            if name in fields:
                raise ValueError("a %s record has no field %r" % (record.kind, name))
        return record
    if "rssi" not in fields:
        raise ValueError("sighting without 'rssi'")
    record.rssi = integral(fields["rssi"], "rssi", -200, 0)
    record.power = integral(fields["power"], "power", -200, 50) if "power" in fields else DEFAULT_POWER
    record.beacon_uuid = uuidlib.UUID(record.uuid)
    return record


def read_jsonl(path):
    with open(path, encoding="utf-8-sig") as f:
        for line_number, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                fields = json.loads(text, parse_float=Decimal)
                if not isinstance(fields, dict):
                    raise ValueError("not a JSON object")
                fields = {k: v for k, v in fields.items() if v is not None}  # null: absent
                record = rm.build_record(line_number, fields, rm.time_from_json, rm.json_float,
                                         rm.json_int)
                yield add_signal(record, fields)
            except (ValueError, InvalidOperation) as error:
                raise rm.InputError("%s:%d: %s" % (path, line_number, error))


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            return
        header = [name.strip() for name in header]
        for row in reader:
            line_number = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            try:
                if len(row) != len(header):
                    raise ValueError("%d cells, the header has %d" % (len(row), len(header)))
                fields = {name: cell for name, cell in zip(header, row) if cell != ""}
                record = rm.build_record(line_number, fields, rm.time_from_cell, float, int,
                                         rm.cell_bool)
                yield add_signal(record, fields)
            except (ValueError, InvalidOperation) as error:
                raise rm.InputError("%s:%d: %s" % (path, line_number, error))


def read_observations(path):
    lower = path.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return read_jsonl(path)
    if lower.endswith(".csv"):
        return read_csv(path)
    raise rm.InputError("%s: observations must end in .jsonl, .ndjson, .json or .csv" % path)


# --------------------------------------------------------------------------- ranging

Sighting = collections.namedtuple("Sighting", "t line key rssi power")


def ceil_div(a, b):
    return -((-a) // b)


class DeviceRanging:
    def __init__(self, name, constraint_count, first_t):
        self.name = name
        self.windows = [collections.deque() for _ in range(constraint_count)]
        self.next_s = ceil_div(first_t, NS)  # every second before this one has been handled
        self.last_t = first_t


class Ranging:
    def __init__(self, constraints, monitor, window_ns, exponent):
        self.constraints = constraints
        self.monitor = monitor
        self.window_ns = window_ns
        self.exponent = exponent
        self.by_uuid = collections.defaultdict(list)
        for constraint in constraints:
            self.by_uuid[constraint.uuid].append(constraint)
        self.devices = {}  # insertion order = order of first record
        self.results = []  # output lines (text)

    # ----------------------------------------------------------------- feeding

    def records(self, records):
        """Wraps the record stream given to the monitor: before the monitor takes a record, the
        results due before it are written (with the device's authorization as of its previous
        record, which is what the monitor holds then); after, a sighting joins the windows."""
        for record in records:
            device = self.devices.get(record.device)
            if device is None:
                device = DeviceRanging(record.device, len(self.constraints), record.t)
                self.devices[record.device] = device
            elif record.t >= device.last_t:
                self.run_up_to(device, (record.t - 1) // NS)  # the seconds s with s * 1e9 < t
            # (an older record is refused by the monitor, which stops the run)
            yield record
            device.last_t = record.t
            if record.kind == "sighting":
                self.add(device, record)

    def add(self, device, record):
        key = (record.beacon_uuid, record.major, record.minor)
        sighting = Sighting(record.t, record.line, key, record.rssi, record.power)
        for constraint in self.by_uuid.get(record.beacon_uuid, ()):
            if constraint.matches(*key):
                device.windows[constraint.order].append(sighting)

    def finish(self):
        for device in self.devices.values():
            self.run_up_to(device, device.last_t // NS)  # the seconds s with s * 1e9 <= last t

    # ----------------------------------------------------------------- results

    def run_up_to(self, device, last_s):
        """Write the device's results for the seconds next_s...last_s."""
        s = device.next_s
        while s <= last_s:
            low = s * NS - self.window_ns  # a sighting is in the window when low < t <= s * NS
            any_left = False
            for constraint in self.constraints:
                window = device.windows[constraint.order]
                while window and window[0].t <= low:
                    window.popleft()
                if window:
                    any_left = True
                    self.result(device, constraint, s)
            if not any_left:
                break  # nothing can come back before the device's next sighting
            s += 1
        device.next_s = max(device.next_s, last_s + 1)

    def result(self, device, constraint, s):
        s_ns = s * NS
        window = [sighting for sighting in device.windows[constraint.order] if sighting.t <= s_ns]
        if not window:
            return  # (cannot happen: every sighting in a window is at or before the next second due)
        beacons = {}  # key -> [sum of non-zero rssi, count of non-zero, power of latest, latest t]
        for sighting in window:  # in time order, then line order
            entry = beacons.setdefault(sighting.key, [0, 0, None, None])
            if sighting.rssi != 0:
                entry[0] += sighting.rssi
                entry[1] += 1
            entry[2] = sighting.power
            entry[3] = sighting.t
        cause = window[-1].line
        known, unknown = [], []
        for key, (total, count, power, latest) in beacons.items():
            if count == 0:
                rssi = 0.0
                distance = -1.0
            else:
                rssi = total / count
                distance = 10 ** ((power - rssi) / (10 * self.exponent))
                if not math.isfinite(distance):
                    raise rm.InputError("distance of %s at %s overflows (path-loss exponent %r)"
                                        % (key, rm.format_date(s_ns), self.exponent))
            if count == 0 or not latest > s_ns - STALE_NS:
                proximity = "unknown"
            elif distance < 0.5:
                proximity = "immediate"
            elif distance < 4:
                proximity = "near"
            else:
                proximity = "far"
            identity = (key[0].int, key[1], key[2])
            item = (key, rssi, distance, proximity)
            if proximity == "unknown":
                unknown.append((identity, item))
            else:
                known.append(((distance,) + identity, item))
        ordered = [item for _, item in sorted(known)] + [item for _, item in sorted(unknown)]
        delivery, reason = self.verdict(device, s_ns)
        self.results.append(format_result(device.name, constraint.identifier, s_ns, ordered,
                                          delivery, reason, cause))

    def verdict(self, device, s_ns):
        monitored = self.monitor.devices.get(device.name)
        auth = copy.copy(monitored.auth)  # settle() changes only plain attributes
        delivery, reason, _ = self.monitor.verdict(auth, s_ns)
        if delivery == "held":
            return "dropped", "insufficientlyInUse"
        return delivery, reason


def format_number(value):
    """The shortest decimal that reads back as the same double: a whole number below 1e16 without a
    fraction (`-60`, `0`, `-1`), anything else as Python's repr (`-61.5`, `1.1220184543019633`)."""
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(repr(x))
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    if x.is_integer() and abs(x) < 1e16:
        return "%d" % int(x)
    return repr(x)


def format_result(device, constraint, s_ns, beacons, delivery, reason, cause):
    items = []
    for (beacon_uuid, major, minor), rssi, distance, proximity in beacons:
        items.append('{"uuid":%s,"major":%d,"minor":%d,"rssi":%s,"distance":%s,"proximity":%s}' % (
            rm.json_string(str(beacon_uuid).upper()), major, minor, format_number(rssi),
            format_number(distance), rm.json_string(proximity)))
    return ('{"device":%s,"constraint":%s,"date":%s,"beacons":[%s],"delivery":%s,"reason":%s,'
            '"cause":%d}') % (
        rm.json_string(device), rm.json_string(constraint), rm.json_string(rm.format_date(s_ns)),
        ",".join(items), rm.json_string(delivery),
        "null" if reason is None else rm.json_string(reason), cause)


# --------------------------------------------------------------------------- command line

def positive_seconds(text, name):
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise UsageError("%s: not a number: %r" % (name, text))
    if not value.is_finite() or value <= 0:
        raise UsageError("%s: must be a finite number > 0" % name)
    return min(rm.seconds_to_ns(value), MAX_NS) or 1  # below 1 ns: 1 ns, never 0


def seconds_option(text, name):
    try:
        return min(rm.parse_seconds_option(text, name), MAX_NS)
    except rm.InputError as error:
        raise UsageError(str(error))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conditions", required=True)
    parser.add_argument("--observations", required=True)
    parser.add_argument("--ranging-window", default="20")
    parser.add_argument("--path-loss-exponent", default="2.0")
    parser.add_argument("--initial-authorization", choices=rm.INITIAL_AUTHORIZATIONS, default=rm.ALWAYS)
    parser.add_argument("--grace-period", default="5")
    parser.add_argument("--holding-capacity", default="1")
    parser.add_argument("--maximum-holding-age", default="3600")
    parser.add_argument("--hysteresis", type=float, default=0.0)
    parser.add_argument("--accuracy-weight", type=float, default=1.0)
    parser.add_argument("--confirmation", default="0")
    parser.add_argument("--beacon-exit-timeout", default="30")
    parser.add_argument("--assume", choices=rm.STATES, default=rm.UNKNOWN)
    args = parser.parse_args(argv)
    try:
        window_ns = positive_seconds(args.ranging_window, "--ranging-window")
        try:
            exponent = float(Decimal(args.path_loss_exponent))
        except InvalidOperation:
            raise UsageError("--path-loss-exponent: not a number: %r" % args.path_loss_exponent)
        if not (math.isfinite(exponent) and exponent > 0):
            raise UsageError("--path-loss-exponent must be a finite number > 0")
        if not re.fullmatch(r"[0-9]+", args.holding_capacity):
            raise UsageError("--holding-capacity must be an integer >= 0")
        if not (math.isfinite(args.hysteresis) and args.hysteresis >= 0):
            raise UsageError("--hysteresis must be a finite number >= 0")
        if not (math.isfinite(args.accuracy_weight) and args.accuracy_weight >= 0):
            raise UsageError("--accuracy-weight must be a finite number >= 0")
        exit_timeout_ns = seconds_option(args.beacon_exit_timeout, "--beacon-exit-timeout")
        if exit_timeout_ns == 0:
            raise UsageError("--beacon-exit-timeout must be > 0")
        grace_ns = seconds_option(args.grace_period, "--grace-period")
        age_ns = seconds_option(args.maximum_holding_age, "--maximum-holding-age")
        confirmation_ns = seconds_option(args.confirmation, "--confirmation")
    except UsageError as error:
        print("reference_ranging: %s" % error, file=sys.stderr)
        return USAGE
    try:
        conditions = rm.load_conditions(args.conditions)
        constraints = load_constraints(args.conditions)
        if not constraints:
            print("reference_ranging: %s: no beacon feature has \"ranging\": true, so there is nothing "
                  "to range" % args.conditions, file=sys.stderr)
            return USAGE
        monitor = rm.Monitor(
            conditions,
            hysteresis=args.hysteresis,
            accuracy_weight=args.accuracy_weight,
            confirmation_ns=confirmation_ns,
            exit_timeout_ns=exit_timeout_ns,
            assume=args.assume,
            initial_authorization=args.initial_authorization,
            grace_ns=grace_ns,
            holding_capacity=int(args.holding_capacity),
            maximum_holding_age_ns=age_ns,
        )
        ranging = Ranging(constraints, monitor, window_ns, exponent)
        monitor.process(ranging.records(read_observations(args.observations)), args.observations)
        ranging.finish()
    except rm.InputError as error:
        print("reference_ranging: %s" % error, file=sys.stderr)
        return 1
    out = sys.stdout
    out.reconfigure(encoding="utf-8", newline="\n")
    for line in ranging.results:
        out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
