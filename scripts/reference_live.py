#!/usr/bin/env python3
"""Reference implementation (test oracle) of Perimeter's live updates and approximate reports.

Written from docs/live.md and docs/approximate.md ("Reports"), not from the Swift source. It
runs scripts/reference_monitor.py's Monitor over the records, for the authorization (and, with
--events FILE, writes the monitoring events exactly as reference_monitor.py would), and writes
the update lines of docs/live.md to standard output (or --out FILE):

    {"device","date","location":{"lat","lon","accuracy"}|null,"stationary",
     "locationUnavailable","accuracyLimited","diagnostics","cause"}

With --approximate-fixes it writes instead, for every valid fix, the line of
`perimeter evaluate --approximate` (docs/approximate.md), whatever the authorization:

    {"device","date","lat","lon","accuracy","cause"}

Per record, in this order:
  1. the device's due locationUnavailable update, if any (its access is taken from the
     authorization as of the device's previous record, with the lapses due by the due instant
     applied on a copy);
  2. the record goes to the monitor;
  3. a valid fix is seen by the device's approximate reporter, then yields the device's own
     update, if any (access at the fix's time, after the monitor applied the record).
At the end of the input the monitor finishes first, then each device (in the order of its first
record) gets its locationUnavailable if it fell due at or before its last record's time.

Usage:
    python3 scripts/reference_live.py --observations FILE [--conditions FILE]
        [--events FILE] [--out FILE] [--approximate-fixes]
        [--live NAME] [--stationary-radius M] [--stationary-time S] [--unavailable-after S]
        [--approximate-cell KM] [--approximate-interval S] [--density FILE]
        [reference_monitor.py's monitoring and authorization options]

Numbers are written as the shortest decimal that reads back as the same double: Python's repr,
except that a double with an integral value below 1e16 is written without a fraction (10, not
10.0; -0.0 as -0). An approximate report's accuracy is its radius, a whole number of metres.

Dependencies: the Python standard library and shapely 2.
"""

import argparse
import copy
import json
import math
import os
import sys
from decimal import Decimal

from shapely.geometry import Point, shape

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_monitor as rm  # noqa: E402
import reference_approximate as ra  # noqa: E402

NS = rm.NS_PER_S

# docs/live.md "Configurations": name -> (stationaryRadius m, stationaryTime ns); None never pauses
CONFIGURATIONS = {
    "default": (25.0, 180 * NS),
    "automotiveNavigation": (100.0, 300 * NS),
    "otherNavigation": (50.0, 240 * NS),
    "fitness": (15.0, 120 * NS),
    "airborne": None,
}
assert tuple(CONFIGURATIONS) == rm.LIVE_CONFIGURATIONS


# --------------------------------------------------------------------------- output

