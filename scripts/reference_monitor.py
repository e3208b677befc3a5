#!/usr/bin/env python3
"""Reference implementation (test oracle) of Perimeter's condition state machine.

This is deliberately plain: it favours obviously-correct code over speed. It covers
SPEC.md sections 1, 2 and 4 for geographic (circle, polygon, multipolygon) and beacon
conditions. There is no authorization model: every event is written as delivered,
with no reason and no diagnostics.

Usage:
    python3 scripts/reference_monitor.py --conditions FILE --observations FILE \
        [--hysteresis M] [--accuracy-weight K] [--confirmation S] \
        [--beacon-exit-timeout S] [--assume unknown|satisfied|unsatisfied]

Observations are read as JSON Lines (.jsonl) or CSV (.csv), chosen by extension.
Events are written to stdout as JSON Lines.

Dependencies: the Python standard library and shapely 2 (covers() gives the sign of
the distance to a polygon, exactly as GEOS does).
"""

import argparse
import calendar
import csv
import datetime
import json
import math
import re
import sys
import uuid as uuidlib
from decimal import Decimal, InvalidOperation, ROUND_HALF_EVEN

from shapely.geometry import Point, shape
from shapely.validation import explain_validity

EARTH_RADIUS_M = 6371008.8
NS_PER_S = 10**9
DENSIFY_STEP_M = 10.0

UNKNOWN = "unknown"
SATISFIED = "satisfied"
UNSATISFIED = "unsatisfied"
STATES = (UNKNOWN, SATISFIED, UNSATISFIED)

IGNORED_RECORD_TYPES = ("app", "request", "answer", "settings", "session")


class InputError(Exception):
    pass


# --------------------------------------------------------------------------- time

RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)


def seconds_to_ns(seconds):
    """Decimal seconds -> integer nanoseconds (round half to even below 1 ns)."""
    return int((seconds * NS_PER_S).to_integral_value(rounding=ROUND_HALF_EVEN))


def parse_rfc3339(text):
    """RFC 3339 string -> integer nanoseconds since the Unix epoch."""
    m = RFC3339.match(text)
    if not m:
        raise ValueError("not an RFC 3339 date-time: %r" % text)
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    # datetime validates month/day/hour/minute/second ranges (no leap seconds).
    datetime.datetime(year, month, day, hour, minute, second)
    whole = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    fraction = Decimal("0" + m.group(7)) if m.group(7) else Decimal(0)
    zone = m.group(8)
    if zone in ("Z", "z"):
        offset = 0
    else:
        sign = 1 if zone[0] == "+" else -1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return (whole - offset) * NS_PER_S + seconds_to_ns(fraction)


def format_date(ns):
    """Integer nanoseconds -> UTC RFC 3339 with Z; fraction only when non-zero, trimmed."""
    seconds, fraction = divmod(ns, NS_PER_S)
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        text += "." + ("%09d" % fraction).rstrip("0")
    return text + "Z"


def parse_seconds_option(text, name):
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise InputError("%s: not a number: %r" % (name, text))
    if not value.is_finite() or value < 0:
        raise InputError("%s: must be a finite number >= 0" % name)
    return seconds_to_ns(value)


# --------------------------------------------------------------------------- geometry

def haversine_m(lon1, lat1, lon2, lat2):
    p1 = math.radians(lat1)
    p2 = math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def distance_to_edge_m(lon, lat, a, b):
    """Geodesic distance from (lon, lat) to the edge a-b, straight in lon/lat.

    The edge is cut into pieces of at most DENSIFY_STEP_M (linearly in lon/lat). On each
    piece the closest point is chosen in a local equirectangular plane around the fix
    (in which a straight lon/lat piece stays straight), and the haversine distance to
    that boundary point is taken. The minimum over the pieces is returned.
    """
    (lon_a, lat_a), (lon_b, lat_b) = a, b
    pieces = max(1, int(math.ceil(haversine_m(lon_a, lat_a, lon_b, lat_b) / DENSIFY_STEP_M)))
    x_scale = math.cos(math.radians(lat))
    best = math.inf
    for i in range(pieces):
        s0 = i / pieces
        s1 = (i + 1) / pieces
        p_lon = lon_a + (lon_b - lon_a) * s0
        p_lat = lat_a + (lat_b - lat_a) * s0
        q_lon = lon_a + (lon_b - lon_a) * s1
        q_lat = lat_a + (lat_b - lat_a) * s1
        # local plane, fix at the origin (units: degrees of latitude)
        px, py = (p_lon - lon) * x_scale, p_lat - lat
        qx, qy = (q_lon - lon) * x_scale, q_lat - lat
        dx, dy = qx - px, qy - py
        length2 = dx * dx + dy * dy
        s = 0.0 if length2 == 0 else max(0.0, min(1.0, -(px * dx + py * dy) / length2))
        c_lon = p_lon + (q_lon - p_lon) * s
        c_lat = p_lat + (q_lat - p_lat) * s
        best = min(best, haversine_m(lon, lat, c_lon, c_lat))
    return best


