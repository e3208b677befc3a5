"""Conditions per device (SPEC section 5.6) for the reference monitor.

Written from SPEC.md section 5.6 and the team's choices (not from the Swift code):

- A feature's `properties.devices` is a non-empty JSON array of non-empty strings (device names),
  `properties.groups` likewise (group names). A condition with neither is watched by every
  device; with one or both, by the devices listed and by every device in a listed group (the
  union). Circles, polygons and beacon conditions alike.
- The groups file (`--groups FILE`) is CSV: the header line exactly `device,group`, then one
  membership a line. A device may be in several groups and a group hold several devices; a
  repeated line is harmless, and so is a group no condition names; a group a condition names
  that the file does not list (or when there is no file) has no members. Blank lines are
  skipped. The file is static: membership holds from a device's first record to its last.
- A device never has a pair with a condition it does not watch. For the conditions it watches
  everything is as if the conditions file held only those, in file order: pairs, starting
  states, beacon first-exit timers, dwelling, and the profile's limits (SPEC section 5.4), which
  count per device among the conditions it watches (reference_profiles.split_conditions over
  that list), so each device is told of its own waiting conditions, and only those.

This module does not import reference_monitor (which imports it). It works on the monitor's
objects through: Condition.devices/groups (set by read_audience), Monitor.all_conditions,
Monitor.conditions, Monitor.waiting, Monitor.profile, Monitor.groups, Monitor.emit,
Device.conditions, Device.waiting, Device.announced. A device that watches every condition
shares the monitor's own lists (Monitor.conditions, Monitor.waiting), so a recording without
`devices` or `groups` runs exactly as before.
"""

import csv
import types

import reference_profiles as rp

HEADER = ["device", "group"]


class AudienceError(ValueError):
    """A bad `devices`/`groups` property or groups file (the caller names the file)."""


def _names(value, field):
    if not isinstance(value, list) or not value:
        raise AudienceError("properties.%s must be a non-empty array of names" % field)
    for name in value:
        if not isinstance(name, str) or not name:
            raise AudienceError("properties.%s must hold non-empty strings, got %r" % (field, name))
    return frozenset(value)


def read_audience(condition, properties):
    """Set condition.devices and condition.groups (frozensets, or None when absent) from a
    feature's properties. AudienceError on a bad value, null included (docs/audiences.md: a
    conditions file's properties are present with a value or absent)."""
    condition.devices = _names(properties["devices"], "devices") if "devices" in properties else None
    condition.groups = _names(properties["groups"], "groups") if "groups" in properties else None


class Groups:
    """Group memberships: device name -> the set of its groups."""

    def __init__(self, memberships=()):
        self.of = {}
        for device, group in memberships:
            self.of.setdefault(device, set()).add(group)

    def groups_of(self, device):
        return self.of.get(device, frozenset())


NO_GROUPS = Groups()


def load_groups(path):
    """The groups file at path. AudienceError (with the line) on a bad header or row."""
    memberships = []
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f)
        header = None
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue  # blank lines are skipped
            if header is None:
                if row != HEADER:
                    raise AudienceError("%s:%d: the header must be exactly device,group" % (path, line))
                header = row
                continue
            if len(row) != 2 or not row[0] or not row[1]:
                raise AudienceError("%s:%d: expected device,group (two non-empty cells)" % (path, line))
            memberships.append((row[0], row[1]))
    if header is None:
        raise AudienceError("%s: no header line device,group" % path)
    return Groups(memberships)


def is_scoped(condition):
    return getattr(condition, "devices", None) is not None or getattr(condition, "groups", None) is not None


def watches(condition, device, groups):
    """Whether the device named `device` watches the condition, under the memberships `groups`."""
    if not is_scoped(condition):
        return True
    if condition.devices is not None and device in condition.devices:
        return True
    return condition.groups is not None and not condition.groups.isdisjoint(groups.groups_of(device))


def device_conditions(monitor, device):
    """(monitored, waiting) of the device named `device`: the profile's split (in file order) of
    the conditions it watches. A device watching every condition gets the monitor's own lists."""
    watched = [c for c in monitor.all_conditions if watches(c, device, monitor.groups)]
    if len(watched) == len(monitor.all_conditions):
        return monitor.conditions, monitor.waiting
    return rp.split_conditions(monitor.profile, watched)


def announce_unmonitored(monitor, device, record):
    """reference_profiles.announce_unmonitored over the device's own waiting conditions."""
    view = types.SimpleNamespace(waiting=device.waiting, emit=monitor.emit)
    rp.announce_unmonitored(view, device, record)