def json_number(x):
    """The shortest decimal that reads back as the same double (see the module docstring)."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("not a finite number: %r" % x)
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    if x.is_integer() and abs(x) < 1e16:
        return "%d" % int(x)
    return repr(x)


def json_bool(value):
    return "true" if value else "false"


def format_update(update):
    location = update["location"]
    if location is None:
        location_text = "null"
    else:
        location_text = '{"lat":%s,"lon":%s,"accuracy":%s}' % (
            json_number(location[0]), json_number(location[1]), json_number(location[2]))
    return ('{"device":%s,"date":%s,"location":%s,"stationary":%s,"locationUnavailable":%s,'
            '"accuracyLimited":%s,"diagnostics":[%s],"cause":%d}') % (
        rm.json_string(update["device"]), rm.json_string(rm.format_date(update["date"])),
        location_text, json_bool(update["stationary"]), json_bool(update["locationUnavailable"]),
        json_bool(update["accuracyLimited"]),
        ",".join(rm.json_string(name) for name in update["diagnostics"]), update["cause"])


def format_approximate(line):
    return '{"device":%s,"date":%s,"lat":%s,"lon":%s,"accuracy":%d,"cause":%d}' % (
        rm.json_string(line["device"]), rm.json_string(rm.format_date(line["date"])),
        json_number(line["lat"]), json_number(line["lon"]), line["accuracy"], line["cause"])


# --------------------------------------------------------------------------- approximate location

def load_density(path):
    """docs/approximate.md "Density": [(shapely geometry, cell km)] in file order."""
    with open(path, encoding="utf-8") as f:
        try:
            document = json.load(f, parse_float=Decimal)
        except ValueError as error:
            raise rm.InputError("%s: not JSON: %s" % (path, error))
    if not isinstance(document, dict) or document.get("type") != "FeatureCollection":
        raise rm.InputError("%s: not a GeoJSON FeatureCollection" % path)
    features = document.get("features")
    if not isinstance(features, list):
        raise rm.InputError('%s: field "features": not an array' % path)
    grids = []
    for index, feature in enumerate(features):
        where = "%s: field \"features[%d]" % (path, index)
        if not isinstance(feature, dict) or feature.get("type") != "Feature":
            raise rm.InputError('%s": not a Feature' % where)
        geometry = feature.get("geometry")
        if not isinstance(geometry, dict) or geometry.get("type") not in ("Polygon", "MultiPolygon"):
            raise rm.InputError('%s.geometry": must be a Polygon or a MultiPolygon' % where)
        properties = feature.get("properties")
        cell = properties.get("cell") if isinstance(properties, dict) else None
        if not rm.is_number(cell) or not (0 < cell <= 2000):
            raise rm.InputError('%s.properties.cell": must be a number of kilometres, '
                                '0 < cell <= 2000' % where)
        plain = json.loads(json.dumps(geometry, default=float))
        crossing = rm.antimeridian_crossing(plain.get("coordinates") or [], plain["type"])
        if crossing is not None:
            raise rm.InputError('%s.%s": an edge spans more than 180 degrees of longitude'
                                % (where, crossing[0]))
        polygon = shape(plain)
        if not polygon.is_valid:
            raise rm.InputError('%s.geometry": invalid polygon: %s'
                                % (where, rm.explain_validity(polygon)))
        grids.append((polygon, float(cell)))
    return grids


class ApproximateLocation:
    """The grids: the density polygons (first in file order wins), else the default cell."""

    def __init__(self, default_cell, density):
        self.default_cell = float(default_cell)
        self.density = density

    def cell_size(self, lat, lon):
        point = Point(lon, lat)
        for polygon, cell in self.density:
            if polygon.covers(point):  # the boundary included
                return cell
        return self.default_cell

    def cell(self, lat, lon):
        """A cell named by (size km, band, column)."""
        c = self.cell_size(lat, lon)
        band, column = ra.cell_of(lat, lon, c)
        return (c, band, column)


def report_of(cell):
    """(centre lat, centre lon, radius m) of a cell (size, band, column)."""
    c, band, column = cell
    lat, lon = ra.centre_of(c, band, column)
    return lat, lon, ra.radius_of(c, band, column)


class ApproximateReporter:
    """docs/approximate.md "Reports": one device's report, recomputed at most once an interval."""

    def __init__(self, location, interval_ns):
        self.location = location
        self.interval_ns = interval_ns
        self.cell = None  # the report's cell
        self.computed_at = None  # ns

    def see(self, lat, lon, t):
        if self.cell is None or t - self.computed_at >= self.interval_ns:
            cell = self.location.cell(lat, lon)
            self.computed_at = t
            if cell != self.cell:
                self.cell = cell

    def report(self):
        return report_of(self.cell)


# --------------------------------------------------------------------------- live updates

class LiveDevice:
    def __init__(self, name, first_t, configuration, reporter):
        self.name = name
        self.configuration = configuration
        self.anchor = None  # (lat, lon, t): the first fix of the current still run
        self.paused = None  # (lat, lon): the fix the device is paused about
        self.last_valid_t = first_t  # last valid fix, or the first record before any
        self.said_unavailable = False  # locationUnavailable said since the last valid fix
        self.last_t = first_t
        self.last_line = None
        self.reporter = reporter


