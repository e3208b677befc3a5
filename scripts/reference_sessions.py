"""Service sessions (`--profile ios18`, SPEC sections 3 and 5.5) and the `appConfig` record, for the
reference monitor.

The rules are docs/authorization.md's ("Service sessions") and docs/sessions.md's, written from
those pages (not from the Swift code). Where the pages leave a point open, the choice made here
is marked *(choice)*.

- `appConfig` (any profile): `explicitSessionsRequired`, `backgroundLocation`,
  `reducedAccuracyByDefault` (booleans) and `fullAccuracyPurposes` (JSON: an array of strings;
  CSV: one cell of keys separated by spaces), at least one; each applies from the record on, the
  others stay. `backgroundLocation: false` makes an `indicator` record act as `background`
  (grace period included); `reducedAccuracyByDefault: true` makes the first prompt's grants
  reduced and `precise` on an answer to it a bad record; declared `fullAccuracyPurposes` make a
  temporary full-accuracy request naming another purpose `noEffect` (after the foreground check:
  outside the foreground it is `insufficientlyInUse` as any request). `explicitSessionsRequired`
  matters under ios18 only. appConfig changes no app state: an indicator already on stays on
  *(choice)*.
- Explicit sessions (ios18; a `session` record under another profile is a bad record, field
  `type`). `start` holds a session by `id`; it *counts* if the app is in the foreground
  (strictly: not the grace period, not the indicator) or another counting session is in effect:
  a held one, a remembered one whose window is still open *(choice)*, or the implicit session in
  effect. Whether it counts is fixed at its start. Starting asks for its goal (`whenInUse`,
  `always`; `none` nothing), then for temporary full accuracy with its `fullAccuracyPurpose`.
  `end` removes a held or still-remembered session. A start that repeats a held id, an end that
  names none, or any session record while the app is terminated *(choice: field `action`)* is a
  bad record, refused after the device's clock ran up to it.
- The implicit session (ios18, unless explicitSessionsRequired): held while the app runs; in
  effect once the app has been in the foreground since its last launch (or since the device's
  first record: a device that starts in the foreground, `--initial-authorization always`, has
  been *(choice)*). Goal whenInUse: it never satisfies rule 8, but it makes explicit sessions
  started in the background count.
- The foreground's asks (ios18): when an `app` record brings the app to the foreground from any
  other state (a launch included), each held explicit session, in the order of their start
  records, asks as at its start, then the implicit session asks for when-in-use (so that the
  strongest goal held is asked for first). Remembered sessions not yet taken again do not ask
  *(choice)*.
- Relaunch (ios18, `--relaunch-window S`, default 10 s). `terminated` remembers the held
  sessions and those still remembered (window open at that instant); a remembered session counts
  as before, while the app is terminated and after the next launch L (the first `app` record
  after `terminated`) for events dated at or before L + S. A `start` with its id at or before
  L + S takes it again (same goal, else a bad record, field `goal`), keeping whether it counts
  and asking as any start; after L + S the id starts a new session.
- The indicator (ios18): an `indicator` record from the background or terminated puts the app in
  the background (a launch if terminated), unless the app had the indicator when it was last
  terminated and the record is at or before L + S: then it rejoins (the indicator state, in use).
  A rejoin, or any later start of the indicator, uses up what was remembered *(choice)*; only the
  indicator on at termination is remembered, not one remembered and not rejoined *(choice)*.
- Rule 8 of the verdict: under ios18, `always` (provisional or not) out of use without a counting
  session with goal `always` held (or remembered, window open at the event's date) is dropped
  `serviceSessionRequired`.

This module does not import reference_monitor (which imports it); it works on the monitor's
objects: Monitor.profile, Monitor.make_request(auth, what, purpose), Authorization.app_state /
.config / .sessions, Record.t / .app_state and the fields set here.
"""

import reference_profiles as rp

FOREGROUND, BACKGROUND, INDICATOR, TERMINATED = "foreground", "background", "indicator", "terminated"
NONE, WHEN_IN_USE, ALWAYS = "none", "whenInUse", "always"
GOALS = (NONE, WHEN_IN_USE, ALWAYS)
ACTIONS = ("start", "end")
TEMPORARY_FULL_ACCURACY = "temporaryFullAccuracy"
SERVICE_SESSION_REQUIRED = "serviceSessionRequired"
DEFAULT_RELAUNCH_WINDOW_S = 10
APP_CONFIG_BOOLEANS = ("explicitSessionsRequired", "backgroundLocation", "reducedAccuracyByDefault")
APP_CONFIG_FIELDS = APP_CONFIG_BOOLEANS + ("fullAccuracyPurposes",)


