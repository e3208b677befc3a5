#!/usr/bin/env python3
"""Reference implementation (test oracle) of Perimeter's condition state machine and delivery.

This is deliberately plain: it favours obviously-correct code over speed. It covers
SPEC.md sections 1, 2 and 4 for geographic (circle, polygon, multipolygon) and beacon
conditions, and section 3 (authorization and delivery: in use and the grace period,
prompts and answers, Settings changes, Allow Once, reduced accuracy and temporary full
accuracy, provisional always with its held events). `config` records (docs/live.md: `live` names a
live configuration) are checked and otherwise only advance the device's clock. `appConfig` records
(docs/sessions.md) are read under every profile; `session` records need `--profile ios18` (else a
bad record, field `type`); both are modelled in reference_sessions.py.

Platform profiles (SPEC section 5.4, docs/profiles.md; the rules are in reference_profiles.py):
`--profile standard` (the default) monitors every condition; `ios17` at most `--condition-limit`
(default 20) conditions of each type (geographic, beacon) in file order; `android` at most
`--condition-limit` (default 100) circles, no polygon or beacon condition, and a `dwelling` event
`--loitering-delay` seconds (default 30) after an entry. Each device gets one `unmonitored` event
per waiting condition at its first record. `--profile ios18` is ios17's limits plus service
sessions (SPEC sections 3 and 5.5, reference_sessions.py), with `--relaunch-window S` (default 10).

Conditions per device (SPEC section 5.6; the rules are in reference_audiences.py): a feature's
`properties.devices` and `properties.groups` name the devices that watch it (with neither, every
device does); `--groups FILE` (CSV `device,group`) gives the groups' members. A device is evaluated
only against the conditions it watches, as if the file held only those (limits count per device).

With the default `--initial-authorization always` every device starts authorized
always, with full accuracy, location services on and the app in the foreground, so a
recording without authorization records has every event delivered.

Usage:
    python3 scripts/reference_monitor.py --conditions FILE --observations FILE \
        [--hysteresis M] [--accuracy-weight K] [--confirmation S] \
        [--beacon-exit-timeout S] [--assume unknown|satisfied|unsatisfied] \
        [--initial-authorization always|notDetermined|restricted] \
        [--grace-period S] [--holding-capacity N] [--maximum-holding-age S] \
        [--profile standard|ios17|ios18|android] [--condition-limit N] [--loitering-delay S] \
        [--relaunch-window S] [--groups FILE] [--request-counts FILE]

Observations are read as JSON Lines (.jsonl) or CSV (.csv), chosen by extension.
Events are written to stdout as JSON Lines. A bad record (including an answer that the
open prompt does not take) is reported as FILE:LINE on stderr, with exit status 1, after the
events of the records before it (as the tool does). --request-counts FILE writes the summary's
line `requests: P prompted, I insufficientlyInUse, N noEffect` when any request was made.

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

import reference_audiences as ra
import reference_profiles as rp
import reference_sessions as rs

EARTH_RADIUS_M = 6371008.8
NS_PER_S = 10**9
DENSIFY_STEP_M = 10.0

UNKNOWN = "unknown"
SATISFIED = "satisfied"
UNSATISFIED = "unsatisfied"
STATES = (UNKNOWN, SATISFIED, UNSATISFIED)

# live updates (docs/live.md): a `config` record names one of these; in monitoring it only moves
# its device's clock
LIVE_CONFIGURATIONS = ("default", "automotiveNavigation", "otherNavigation", "fitness", "airborne")

# authorization (SPEC section 3)
NOT_DETERMINED = "notDetermined"
DENIED = "denied"
RESTRICTED = "restricted"
WHEN_IN_USE = "whenInUse"
ALWAYS = "always"
INITIAL_AUTHORIZATIONS = (ALWAYS, NOT_DETERMINED, RESTRICTED)

FOREGROUND = "foreground"
BACKGROUND = "background"
INDICATOR = "indicator"
TERMINATED = "terminated"
APP_STATES = (FOREGROUND, BACKGROUND, INDICATOR, TERMINATED)

TEMPORARY_FULL_ACCURACY = "temporaryFullAccuracy"
REQUESTS = (WHEN_IN_USE, ALWAYS, TEMPORARY_FULL_ACCURACY)
CHOICES = ("allowOnce", "allowWhileUsing", "deny", "allowAlways", "keepWhileUsing")
SETTINGS_STATUSES = ("never", "whenInUse", "always", "askNextTime")

# open prompts
FIRST_PROMPT = "first"
ALWAYS_PROMPT = "always"
ACCURACY_PROMPT = "temporaryFullAccuracy"


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


# A polygon vertex may miss +-180 or +-90 by float noise (Natural Earth's Russia reaches
# 180.00000000000006): within this it is on the seam or the pole.
SEAM_TOLERANCE = 1e-9


def on_line(value, line):
    return abs(value - line) <= SEAM_TOLERANCE


def is_seam_edge(a, b):
    """Whether the edge a-b lies on the antimeridian (both ends at longitude 180, or both at
    -180) or along a pole (both ends at latitude 90, or both at -90). Such an edge is where a
    polygon split at +-180 (RFC 7946 section 3.1.9) was cut, or a pole drawn as a line: GEOS's
    covers counts it, but it is no boundary anyone can stand on, so the distance leaves it out
    (our rule)."""
    (lon_a, lat_a), (lon_b, lat_b) = a[:2], b[:2]
    return any(on_line(lon_a, x) and on_line(lon_b, x) for x in (180.0, -180.0)) \
        or any(on_line(lat_a, y) and on_line(lat_b, y) for y in (90.0, -90.0))


def antimeridian_crossing(coordinates, geometry_type):
    """The first edge of a Polygon's or MultiPolygon's rings whose ends are more than 180 degrees
    of longitude apart, unless both ends are on the seam (+-180: the edge runs along a parallel
    the whole way round), as (field, a, b); None if there is none. RFC 7946 section 3.1.9 asks
    for such a polygon to be split at +-180."""
    parts = [coordinates] if geometry_type == "Polygon" else coordinates
    for p, part in enumerate(parts):
        for r, ring in enumerate(part):
            for i in range(1, len(ring)):
                (lon_a, lat_a), (lon_b, lat_b) = [float(v) for v in ring[i - 1][:2]], [float(v) for v in ring[i][:2]]
                if abs(lon_b - lon_a) > 180 and not (on_line(abs(lon_a), 180.0) and on_line(abs(lon_b), 180.0)):
                    prefix = "geometry.coordinates" if geometry_type == "Polygon" else "geometry.coordinates[%d]" % p
                    return ("%s[%d][%d]" % (prefix, r, i - 1), (lon_a, lat_a), (lon_b, lat_b))
    return None


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
        # the devices and groups that watch it (reference_audiences); None: not named
        self.devices = None
        self.groups = None

    def signed_distance_m(self, lon, lat):
        if self.kind == "circle":
            return haversine_m(self.center[0], self.center[1], lon, lat) - self.radius
        inside = self.geometry.covers(Point(lon, lat))
        magnitude = math.inf
        for ring in self.rings:
            for a, b in zip(ring, ring[1:]):
                if is_seam_edge(a, b):
                    continue  # covers counts it; the distance does not
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
            crossing = antimeridian_crossing(plain.get("coordinates") or [], plain["type"])
            if crossing is not None:
                field, a, b = crossing
                raise InputError("%s: %s: %s: the edge from %r to %r spans more than 180 degrees of longitude: "
                                 "split a polygon that crosses the antimeridian at +-180 into a MultiPolygon "
                                 "(RFC 7946 section 3.1.9)" % (path, identifier, field, list(a), list(b)))
            condition.geometry = shape(plain)
            if not condition.geometry.is_valid:
                raise InputError("%s: %s: invalid polygon: %s"
                                 % (path, identifier, explain_validity(condition.geometry)))
            condition.rings = list(polygon_rings(condition.geometry))
        else:
            raise InputError("%s: %s: unsupported geometry %r" % (path, identifier, geometry.get("type")))
        try:
            ra.read_audience(condition, properties)
        except ra.AudienceError as error:
            raise InputError("%s: %s: %s" % (path, identifier, error))
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
        self.app_state = None  # app
        self.what = self.purpose = None  # request
        self.choice = self.precise = None  # answer (precise: None when absent)
        self.settings = None  # settings: dict with any of status, precise, locationServices
        self.live = None  # config: the live configuration's name


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


def json_bool(value):
    if not isinstance(value, bool):
        raise ValueError("expected true or false, got %r" % (value,))
    return value


def cell_bool(text):
    if text == "true":
        return True
    if text == "false":
        return False
    raise ValueError("expected true or false, got %r" % (text,))


def read_choice(fields, name, allowed, kind):
    if name not in fields:
        raise ValueError("%s without %r" % (kind, name))
    value = fields[name]
    if not isinstance(value, str) or value not in allowed:
        raise ValueError("%s: %s must be one of %s, got %r"
                         % (kind, name, ", ".join(allowed), value))
    return value


def build_record(line, fields, read_time, read_float, read_int, read_bool=json_bool):
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
    elif kind == "app":
        record.app_state = read_choice(fields, "state", APP_STATES, kind)
    elif kind == "request":
        record.what = read_choice(fields, "what", REQUESTS, kind)
        if "purpose" in fields:
            if not isinstance(fields["purpose"], str):
                raise ValueError("request: purpose must be a string")
            record.purpose = fields["purpose"]
    elif kind == "answer":
        record.choice = read_choice(fields, "choice", CHOICES, kind)
        if "precise" in fields:
            record.precise = read_bool(fields["precise"])
    elif kind == "settings":
        record.settings = {}
        if "status" in fields:
            record.settings["status"] = read_choice(fields, "status", SETTINGS_STATUSES, kind)
        for name in ("precise", "locationServices"):
            if name in fields:
                record.settings[name] = read_bool(fields[name])
        if not record.settings:
            raise ValueError("settings without status, precise or locationServices")
    elif kind == "config":
        record.live = read_choice(fields, "live", LIVE_CONFIGURATIONS, kind)
    elif kind == "session":
        rs.read_session(record, fields)
    elif kind == "appConfig":
        rs.read_app_config(record, fields, read_bool, from_csv=read_bool is not json_bool)
    else:
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
                yield build_record(line_number, fields, time_from_cell, float, int, cell_bool)
            except (ValueError, InvalidOperation) as error:
                raise InputError("%s:%d: %s" % (path, line_number, error))


# --------------------------------------------------------------------------- state machine

def held_diagnostics(reason):
    """Diagnostics of a held event's final line: none when delivered (reason None); when dropped,
    the diagnostic named after the reason, or insufficientlyInUse (as on the held line) for an
    event displaced or expired while it waited."""
    if reason is None:
        return []
    if reason in ("displaced", "expired"):
        return ["insufficientlyInUse"]
    return [reason]  # alwaysAuthorizationDenied, authorizationDenied


class GeoPair:
    def __init__(self, state):
        self.state = state
        self.pending_state = None  # state a pending change leads to
        self.pending_since = None  # time (ns) of the fix that started it


class BeaconPair:
    def __init__(self, state):
        self.state = state
        self.due = None  # time (ns) at which the exit is due, or None


class Authorization:
    """What the person gave one device's app (SPEC section 3), and the app's state."""

    def __init__(self, initial):
        self.status = initial
        self.temporary = False  # whenInUse from Allow Once
        self.provisional = False  # always during provisional always
        self.provisional_used = False  # the provisional period was entered once
        self.always_request_used = False  # a request for always has had its effect
        self.full_accuracy = True
        self.accuracy_grant = False  # temporary full accuracy
        self.location_services = True
        # `always` starts in use (foreground); a fresh install starts out of use.
        self.app_state = FOREGROUND if initial == ALWAYS else BACKGROUND
        self.left_foreground_at = None  # ns, set by foreground -> background only
        self.prompt = None  # None | (FIRST_PROMPT, always_intent) | (ALWAYS_PROMPT, deferred)
        #                     | (ACCURACY_PROMPT, None)
        self.held = []  # held events, oldest first
        self.config = rs.AppConfig()  # appConfig records (any profile)
        self.sessions = rs.Sessions(self.app_state)  # service sessions (ios18)


class Device:
    def __init__(self, name, first_t, initial_authorization):
        self.name = name
        self.first_t = first_t
        self.last_t = first_t
        self.last_line = None
        self.pairs = {}  # condition identifier -> GeoPair | BeaconPair
        self.announced = set()  # waiting conditions this device was told of (reference_profiles)
        self.dwells = {}  # condition identifier -> instant (ns) its dwell timer fires
        self.auth = Authorization(initial_authorization)


class Monitor:
    def __init__(self, conditions, hysteresis, accuracy_weight, confirmation_ns,
                 exit_timeout_ns, assume, initial_authorization=ALWAYS,
                 grace_ns=5 * NS_PER_S, holding_capacity=1, maximum_holding_age_ns=3600 * NS_PER_S,
                 profile=rp.STANDARD_PROFILE, groups=None):
        self.profile = profile
        self.all_conditions = list(conditions)  # file order; each device watches some (5.6)
        self.groups = ra.NO_GROUPS if groups is None else groups
        # the monitored conditions (evaluated), and the waiting ones with their diagnostic
        self.conditions, self.waiting = rp.split_conditions(profile, conditions)
        self.hysteresis = hysteresis
        self.accuracy_weight = accuracy_weight
        self.confirmation_ns = confirmation_ns
        self.exit_timeout_ns = exit_timeout_ns
        self.assume = assume
        self.initial_authorization = initial_authorization
        self.grace_ns = grace_ns
        self.holding_capacity = holding_capacity
        self.maximum_holding_age_ns = maximum_holding_age_ns
        self.devices = {}  # insertion order = order of first appearance
        self.events = []  # output lines, in the order they are produced
        self.request_counts = {"prompted": 0, "insufficientlyInUse": 0, "noEffect": 0}  # summary

    # ----------------------------------------------------------------- in use, lapses

    def in_use(self, auth, t):
        if auth.app_state in (FOREGROUND, INDICATOR):
            return True
        if auth.app_state == BACKGROUND and auth.left_foreground_at is not None:
            return t <= auth.left_foreground_at + self.grace_ns  # the grace period
        return False

    def settle(self, auth, t):
        """Apply the lapses due by time t (lazily): not in use at t ends Allow Once and
        a temporary full-accuracy grant."""
        if self.in_use(auth, t):
            return
        if auth.status == WHEN_IN_USE and auth.temporary:
            auth.status = NOT_DETERMINED
            auth.temporary = False
        auth.accuracy_grant = False

    # ----------------------------------------------------------------- verdicts

    def verdict(self, auth, t):
        """(delivery, reason, diagnostics) of an event dated t."""
        self.settle(auth, t)
        if not auth.location_services:
            return ("dropped", "authorizationDenied",
                    ["authorizationDenied", "authorizationDeniedGlobally"])
        if auth.status == DENIED:
            return ("dropped", "authorizationDenied", ["authorizationDenied"])
        if auth.status == RESTRICTED:
            return ("dropped", "authorizationRestricted", ["authorizationRestricted"])
        if auth.status == NOT_DETERMINED:
            if auth.prompt is not None:
                return ("dropped", "notDetermined", ["authorizationRequestInProgress"])
            return ("dropped", "notDetermined", ["insufficientlyInUse"])
        if not auth.full_accuracy and not auth.accuracy_grant:
            return ("dropped", "accuracyLimited", ["accuracyLimited"])
        if (auth.status == ALWAYS and not self.in_use(auth, t)
                and rs.service_session_required(self.profile, auth, t)):  # rule 8 (ios18)
            return ("dropped", rs.SERVICE_SESSION_REQUIRED, [rs.SERVICE_SESSION_REQUIRED])
        if auth.status == ALWAYS and not auth.provisional:
            return ("delivered", None, [])
        if auth.status == WHEN_IN_USE:
            if self.in_use(auth, t):
                return ("delivered", None, [])
            return ("dropped", "insufficientlyInUse", ["insufficientlyInUse"])
        assert auth.status == ALWAYS and auth.provisional
        if self.in_use(auth, t):
            return ("delivered", None, [])
        return ("held", "provisionalAlways", ["insufficientlyInUse"])

    def write(self, event, delivery, reason, diagnostics, cause):
        line = dict(event)
        own = line.pop("own", ())  # an unmonitored event's diagnostic, after the verdict's
        line["delivery"] = delivery
        line["reason"] = reason
        line["diagnostics"] = list(diagnostics) + list(own)
        line["cause"] = cause
        self.events.append(line)

    def emit(self, device, condition, state, date, cause, refinement=None, own=()):
        event = {
            "device": device.name,
            "identifier": condition.identifier,
            "state": state,
            "date": date,
            "refinement": refinement,
        }
        if own:
            event["own"] = tuple(own)
        rp.note_event(self.profile, device, condition, state, date)
        auth = device.auth
        delivery, reason, diagnostics = self.verdict(auth, date)
        self.write(event, delivery, reason, diagnostics, cause)
        if delivery != "held":
            return
        # The deferred always prompt opens (or stays open): no other prompt can be open while an
        # event is held (the accuracy prompt closes when accuracy becomes full).
        auth.prompt = (ALWAYS_PROMPT, True)
        auth.held.append(event)
        if len(auth.held) > self.holding_capacity:
            oldest = auth.held.pop(0)
            self.write(oldest, "dropped", "displaced", held_diagnostics("displaced"), cause)

    def release_held(self, auth, delivery, reason, cause):
        """Final lines of every held event, oldest first."""
        for event in auth.held:
            self.write(event, delivery, reason, held_diagnostics(reason), cause)
        auth.held = []

    # ----------------------------------------------------------------- stream time

    def new_device(self, name, first_t):
        device = Device(name, first_t, self.initial_authorization)
        # the conditions it watches, split by the profile (reference_audiences)
        device.conditions, device.waiting = ra.device_conditions(self, name)
        for condition in device.conditions:
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

    def advance(self, device, exit_fires, expiry_fires, cause):
        """Fire due beacon exits, dwell timers and held-event expiries in chronological order.

        exit_fires(due) / expiry_fires(instant) say which are due (dwells fire as exits do).
        Ties: an expiry, then an exit, then a dwell at the same instant; expiries oldest first;
        exits and dwells in file order.
        """
        auth = device.auth
        while True:
            best = None
            for position, event in enumerate(auth.held):
                instant = event["date"] + self.maximum_holding_age_ns
                if expiry_fires(instant):
                    key = (instant, 0, position)
                    if best is None or key < best[0]:
                        best = (key, position)
            for condition in device.conditions:
                if condition.kind != "beacon":
                    continue
                pair = device.pairs[condition.identifier]
                if pair.due is not None and exit_fires(pair.due):
                    key = (pair.due, 1, condition.index)
                    if best is None or key < best[0]:
                        best = (key, condition)
            for due, condition in rp.due_dwells(device, device.conditions, exit_fires):
                key = (due, 2, condition.index)
                if best is None or key < best[0]:
                    best = (key, condition)
            if best is None:
                return
            (instant, kind, _), item = best
            if kind == 0:
                event = auth.held.pop(item)
                self.write(event, "dropped", "expired", held_diagnostics("expired"), cause)
            elif kind == 2:
                rp.fire_dwell(self, device, item, instant, cause)
            else:
                pair = device.pairs[item.identifier]
                pair.state = UNSATISFIED
                pair.due = None
                self.emit(device, item, UNSATISFIED, instant, cause)

    # ----------------------------------------------------------------- records

    def apply_fix(self, device, record):
        if record.accuracy < 0:
            return  # not a valid fix: changes no state
        margin = max(self.hysteresis, self.accuracy_weight * record.accuracy)
        for condition in device.conditions:
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
        for condition in device.conditions:
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

    def apply_app(self, device, record):
        auth = device.auth
        new = rs.app_state_taken(self.profile, auth, record)  # appConfig, ios18's indicator
        old = auth.app_state
        if new == old:
            return  # changes nothing
        if old == FOREGROUND and new == BACKGROUND:
            auth.left_foreground_at = record.t  # the grace period starts
        else:
            # Grace only follows foreground -> background; indicator -> background and
            # terminated are out of use at once.
            auth.left_foreground_at = None
        auth.app_state = new
        rs.app_changed(self, auth, old, new, record.t)  # launches, termination, ios18's asks

    def apply_request(self, device, record):
        self.make_request(device.auth, record.what, record.purpose)

    def make_request(self, auth, what, purpose=None):
        """A request (a record's, or a session's on the app's behalf); its outcome is counted."""
        if auth.app_state != FOREGROUND:
            outcome = "insufficientlyInUse"  # prompts appear only in the foreground
        elif auth.prompt is not None or not rs.purpose_declared(auth, what, purpose):
            outcome = "noEffect"
        else:
            self.open_prompt(auth, what)
            outcome = "noEffect" if auth.prompt is None else "prompted"
        self.request_counts[outcome] += 1

    def open_prompt(self, auth, what):
        """The prompt a request opens from the foreground with no prompt open, if any."""
        if what == WHEN_IN_USE:
            if auth.status == NOT_DETERMINED:
                auth.prompt = (FIRST_PROMPT, False)
        elif what == ALWAYS:
            if auth.always_request_used:
                return
            if auth.status == NOT_DETERMINED:
                auth.prompt = (FIRST_PROMPT, True)
                auth.always_request_used = True
            elif auth.status == WHEN_IN_USE and not auth.temporary:
                auth.prompt = (ALWAYS_PROMPT, False)  # iOS 13.4: at once
                auth.always_request_used = True
        else:  # temporaryFullAccuracy
            if (auth.status in (WHEN_IN_USE, ALWAYS) and not auth.full_accuracy
                    and not auth.accuracy_grant):
                auth.prompt = (ACCURACY_PROMPT, None)

    def check_answer(self, device, record, source):
        """InputError when the open prompt does not take the answer."""
        auth = device.auth
        choice = record.choice

        def bad(reason):
            raise InputError("%s:%d: %s" % (source, record.line, reason))

        if auth.prompt is None:
            bad("answer %r with no open prompt" % choice)
        kind, flag = auth.prompt
        if record.precise is not None and kind != FIRST_PROMPT:
            bad("precise is only taken by the first prompt, the open prompt is %r" % kind)
        offered = {
            FIRST_PROMPT: ("allowOnce", "allowWhileUsing", "deny"),
            ALWAYS_PROMPT: ("allowAlways", "keepWhileUsing"),
            ACCURACY_PROMPT: ("allowOnce", "deny"),
        }[kind]
        if choice not in offered:
            bad("the open %s prompt does not offer %r" % (kind, choice))
        if record.precise is not None and auth.config.reducedAccuracyByDefault:
            bad('field "precise": the first prompt has no Precise switch (appConfig '
                'reducedAccuracyByDefault)')

    def apply_answer(self, device, record):
        auth = device.auth
        choice = record.choice
        kind, flag = auth.prompt
        if kind == FIRST_PROMPT:
            precise = True if record.precise is None else record.precise
            if auth.config.reducedAccuracyByDefault:
                precise = False  # appConfig: a grant gives reduced accuracy
            if choice == "allowOnce":
                auth.status = WHEN_IN_USE
                auth.temporary = True
                auth.full_accuracy = precise
            elif choice == "allowWhileUsing":
                auth.full_accuracy = precise
                auth.temporary = False
                if flag and not auth.provisional_used:  # the request was for always
                    auth.status = ALWAYS
                    auth.provisional = True
                    auth.provisional_used = True
                else:
                    auth.status = WHEN_IN_USE
            else:  # deny
                auth.status = DENIED
                auth.temporary = False
        elif kind == ALWAYS_PROMPT:
            deferred = flag
            if choice == "allowAlways":
                auth.status = ALWAYS
                auth.provisional = False
                if deferred:
                    self.release_held(auth, "delivered", None, record.line)
            else:  # keepWhileUsing
                if deferred:
                    auth.status = WHEN_IN_USE
                    auth.temporary = False
                    auth.provisional = False
                    self.release_held(auth, "dropped", "alwaysAuthorizationDenied", record.line)
        else:  # temporary full accuracy
            if choice == "allowOnce":
                auth.accuracy_grant = True
        auth.prompt = None

    def apply_settings(self, device, record):
        auth = device.auth
        settings = record.settings
        if "locationServices" in settings:
            auth.location_services = settings["locationServices"]
        if "precise" in settings:
            auth.full_accuracy = settings["precise"]
            if auth.full_accuracy and auth.prompt is not None and auth.prompt[0] == ACCURACY_PROMPT:
                auth.prompt = None  # nothing left to ask
        if "status" in settings:
            status = settings["status"]
            if auth.provisional:
                auth.provisional = False
                if status == "always":
                    self.release_held(auth, "delivered", None, record.line)
                elif status == "never":
                    self.release_held(auth, "dropped", "authorizationDenied", record.line)
                else:
                    self.release_held(auth, "dropped", "alwaysAuthorizationDenied", record.line)
            auth.prompt = None
            auth.temporary = False
            auth.status = {
                "never": DENIED,
                "whenInUse": WHEN_IN_USE,
                "always": ALWAYS,
                "askNextTime": NOT_DETERMINED,
            }[status]

    def process(self, records, source="observations"):
        for record in records:
            self.process_record(record, source)
        self.finish()

    def process_record(self, record, source="observations"):
        """One record: its device's clock runs up to it, then it takes effect."""
        device = self.devices.get(record.device)
        if device is None:
            device = self.new_device(record.device, record.t)
        elif record.t < device.last_t:
            raise InputError("%s:%d: record of device %r is older than its previous record"
                             % (source, record.line, record.device))
        t = record.t
        self.advance(device, lambda due: due < t, lambda instant: instant < t, record.line)
        device.last_t = t
        device.last_line = record.line
        self.settle(device.auth, t)
        # records the authorization model refuses are refused here, before anything of theirs
        if record.kind == "answer":
            self.check_answer(device, record, source)
        elif record.kind == "session":
            try:
                rs.check_session(self.profile, device.auth, record)
            except rs.SessionRefused as error:
                raise InputError("%s:%d: %s" % (source, record.line, error))
        ra.announce_unmonitored(self, device, record)  # before the record's own effect
        if record.kind == "fix":
            self.apply_fix(device, record)
        elif record.kind == "sighting":
            self.apply_sighting(device, record)
        elif record.kind == "app":
            self.apply_app(device, record)
        elif record.kind == "request":
            self.apply_request(device, record)
        elif record.kind == "answer":
            self.apply_answer(device, record)
        elif record.kind == "settings":
            self.apply_settings(device, record)
        elif record.kind == "session":
            rs.apply_session(self, device.auth, record)
        elif record.kind == "appConfig":
            rs.apply_app_config(device.auth, record)
        # config records only advance the device's clock

    def finish(self):
        """The end of the input: each device's clock runs to its own last record."""
        for device in self.devices.values():
            last = device.last_t
            self.advance(device, lambda due: due <= last, lambda instant: instant < last,
                         device.last_line)


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
    reason = "null" if event["reason"] is None else json_string(event["reason"])
    diagnostics = ",".join(json_string(name) for name in event["diagnostics"])
    return ('{"device":%s,"identifier":%s,"state":%s,"date":%s,"delivery":%s,'
            '"reason":%s,"refinement":%s,"diagnostics":[%s],"cause":%d}') % (
        json_string(event["device"]), json_string(event["identifier"]),
        json_string(event["state"]), json_string(format_date(event["date"])),
        json_string(event["delivery"]), reason, refinement_text, diagnostics, event["cause"])


def read_observations(path):
    if path.endswith(".jsonl"):
        return read_jsonl(path)
    if path.endswith(".csv"):
        return read_csv(path)
    raise InputError("%s: observations must end in .jsonl or .csv" % path)


def add_monitor_arguments(parser):
    """The monitoring and authorization options (everything but the input files)."""
    parser.add_argument("--hysteresis", type=float, default=0.0)
    parser.add_argument("--accuracy-weight", type=float, default=1.0)
    parser.add_argument("--confirmation", default="0")
    parser.add_argument("--beacon-exit-timeout", default="30")
    parser.add_argument("--assume", choices=STATES, default=UNKNOWN)
    parser.add_argument("--initial-authorization", choices=INITIAL_AUTHORIZATIONS, default=ALWAYS)
    parser.add_argument("--grace-period", default="5")
    parser.add_argument("--holding-capacity", default="1")
    parser.add_argument("--maximum-holding-age", default="3600")


def monitor_from_arguments(args, load_conditions_now, profile=rp.STANDARD_PROFILE, groups=None):
    """A Monitor for the options add_monitor_arguments added; InputError on a bad value.
    load_conditions_now() gives the conditions (called after the first option checks, as
    main always did, so that the first error reported stays the same)."""
    if not (math.isfinite(args.hysteresis) and args.hysteresis >= 0):
        raise InputError("--hysteresis must be a finite number >= 0")
    if not (math.isfinite(args.accuracy_weight) and args.accuracy_weight >= 0):
        raise InputError("--accuracy-weight must be a finite number >= 0")
    if not re.fullmatch(r"[0-9]+", args.holding_capacity):
        raise InputError("--holding-capacity must be an integer >= 0")
    return Monitor(
        load_conditions_now(),
        hysteresis=args.hysteresis,
        accuracy_weight=args.accuracy_weight,
        confirmation_ns=parse_seconds_option(args.confirmation, "--confirmation"),
        exit_timeout_ns=parse_seconds_option(args.beacon_exit_timeout, "--beacon-exit-timeout"),
        assume=args.assume,
        initial_authorization=args.initial_authorization,
        grace_ns=parse_seconds_option(args.grace_period, "--grace-period"),
        holding_capacity=int(args.holding_capacity),
        maximum_holding_age_ns=parse_seconds_option(args.maximum_holding_age,
                                                    "--maximum-holding-age"),
        profile=profile,
        groups=groups,
    )


def profile_from_arguments(args):
    """The platform profile of --profile, --condition-limit and --loitering-delay (main's own
    options: the other tools that share add_monitor_arguments do not take them)."""
    limit = args.condition_limit
    if limit is not None:
        if not re.fullmatch(r"[0-9]+", limit):
            raise InputError("--condition-limit must be an integer >= 0")
        limit = int(limit)
    delay = args.loitering_delay
    if delay is not None:
        delay = parse_seconds_option(delay, "--loitering-delay")
    window = args.relaunch_window
    if window is not None:
        window = parse_seconds_option(window, "--relaunch-window")
    try:
        if args.profile == rp.IOS18:
            if delay is not None:
                raise rp.ProfileError("--loitering-delay is only for --profile android, not ios18")
            return rs.ios18_profile(limit, window, NS_PER_S)
        if window is not None:
            raise rp.ProfileError("--relaunch-window is only for --profile ios18, not %s" % args.profile)
        return rp.make_profile(args.profile, limit, delay, NS_PER_S)
    except rp.ProfileError as error:
        raise InputError(str(error))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conditions", required=True)
    parser.add_argument("--observations", required=True)
    add_monitor_arguments(parser)
    parser.add_argument("--profile", choices=rp.PROFILES, default=rp.STANDARD)
    parser.add_argument("--condition-limit")
    parser.add_argument("--loitering-delay")
    parser.add_argument("--relaunch-window")
    parser.add_argument("--groups")
    parser.add_argument("--request-counts")
    args = parser.parse_args(argv)
    out = sys.stdout
    out.reconfigure(encoding="utf-8", newline="\n")
    monitor = None
    try:
        profile = profile_from_arguments(args)
        groups = None
        if args.groups is not None:
            try:
                groups = ra.load_groups(args.groups)
            except (ra.AudienceError, OSError, UnicodeDecodeError) as error:
                raise InputError("--groups: %s" % error)
        monitor = monitor_from_arguments(args, lambda: load_conditions(args.conditions), profile,
                                         groups)
        monitor.process(read_observations(args.observations), args.observations)
    except InputError as error:
        for event in monitor.events if monitor is not None else ():  # the events before it
            out.write(format_event(event) + "\n")
        print("reference_monitor: %s" % error, file=sys.stderr)
        return 1
    for event in monitor.events:
        out.write(format_event(event) + "\n")
    if args.request_counts is not None:
        counts = monitor.request_counts
        with open(args.request_counts, "w", encoding="utf-8", newline="\n") as f:
            if sum(counts.values()):
                f.write("requests: %(prompted)d prompted, %(insufficientlyInUse)d insufficientlyInUse, "
                        "%(noEffect)d noEffect\n" % counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
