"""Platform profiles and condition limits (SPEC section 5.4) for the reference monitor.

The rules are docs/profiles.md's, written from that page (not from the Swift code):

- Which conditions are monitored. Conditions count in the order added (the conditions file's
  feature order). Circles and polygons are one type (geographic), beacon conditions the other.
  Under a profile with a limit, a condition is monitored when fewer than `conditionLimit`
  conditions of its type are monitored before it; otherwise it waits with the diagnostic
  `conditionLimitExceeded`. A kind the profile does not monitor at all (android: polygons and
  beacon conditions) waits for good with `conditionUnsupported` and counts against no limit.
  A waiting condition is never evaluated: the monitor gives it no pair.
- The `unmonitored` event. Each device learns of each waiting condition once, at its first record
  (for a condition that begins waiting later, the device's first record after that): after the
  device's clock has run up to the record and before the record's own effect, one event per
  waiting condition in the order added, state `unmonitored`, dated at the record, caused by it,
  refinement null, with the verdict of any event at that instant; its diagnostics are the
  verdict's followed by the condition's own, and a held one's final line keeps the condition's
  own diagnostic after the final verdict's.
- Dwelling (android). An entry (a change to `satisfied`) of a geographic pair at instant t sets
  a dwell timer for t + loiteringDelay; any later event of that pair before it fires cancels it
  (a pair that starts satisfied never dwells). The timer fires as a beacon exit does: before a
  record of the device strictly after it, or at the end of the input if it is due at or before
  the device's last record; at one instant an expiry of a held event comes first, then a beacon
  exit, then a dwell (several dwells at one instant in condition order -- our choice). The event:
  state `dwelling`, dated at the timer's instant, caused by the record that fired it, verdict as
  any event at that date; the pair stays satisfied.

The `ios18` profile (service sessions) is not modelled here: make_profile refuses it.

This module does not import reference_monitor (which imports it); it works on the monitor's
objects through the few attributes and methods named below (Monitor.emit, Monitor.waiting,
Device.announced, Device.dwells, Condition.kind/identifier/index, Record.t/line).
"""

STANDARD = "standard"
IOS17 = "ios17"
IOS18 = "ios18"
ANDROID = "android"
PROFILES = (STANDARD, IOS17, IOS18, ANDROID)

DEFAULT_CONDITION_LIMITS = {IOS17: 20, ANDROID: 100}
DEFAULT_LOITERING_DELAY_S = 30

GEOGRAPHIC = "geographic"
BEACON = "beacon"
ALL_KINDS = ("circle", "polygon", "beacon")

CONDITION_LIMIT_EXCEEDED = "conditionLimitExceeded"
CONDITION_UNSUPPORTED = "conditionUnsupported"

UNMONITORED = "unmonitored"
DWELLING = "dwelling"
SATISFIED = "satisfied"


class ProfileError(Exception):
    """A profile option the reference refuses (the caller reports it as a command-line error)."""


class Profile:
    """What a platform monitors: the fields the engine consults, never the platform's name."""

    def __init__(self, name, condition_limit=None, kinds=ALL_KINDS, loitering_delay_ns=None):
        self.name = name
        self.condition_limit = condition_limit  # None: no limit; else per type, per device
        self.kinds = kinds  # the kinds of condition monitored at all
        self.loitering_delay_ns = loitering_delay_ns  # None: no dwelling

    def __repr__(self):
        return "Profile(%r, condition_limit=%r, kinds=%r, loitering_delay_ns=%r)" % (
            self.name, self.condition_limit, self.kinds, self.loitering_delay_ns)


STANDARD_PROFILE = Profile(STANDARD)