class SessionRefused(Exception):
    """A session record the model refuses: (field, reason)."""

    def __init__(self, field, reason):
        Exception.__init__(self, 'field "%s": %s' % (field, reason))
        self.field = field


# --------------------------------------------------------------------------- the profile

def ios18_profile(condition_limit=None, relaunch_window_ns=None, ns_per_s=10**9):
    """ios18: ios17's limits (20 per type unless condition_limit) and service sessions, with a
    relaunch window of relaunch_window_ns (None: 10 s)."""
    if condition_limit is not None and (not isinstance(condition_limit, int) or condition_limit < 0):
        raise rp.ProfileError("--condition-limit must be an integer >= 0")
    profile = rp.Profile(rp.IOS18, condition_limit=20 if condition_limit is None else condition_limit)
    profile.relaunch_window_ns = (DEFAULT_RELAUNCH_WINDOW_S * ns_per_s if relaunch_window_ns is None
                                  else relaunch_window_ns)
    return profile


def sessions_on(profile):
    return getattr(profile, "relaunch_window_ns", None) is not None


# --------------------------------------------------------------------------- per device

class AppConfig:
    """What the app's Info.plist says (docs/sessions.md), from appConfig records."""

    def __init__(self):
        self.explicitSessionsRequired = False
        self.backgroundLocation = True
        self.reducedAccuracyByDefault = False
        self.fullAccuracyPurposes = None  # None: none declared; else a frozenset of keys


class Session:
    def __init__(self, goal, purpose, counts):
        self.goal = goal
        self.purpose = purpose  # fullAccuracyPurpose or None
        self.counts = counts  # fixed at its start


class Sessions:
    """One device's sessions: held (id -> Session, in the order of their start records),
    remembered across termination, the last launch, and the indicator at termination."""

    def __init__(self, app_state):
        self.held = {}
        self.remembered = {}
        self.launched_at = None  # ns of the last launch; None while terminated or never relaunched
        self.foreground_since_launch = app_state == FOREGROUND
        self.indicator_remembered = False

    def remembered_open(self, t, window):
        """Whether remembered sessions still count at t: terminated, or t <= L + S."""
        return self.launched_at is None or t <= self.launched_at + window


def implicit_in_effect(profile, auth):
    return (sessions_on(profile) and not auth.config.explicitSessionsRequired
            and auth.app_state != TERMINATED and auth.sessions.foreground_since_launch)


def counting_sessions(profile, auth, t):
    """The explicit sessions in effect at t that count: held, and remembered while open."""
    s = auth.sessions
    found = [x for x in s.held.values() if x.counts]
    if s.remembered_open(t, profile.relaunch_window_ns):
        found += [x for x in s.remembered.values() if x.counts]
    return found


def service_session_required(profile, auth, t):
    """Rule 8: ios18, and no counting session with goal always at t (the caller has checked that
    the status is always and the app is out of use at t)."""
    if not sessions_on(profile):
        return False
    return not any(x.goal == ALWAYS for x in counting_sessions(profile, auth, t))


def purpose_declared(auth, what, purpose):
    """False when a temporary full-accuracy request names a purpose the Info.plist does not
    declare (while it declares some)."""
    declared = auth.config.fullAccuracyPurposes
    return not (what == TEMPORARY_FULL_ACCURACY and purpose is not None and declared is not None
                and purpose not in declared)


# --------------------------------------------------------------------------- reading

def _text(fields, name, required):
    value = fields.get(name)
    if value is None:
        if required:
            raise ValueError('field "%s": missing' % name)
        return None
    if not isinstance(value, str):
        raise ValueError('field "%s": expected text, got %r' % (name, value))
    return value


def _choice(fields, name, allowed, required):
    value = _text(fields, name, required)
    if value is not None and value not in allowed:
        raise ValueError('field "%s": must be one of %s, got %r' % (name, ", ".join(allowed), value))
    return value


def read_session(record, fields):
    """A `session` record's fields (any profile; the profile is checked when it is applied)."""
    record.action = _choice(fields, "action", ACTIONS, True)
    record.id = _text(fields, "id", True)
    record.goal = _choice(fields, "goal", GOALS, record.action == "start")
    record.purpose = _text(fields, "fullAccuracyPurpose", False)