def polygon_rings(geometry):
    polygons = list(geometry.geoms) if geometry.geom_type == "MultiPolygon" else [geometry]
    for polygon in polygons:
        yield list(polygon.exterior.coords)
        for interior in polygon.interiors:
            yield list(interior.coords)


class Condition:
    def __init__(self, index, identifier, kind, assuming):
        self.index = index
        self.identifier = identifier
        self.kind = kind  # "circle" | "polygon" | "beacon"
        self.assuming = assuming  # None -> policy default
        # circle
        self.center = None
        self.radius = None
        # polygon
        self.geometry = None
        self.rings = None
        # beacon
        self.uuid = None
        self.major = None
        self.minor = None

    def signed_distance_m(self, lon, lat):
        if self.kind == "circle":
            return haversine_m(self.center[0], self.center[1], lon, lat) - self.radius
        inside = self.geometry.covers(Point(lon, lat))
        magnitude = math.inf
        for ring in self.rings:
            for a, b in zip(ring, ring[1:]):
                magnitude = min(magnitude, distance_to_edge_m(lon, lat, a, b))
        return -magnitude if inside else magnitude

    def matches(self, sighting_uuid, major, minor):
        if sighting_uuid.lower() != self.uuid.lower():
            return False
        if self.major is not None and self.major != major:
            return False
        if self.minor is not None and self.minor != minor:
            return False
        return True


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def load_conditions(path):
    with open(path, encoding="utf-8") as f:
        document = json.load(f, parse_float=Decimal)
    if not isinstance(document, dict) or document.get("type") != "FeatureCollection":
        raise InputError("%s: not a GeoJSON FeatureCollection" % path)
    conditions = []
    seen = set()
    for index, feature in enumerate(document.get("features", [])):
        identifier = feature.get("id")
        if not isinstance(identifier, str):
            raise InputError("%s: feature %d: id must be a string" % (path, index))
        if identifier in seen:
            raise InputError("%s: duplicate id %r" % (path, identifier))
        seen.add(identifier)
        properties = feature.get("properties") or {}
        assuming = properties.get("assuming")
        if assuming is not None and assuming not in STATES:
            raise InputError("%s: %s: bad assuming %r" % (path, identifier, assuming))
        geometry = feature.get("geometry")
        if geometry is None:
            condition = Condition(index, identifier, "beacon", assuming)
            beacon = properties.get("beacon")
            if not isinstance(beacon, dict) or not isinstance(beacon.get("uuid"), str):
                raise InputError("%s: %s: beacon needs properties.beacon.uuid" % (path, identifier))
            uuidlib.UUID(beacon["uuid"])  # must be a UUID
            condition.uuid = beacon["uuid"]
            condition.major = beacon.get("major")
            condition.minor = beacon.get("minor")
            for name, value in (("major", condition.major), ("minor", condition.minor)):
                if value is not None and not (is_int(value) and 0 <= value <= 65535):
                    raise InputError("%s: %s: bad %s" % (path, identifier, name))
            if condition.minor is not None and condition.major is None:
                raise InputError("%s: %s: minor without major" % (path, identifier))
        elif geometry.get("type") == "Point":
            condition = Condition(index, identifier, "circle", assuming)
            lon, lat = geometry["coordinates"][:2]
            condition.center = (float(lon), float(lat))
            radius = properties.get("radius")
            if not is_number(radius) or not (0 < radius <= 1000000):
                raise InputError("%s: %s: bad radius" % (path, identifier))
            condition.radius = float(radius)
        elif geometry.get("type") in ("Polygon", "MultiPolygon"):
            condition = Condition(index, identifier, "polygon", assuming)
            plain = json.loads(json.dumps(geometry, default=float))
            condition.geometry = shape(plain)
            if not condition.geometry.is_valid:
                raise InputError("%s: %s: invalid polygon: %s"
                                 % (path, identifier, explain_validity(condition.geometry)))
            condition.rings = list(polygon_rings(condition.geometry))
        else:
            raise InputError("%s: %s: unsupported geometry %r" % (path, identifier, geometry.get("type")))
        conditions.append(condition)
    return conditions


# --------------------------------------------------------------------------- observations

class Record:
    def __init__(self, line, kind, device, t):
        self.line = line
        self.kind = kind
        self.device = device
        self.t = t  # integer nanoseconds
        self.lat = self.lon = self.accuracy = None
        self.uuid = self.major = self.minor = None


def time_from_json(value):
    if isinstance(value, str):
        return parse_rfc3339(value)
    if is_number(value):
        return seconds_to_ns(Decimal(value))
    raise ValueError("t must be an RFC 3339 string or a number")