def make_profile(name, condition_limit=None, loitering_delay_ns=None, ns_per_s=10**9):
    """The profile called `name`. condition_limit (int >= 0) is only for a profile with limits,
    loitering_delay_ns (int >= 0) only for android; None takes the profile's default.
    ProfileError for ios18, an unknown name, or an option the profile does not take."""
    if name == IOS18:
        raise ProfileError("--profile ios18: ios18 is not modelled by this reference "
                           "(its service-session rules come later)")
    if name not in PROFILES:
        raise ProfileError("--profile: unknown profile %r (standard, ios17, android)" % (name,))
    if condition_limit is not None:
        if name not in DEFAULT_CONDITION_LIMITS:
            raise ProfileError("--condition-limit is only for a profile with limits "
                               "(ios17, android), not %s" % name)
        if not isinstance(condition_limit, int) or condition_limit < 0:
            raise ProfileError("--condition-limit must be an integer >= 0")
    if loitering_delay_ns is not None:
        if name != ANDROID:
            raise ProfileError("--loitering-delay is only for --profile android, not %s" % name)
        if not isinstance(loitering_delay_ns, int) or loitering_delay_ns < 0:
            raise ProfileError("--loitering-delay must be a number of seconds >= 0")
    if name == STANDARD:
        return STANDARD_PROFILE
    limit = DEFAULT_CONDITION_LIMITS[name] if condition_limit is None else condition_limit
    if name == IOS17:
        return Profile(IOS17, condition_limit=limit)
    delay = DEFAULT_LOITERING_DELAY_S * ns_per_s if loitering_delay_ns is None else loitering_delay_ns
    return Profile(ANDROID, condition_limit=limit, kinds=("circle",), loitering_delay_ns=delay)


def condition_type(condition):
    return BEACON if condition.kind == "beacon" else GEOGRAPHIC


def split_conditions(profile, conditions):
    """(monitored, waiting): the monitored conditions in the order added, and the waiting ones
    as (condition, diagnostic) pairs in the order added."""
    monitored = []
    waiting = []
    counts = {GEOGRAPHIC: 0, BEACON: 0}
    for condition in conditions:
        if condition.kind not in profile.kinds:
            waiting.append((condition, CONDITION_UNSUPPORTED))  # counts against no limit
            continue
        if profile.condition_limit is not None:
            kind = condition_type(condition)
            if counts[kind] >= profile.condition_limit:
                waiting.append((condition, CONDITION_LIMIT_EXCEEDED))
                continue
            counts[kind] += 1
        monitored.append(condition)
    return monitored, waiting


# --------------------------------------------------------------------------- unmonitored

def announce_unmonitored(monitor, device, record):
    """The `unmonitored` events a device is owed at `record`: one per waiting condition it has not
    yet been told of, in the order added. Called after the device's clock has run up to the
    record (exits, expiries, lapses) and before the record's own effect."""
    for condition, diagnostic in monitor.waiting:
        if condition.identifier in device.announced:
            continue
        device.announced.add(condition.identifier)
        monitor.emit(device, condition, UNMONITORED, record.t, record.line, own=(diagnostic,))


# --------------------------------------------------------------------------- dwelling

def note_event(profile, device, condition, state, date):
    """Keep a device's dwell timers in step with an event of one of its pairs: an entry sets the
    timer, any other event of that pair (but the dwell itself) cancels it."""
    if profile.loitering_delay_ns is None or condition.kind == "beacon":
        return
    if state == SATISFIED:
        device.dwells[condition.identifier] = date + profile.loitering_delay_ns
    elif state not in (DWELLING, UNMONITORED):
        device.dwells.pop(condition.identifier, None)


def due_dwells(device, conditions, fires):
    """(instant, condition) of each dwell timer of the device that fires(instant) says is due, in
    condition order (the monitored conditions, as given)."""
    for condition in conditions:
        due = device.dwells.get(condition.identifier)
        if due is not None and fires(due):
            yield due, condition


def fire_dwell(monitor, device, condition, instant, cause):
    """A dwell timer fires: the timer goes, and the event is written dated at its instant."""
    del device.dwells[condition.identifier]
    monitor.emit(device, condition, DWELLING, instant, cause)