def read_app_config(record, fields, read_bool, from_csv):
    """An `appConfig` record: record.config = {field: value} of the fields it has (at least one)."""
    config = {}
    for name in APP_CONFIG_BOOLEANS:
        if fields.get(name) is not None:
            try:
                config[name] = read_bool(fields[name])
            except ValueError as error:
                raise ValueError('field "%s": %s' % (name, error))
    value = fields.get("fullAccuracyPurposes")
    if value is not None:
        if from_csv:
            keys = value.split(" ")  # one cell, keys separated by spaces
            keys = [k for k in keys if k != ""]
        elif isinstance(value, list) and all(isinstance(k, str) for k in value):
            keys = value
        else:
            raise ValueError('field "fullAccuracyPurposes": expected an array of strings, got %r'
                             % (value,))
        config["fullAccuracyPurposes"] = frozenset(keys)
    if not config:
        raise ValueError("appConfig without %s" % ", ".join(APP_CONFIG_FIELDS))
    record.config = config


def apply_app_config(auth, record):
    for name, value in record.config.items():
        setattr(auth.config, name, value)


# --------------------------------------------------------------------------- app records

def app_state_taken(profile, auth, record):
    """The state an `app` record puts the app in: `indicator` may not start (docs/sessions.md)."""
    new = record.app_state
    if new != INDICATOR:
        return new
    if not auth.config.backgroundLocation:
        return BACKGROUND  # any profile: the indicator cannot start
    old = auth.app_state
    if not sessions_on(profile) or old in (FOREGROUND, INDICATOR):
        return INDICATOR
    s = auth.sessions
    if s.indicator_remembered and (old == TERMINATED
                                   or record.t <= s.launched_at + profile.relaunch_window_ns):
        return INDICATOR  # rejoins (a launch into it, or within the window)
    return BACKGROUND  # starts only in the foreground


def app_changed(monitor, auth, old, new, t):
    """Bookkeeping of a change of app state (old != new): termination, launch, the indicator,
    and, under ios18, the foreground's asks."""
    profile = monitor.profile
    s = auth.sessions
    if new == TERMINATED:
        kept = {}
        if sessions_on(profile) and s.remembered_open(t, profile.relaunch_window_ns):
            kept.update(s.remembered)  # still remembered: remembered again
        kept.update(s.held)
        s.remembered, s.held = kept, {}
        s.launched_at = None
        s.foreground_since_launch = False
        s.indicator_remembered = old == INDICATOR
        return
    if old == TERMINATED:
        s.launched_at = t  # (foreground_since_launch was cleared at the termination)
    if new == INDICATOR:
        s.indicator_remembered = False  # rejoined or started: used up
    if new == FOREGROUND:
        s.foreground_since_launch = True
        if sessions_on(profile):
            for session in list(s.held.values()):
                ask(monitor, auth, session)
            if not auth.config.explicitSessionsRequired:
                monitor.make_request(auth, WHEN_IN_USE)  # the implicit session asks last


# --------------------------------------------------------------------------- session records

def ask(monitor, auth, session):
    """What a session asks for: its goal, then temporary full accuracy with its purpose."""
    if session.goal != NONE:
        monitor.make_request(auth, session.goal)
    if session.purpose is not None:
        monitor.make_request(auth, TEMPORARY_FULL_ACCURACY, session.purpose)


def check_session(profile, auth, record):
    """SessionRefused when the model refuses the record (its device's clock has run up to it)."""
    if not sessions_on(profile):
        raise SessionRefused("type", "a session record needs --profile ios18")
    if auth.app_state == TERMINATED:
        raise SessionRefused("action", "the app is terminated: an app record launches it first")
    s = auth.sessions
    open_ = s.remembered_open(record.t, profile.relaunch_window_ns)
    remembered = s.remembered.get(record.id) if open_ else None
    if record.action == "end":
        if record.id not in s.held and remembered is None:
            raise SessionRefused("id", "end names no held session %r" % record.id)
    elif record.id in s.held:
        raise SessionRefused("id", "start repeats the id of a held session %r" % record.id)
    elif remembered is not None and remembered.goal != record.goal:
        raise SessionRefused("goal", "session %r is taken again with goal %r, it was started with %r"
                             % (record.id, record.goal, remembered.goal))


def apply_session(monitor, auth, record):
    """A session record that check_session accepted."""
    profile = monitor.profile
    s = auth.sessions
    t = record.t
    open_ = s.remembered_open(t, profile.relaunch_window_ns)
    remembered = s.remembered.pop(record.id, None)
    if not open_:
        remembered = None  # lost: the id starts a new session
    if record.action == "end":
        s.held.pop(record.id, None)
        return
    if remembered is not None:
        session = remembered  # taken again: counts as it did
        session.purpose = record.purpose
    else:
        counts = (auth.app_state == FOREGROUND or implicit_in_effect(profile, auth)
                  or bool(counting_sessions(profile, auth, t)))
        session = Session(record.goal, record.purpose, counts)
    s.held[record.id] = session
    ask(monitor, auth, session)