def time_from_cell(text):
    try:
        value = Decimal(text)
    except InvalidOperation:
        return parse_rfc3339(text)
    if not value.is_finite():
        raise ValueError("t is not finite")
    return seconds_to_ns(value)


def build_record(line, fields, read_time, read_float, read_int):
    """fields: field name -> raw value (absent fields missing)."""
    for name in ("type", "device", "t"):
        if name not in fields:
            raise ValueError("missing field %r" % name)
    kind = fields["type"]
    device = fields["device"]
    if not isinstance(kind, str) or not isinstance(device, str):
        raise ValueError("type and device must be strings")
    record = Record(line, kind, device, read_time(fields["t"]))
    if kind == "fix":
        for name in ("lat", "lon", "accuracy"):
            if name not in fields:
                raise ValueError("fix without %r" % name)
        record.lat = read_float(fields["lat"])
        record.lon = read_float(fields["lon"])
        record.accuracy = read_float(fields["accuracy"])
    elif kind == "sighting":
        for name in ("uuid", "major", "minor"):
            if name not in fields:
                raise ValueError("sighting without %r" % name)
        if not isinstance(fields["uuid"], str):
            raise ValueError("uuid must be a string")
        uuidlib.UUID(fields["uuid"])
        record.uuid = fields["uuid"]
        record.major = read_int(fields["major"])
        record.minor = read_int(fields["minor"])
    elif kind not in IGNORED_RECORD_TYPES:
        raise ValueError("unknown record type %r" % kind)
    return record


def json_float(value):
    if not is_number(value):
        raise ValueError("expected a number, got %r" % (value,))
    return float(value)


def json_int(value):
    if not is_int(value):
        raise ValueError("expected an integer, got %r" % (value,))
    return value


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line_number, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                fields = json.loads(text, parse_float=Decimal)
                if not isinstance(fields, dict):
                    raise ValueError("not a JSON object")
                yield build_record(line_number, fields, time_from_json, json_float, json_int)
            except (ValueError, InvalidOperation) as error:
                raise InputError("%s:%d: %s" % (path, line_number, error))


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            return
        for row in reader:
            line_number = reader.line_num  # header is line 1
            if not any(cell.strip() for cell in row):
                continue
            try:
                if len(row) > len(header):
                    raise ValueError("more cells than header columns")
                fields = {name: cell for name, cell in zip(header, row) if cell != ""}
                yield build_record(line_number, fields, time_from_cell, float, int)
            except (ValueError, InvalidOperation) as error:
                raise InputError("%s:%d: %s" % (path, line_number, error))


# --------------------------------------------------------------------------- state machine

class GeoPair:
    def __init__(self, state):
        self.state = state
        self.pending_state = None  # state a pending change leads to
        self.pending_since = None  # time (ns) of the fix that started it


class BeaconPair:
    def __init__(self, state):
        self.state = state
        self.due = None  # time (ns) at which the exit is due, or None


class Device:
    def __init__(self, name, first_t):
        self.name = name
        self.first_t = first_t
        self.last_t = first_t
        self.last_line = None
        self.pairs = {}  # condition identifier -> GeoPair | BeaconPair


