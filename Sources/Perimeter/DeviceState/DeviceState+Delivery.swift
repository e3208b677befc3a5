extension DeviceState {
    /// Gives an event its delivery verdict (SPEC §3) and appends it, with the final line of any held
    /// event it displaces. Diagnostics the event carries already (the condition's) are kept.
    /// (`consuming`: an event that is not held moves into `events`, uncopied.)
    mutating func emit(_ event: consuming MonitorEvent, policy: MonitoringPolicy, events: inout [MonitorEvent]) {
        let grace = policy.spans.gracePeriod
        settle(at: event.date, cause: event.cause, grace: grace)
        let own = event.delivery.diagnostics
        event.delivery = authorization.verdict(at: event.date, grace: grace, profile: policy.profile)
        // (An `unmonitored` event's diagnostic is the condition's, and stays beside the verdict's.)
        if !own.isEmpty { event.delivery.diagnostics.formUnion(own) }
        guard event.delivery.verdict == .held else {
            events.append(event)
            return
        }
        authorization.hold(event, capacity: policy.holdingCapacity, into: &events)
    }

    /// Applies the lapses due by `t` and reports the app leaving use, dated when it did.
    @inline(__always)
    mutating func settle(at t: Timestamp, cause: Int, grace: TimeSpan) {
        // Inline, what nearly every record and event finds: no temporary grant that could lapse, and
        // the app in use as last reported. (A call here cost more than the check.)
        guard authorization.isTemporary || authorization.temporaryFullAccuracy
            || reportedAuthorization?.isInUse != authorization.isInUse(at: t, grace: grace) else { return }
        settleChanges(at: t, cause: cause, grace: grace)
    }

    @inline(never)
    private mutating func settleChanges(at t: Timestamp, cause: Int, grace: TimeSpan) {
        let lapsed = authorization.settle(at: t, grace: grace)
        let inUse = authorization.isInUse(at: t, grace: grace)
        guard lapsed || reportedAuthorization?.isInUse != inUse else { return }
        // Dated when use ended, but never before the last report: a temporary grant made after use
        // ended (a prompt answered in the background) lapses the instant it is made.
        var date = inUse ? t : min(t, authorization.graceEnd(grace) ?? t)
        if let last = reportedAuthorization?.date, last > date { date = last }
        reportAuthorization(date: date, inUseAt: t, cause: cause, grace: grace)
    }

    /// Records the authorization as of `date` if it differs from what was last reported.
    mutating func reportAuthorization(date: Timestamp, inUseAt t: Timestamp, cause: Int, grace: TimeSpan) {
        let a = authorization
        let now = AuthorizationChange(
            device: name, date: date, status: a.status, isTemporary: a.isTemporary, isProvisional: a.isProvisional,
            accuracy: a.accuracy, temporaryFullAccuracy: a.temporaryFullAccuracy, locationServicesEnabled: a.locationServices,
            isInUse: a.isInUse(at: t, grace: grace), cause: cause)
        if let last = reportedAuthorization, last.sameAuthorization(as: now) { return }
        reportedAuthorization = now
        authorizationChanges.append(now)
    }
}

extension AuthorizationChange {
    func sameAuthorization(as other: AuthorizationChange) -> Bool {
        status == other.status && isTemporary == other.isTemporary && isProvisional == other.isProvisional
            && accuracy == other.accuracy && temporaryFullAccuracy == other.temporaryFullAccuracy
            && locationServicesEnabled == other.locationServicesEnabled && isInUse == other.isInUse
    }
}