class LiveUpdates:
    def __init__(self, monitor, location, approximate_interval_ns, start_configuration="default",
                 default_row=None, unavailable_after_ns=60 * NS, approximate_fixes=False):
        self.monitor = monitor
        self.location = location
        self.approximate_interval_ns = approximate_interval_ns
        self.start_configuration = start_configuration
        self.rows = dict(CONFIGURATIONS)
        if default_row is not None:
            self.rows["default"] = default_row
        self.unavailable_after_ns = unavailable_after_ns
        self.approximate_fixes = approximate_fixes
        self.devices = {}  # order of first record
        self.lines = []  # formatted output lines

    # ------------------------------------------------------------- access (docs/live.md table)

    def access(self, auth, t):
        """(location given, accuracyLimited, diagnostics) for an update dated t. auth is a copy
        the lapses due by t may be applied to."""
        monitor = self.monitor
        monitor.settle(auth, t)
        if not auth.location_services:
            return False, False, ["authorizationDenied", "authorizationDeniedGlobally"]
        if auth.status == rm.DENIED:
            return False, False, ["authorizationDenied"]
        if auth.status == rm.RESTRICTED:
            return False, False, ["authorizationRestricted"]
        if auth.status == rm.NOT_DETERMINED:
            if auth.prompt is not None:
                return False, False, ["authorizationRequestInProgress"]
            return False, False, ["insufficientlyInUse"]
        if monitor.in_use(auth, t) or (auth.status == rm.ALWAYS and not auth.provisional):
            limited = not auth.full_accuracy and not auth.accuracy_grant
            return True, limited, []
        # whenInUse out of use, or provisional always out of use (updates are not held)
        return False, False, ["insufficientlyInUse"]

    def auth_copy(self, name):
        return copy.deepcopy(self.monitor.devices[name].auth)

    # ------------------------------------------------------------- writing

    def update(self, device, date, location, stationary, unavailable, limited, diagnostics, cause):
        self.lines.append(format_update({
            "device": device.name, "date": date, "location": location, "stationary": stationary,
            "locationUnavailable": unavailable, "accuracyLimited": limited,
            "diagnostics": diagnostics, "cause": cause}))

    def fix_update(self, device, record, stationary):
        given, limited, diagnostics = self.access(self.auth_copy(device.name), record.t)
        if not given:
            location = None
        elif limited:
            location = device.reporter.report()
        else:
            location = (record.lat, record.lon, record.accuracy)
        self.update(device, record.t, location, stationary, False, limited, diagnostics,
                    record.line)

    def unavailable(self, device, due, cause):
        given, limited, diagnostics = self.access(self.auth_copy(device.name), due)
        device.said_unavailable = True
        self.update(device, due, None, False, True, limited if given else False, diagnostics,
                    cause)

    def unavailable_due(self, device):
        if device.paused is not None or device.said_unavailable:
            return None
        return device.last_valid_t + self.unavailable_after_ns

    # ------------------------------------------------------------- records

    def process_record(self, record, source):
        device = self.devices.get(record.device)
        if device is None:
            device = LiveDevice(record.device, record.t, self.start_configuration,
                                ApproximateReporter(self.location, self.approximate_interval_ns))
            self.devices[record.device] = device
        elif record.t < device.last_t:
            raise rm.InputError("%s:%d: record of device %r is older than its previous record"
                                % (source, record.line, record.device))
        t = record.t
        # 1. the due locationUnavailable, with the authorization as of the previous record
        if not self.approximate_fixes:
            due = self.unavailable_due(device)
            if due is not None and due < t:
                self.unavailable(device, due, record.line)
        # 2. the monitor
        self.monitor.process_record(record, source)
        device.last_t = t
        device.last_line = record.line
        # 3. the record's own update
        if record.kind == "fix" and record.accuracy >= 0:
            device.reporter.see(record.lat, record.lon, t)
            if self.approximate_fixes:
                lat, lon, radius = device.reporter.report()
                self.lines.append(format_approximate({
                    "device": device.name, "date": t, "lat": lat, "lon": lon,
                    "accuracy": radius, "cause": record.line}))
            else:
                self.apply_fix(device, record)
        elif record.kind == "config" and record.live != device.configuration:
            device.configuration = record.live
            device.anchor = None
            if device.paused is not None:
                # docs/live.md: a pause that a config record ends counts the silence from that record.
                device.last_valid_t = t
            device.paused = None  # silently

    def apply_fix(self, device, record):
        t = record.t
        device.last_valid_t = t
        device.said_unavailable = False
        row = self.rows[device.configuration]
        if row is None:  # airborne: never pauses
            device.anchor = None
            self.fix_update(device, record, False)
            return
        radius_m, time_ns = row
        r = max(radius_m, record.accuracy)
        if device.paused is not None:
            lat, lon = device.paused
            if rm.haversine_m(lon, lat, record.lon, record.lat) <= r:
                return  # still: nothing
            device.paused = None
            device.anchor = (record.lat, record.lon, t)
            self.fix_update(device, record, False)
            return
        if device.anchor is None:
            device.anchor = (record.lat, record.lon, t)
            self.fix_update(device, record, False)
            return
        lat, lon, anchor_t = device.anchor
        if rm.haversine_m(lon, lat, record.lon, record.lat) > r:
            device.anchor = (record.lat, record.lon, t)
            self.fix_update(device, record, False)
        elif t - anchor_t >= time_ns:
            device.anchor = None
            device.paused = (record.lat, record.lon)
            self.fix_update(device, record, True)
        else:
            self.fix_update(device, record, False)

    def finish(self):
        self.monitor.finish()
        if self.approximate_fixes:
            return
        for device in self.devices.values():
            due = self.unavailable_due(device)
            if due is not None and due <= device.last_t:
                self.unavailable(device, due, device.last_line)

    def process(self, records, source):
        for record in records:
            self.process_record(record, source)
        self.finish()