class Monitor:
    def __init__(self, conditions, hysteresis, accuracy_weight, confirmation_ns,
                 exit_timeout_ns, assume):
        self.conditions = conditions
        self.hysteresis = hysteresis
        self.accuracy_weight = accuracy_weight
        self.confirmation_ns = confirmation_ns
        self.exit_timeout_ns = exit_timeout_ns
        self.assume = assume
        self.devices = {}  # insertion order = order of first appearance
        self.events = []

    def emit(self, device, condition, state, date, cause, refinement=None):
        self.events.append({
            "device": device.name,
            "identifier": condition.identifier,
            "state": state,
            "date": date,
            "refinement": refinement,
            "cause": cause,
        })

    def new_device(self, name, first_t):
        device = Device(name, first_t)
        for condition in self.conditions:
            initial = condition.assuming or self.assume
            if condition.kind == "beacon":
                pair = BeaconPair(initial)
                if initial != UNSATISFIED:
                    pair.due = first_t + self.exit_timeout_ns
            else:
                pair = GeoPair(initial)
            device.pairs[condition.identifier] = pair
        self.devices[name] = device
        return device

    def fire_exits(self, device, fires, cause):
        """Fire the due beacon exits for which fires(due) is true, by due time then file order."""
        due = []
        for condition in self.conditions:
            if condition.kind != "beacon":
                continue
            pair = device.pairs[condition.identifier]
            if pair.due is not None and fires(pair.due):
                due.append((pair.due, condition.index, condition))
        due.sort(key=lambda item: (item[0], item[1]))
        for when, _, condition in due:
            pair = device.pairs[condition.identifier]
            pair.state = UNSATISFIED
            pair.due = None
            self.emit(device, condition, UNSATISFIED, when, cause)

    def apply_fix(self, device, record):
        if record.accuracy < 0:
            return  # not a valid fix: changes no state
        margin = max(self.hysteresis, self.accuracy_weight * record.accuracy)
        for condition in self.conditions:
            if condition.kind == "beacon":
                continue
            d = condition.signed_distance_m(record.lon, record.lat)
            if d <= -margin:
                side = SATISFIED
            elif d > margin:
                side = UNSATISFIED
            else:
                continue  # uncertain: changes nothing
            pair = device.pairs[condition.identifier]
            if side == pair.state:
                pair.pending_state = None  # confidently on the current side: cancel
                pair.pending_since = None
                continue
            if pair.pending_state != side:
                pair.pending_state = side  # start (or replace) a pending change
                pair.pending_since = record.t
            if record.t - pair.pending_since >= self.confirmation_ns:
                pair.state = side
                pair.pending_state = None
                pair.pending_since = None
                self.emit(device, condition, side, record.t, record.line)

    def apply_sighting(self, device, record):
        for condition in self.conditions:
            if condition.kind != "beacon":
                continue
            if not condition.matches(record.uuid, record.major, record.minor):
                continue
            pair = device.pairs[condition.identifier]
            if pair.state != SATISFIED:
                pair.state = SATISFIED
                refinement = {
                    "uuid": str(uuidlib.UUID(record.uuid)).upper(),
                    "major": record.major,
                    "minor": record.minor,
                }
                self.emit(device, condition, SATISFIED, record.t, record.line, refinement)
            pair.due = record.t + self.exit_timeout_ns  # lastSeen + timeout

    def process(self, records, source="observations"):
        for record in records:
            device = self.devices.get(record.device)
            if device is None:
                device = self.new_device(record.device, record.t)
            elif record.t < device.last_t:
                raise InputError("%s:%d: record of device %r is older than its previous record"
                                 % (source, record.line, record.device))
            t = record.t
            self.fire_exits(device, lambda due: due < t, record.line)
            device.last_t = t
            device.last_line = record.line
            if record.kind == "fix":
                self.apply_fix(device, record)
            elif record.kind == "sighting":
                self.apply_sighting(device, record)
            # other record types only advance the device's clock
        for device in self.devices.values():
            last = device.last_t
            self.fire_exits(device, lambda due: due <= last, device.last_line)


# --------------------------------------------------------------------------- output

def json_string(text):
    return json.dumps(text, ensure_ascii=False)


def format_event(event):
    refinement = event["refinement"]
    if refinement is None:
        refinement_text = "null"
    else:
        refinement_text = '{"uuid":%s,"major":%d,"minor":%d}' % (
            json_string(refinement["uuid"]), refinement["major"], refinement["minor"])
    return ('{"device":%s,"identifier":%s,"state":%s,"date":%s,"delivery":"delivered",'
            '"reason":null,"refinement":%s,"diagnostics":[],"cause":%d}') % (
        json_string(event["device"]), json_string(event["identifier"]),
        json_string(event["state"]), json_string(format_date(event["date"])),
        refinement_text, event["cause"])


def read_observations(path):
    if path.endswith(".jsonl"):
        return read_jsonl(path)
    if path.endswith(".csv"):
        return read_csv(path)
    raise InputError("%s: observations must end in .jsonl or .csv" % path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conditions", required=True)
    parser.add_argument("--observations", required=True)
    parser.add_argument("--hysteresis", type=float, default=0.0)
    parser.add_argument("--accuracy-weight", type=float, default=1.0)
    parser.add_argument("--confirmation", default="0")
    parser.add_argument("--beacon-exit-timeout", default="30")
    parser.add_argument("--assume", choices=STATES, default=UNKNOWN)
    args = parser.parse_args(argv)
    try:
        if not (math.isfinite(args.hysteresis) and args.hysteresis >= 0):
            raise InputError("--hysteresis must be a finite number >= 0")
        if not (math.isfinite(args.accuracy_weight) and args.accuracy_weight >= 0):
            raise InputError("--accuracy-weight must be a finite number >= 0")
        monitor = Monitor(
            load_conditions(args.conditions),
            hysteresis=args.hysteresis,
            accuracy_weight=args.accuracy_weight,
            confirmation_ns=parse_seconds_option(args.confirmation, "--confirmation"),
            exit_timeout_ns=parse_seconds_option(args.beacon_exit_timeout, "--beacon-exit-timeout"),
            assume=args.assume,
        )
        monitor.process(read_observations(args.observations), args.observations)
    except InputError as error:
        print("reference_monitor: %s" % error, file=sys.stderr)
        return 1
    out = sys.stdout
    out.reconfigure(encoding="utf-8", newline="\n")
    for event in monitor.events:
        out.write(format_event(event) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