# --------------------------------------------------------------------------- command line

def parse_metres(text, name):
    try:
        value = float(text)
    except ValueError:
        raise rm.InputError("%s: not a number: %r" % (name, text))
    if not math.isfinite(value) or value < 0:
        raise rm.InputError("%s: must be a finite number >= 0" % name)
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", required=True)
    parser.add_argument("--conditions")
    parser.add_argument("--events", help="write the monitoring events to this file")
    parser.add_argument("--out", help="write the lines to this file, not to standard output")
    parser.add_argument("--approximate-fixes", action="store_true",
                        help="write the `evaluate --approximate` lines instead of the updates")
    parser.add_argument("--live", choices=rm.LIVE_CONFIGURATIONS, default="default")
    parser.add_argument("--stationary-radius")
    parser.add_argument("--stationary-time")
    parser.add_argument("--unavailable-after", default="60")
    parser.add_argument("--approximate-cell", default="5")
    parser.add_argument("--approximate-interval", default="900")
    parser.add_argument("--density")
    rm.add_monitor_arguments(parser)
    args = parser.parse_args(argv)
    live = None
    error = None
    try:
        radius = CONFIGURATIONS["default"][0]
        if args.stationary_radius is not None:
            radius = parse_metres(args.stationary_radius, "--stationary-radius")
        stationary_time = CONFIGURATIONS["default"][1]
        if args.stationary_time is not None:
            stationary_time = rm.parse_seconds_option(args.stationary_time, "--stationary-time")
        cell = parse_metres(args.approximate_cell, "--approximate-cell")
        if not 0 < cell <= 2000:
            raise rm.InputError("--approximate-cell: must be 0 < KM <= 2000")
        density = load_density(args.density) if args.density else []
        monitor = rm.monitor_from_arguments(
            args, lambda: rm.load_conditions(args.conditions) if args.conditions else [])
        live = LiveUpdates(
            monitor, ApproximateLocation(cell, density),
            rm.parse_seconds_option(args.approximate_interval, "--approximate-interval"),
            start_configuration=args.live,
            default_row=(radius, stationary_time),
            unavailable_after_ns=rm.parse_seconds_option(args.unavailable_after,
                                                         "--unavailable-after"),
            approximate_fixes=args.approximate_fixes)
        live.process(rm.read_observations(args.observations), args.observations)
    except rm.InputError as problem:
        error = problem
    # What was produced before a bad record is written, as the tool does.
    if live is not None:
        if args.events:
            with open(args.events, "w", encoding="utf-8", newline="\n") as f:
                for event in live.monitor.events:
                    f.write(rm.format_event(event) + "\n")
        if args.out:
            out = open(args.out, "w", encoding="utf-8", newline="\n")
        else:
            out = sys.stdout
            out.reconfigure(encoding="utf-8", newline="\n")
        for line in live.lines:
            out.write(line + "\n")
        if args.out:
            out.close()
    if error is not None:
        print("reference_live: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
