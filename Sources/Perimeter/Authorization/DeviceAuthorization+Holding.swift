/// The held events of provisional always (SPEC §3): the one place events are held, displaced,
/// expired and resolved. The device decides when (it owns the timeline); this decides how.
extension DeviceAuthorization {
    /// Holds `event` (already given its held verdict): numbers it, writes its held line, opens the
    /// deferred always prompt, and drops the oldest held events beyond `capacity` as displaced.
    mutating func hold(_ event: consuming MonitorEvent, capacity: Int, into events: inout [MonitorEvent]) {
        heldTotal &+= 1
        event.holding = heldTotal
        events.append(copy event)
        let cause = event.cause
        // 000: Core Location "holds onto it and waits for a good time to ask": the deferred always
        // prompt opens (or stays open). No other prompt can be open while an event is held: the first
        // and the immediate always prompt close before provisional always begins, and the temporary
        // full-accuracy one closes when accuracy becomes full, which holding needs.
        prompt = .always(deferred: true)
        held.append(event)
        while held.count > capacity {
            let displaced = held.removeFirst()
            events.append(displaced.resolved(.heldEventDropped(.displaced), cause: cause))
        }
    }

    /// Delivers or drops every held event, oldest first, with `cause` as their final line's cause.
    mutating func resolveHeld(_ resolution: HeldResolution, cause: Int, into events: inout [MonitorEvent]) {
        let delivery: Delivery = switch resolution {
        case .deliver: .delivered
        case .drop(let reason): .heldEventDropped(reason)
        }
        for event in held {
            events.append(event.resolved(delivery, cause: cause))
        }
        held.removeAll()
    }

    /// When the oldest held event expires (its date + `maximumAge`), if one is held.
    func oldestHeldExpiry(maximumAge: TimeSpan) -> Timestamp? {
        held.first?.date.adding(maximumAge)
    }

    /// Drops the oldest held event as expired.
    mutating func expireOldestHeld(cause: Int, into events: inout [MonitorEvent]) {
        let expired = held.removeFirst()
        events.append(expired.resolved(.heldEventDropped(.expired), cause: cause))
    }
}

extension MonitorEvent {
    /// The final line of a held event: same event (and `holding`), new verdict, the resolving record as cause.
    func resolved(_ delivery: Delivery, cause: Int) -> MonitorEvent {
        var copy = self
        copy.delivery = delivery
        // (The condition's own diagnostics stay, whatever the verdict.)
        copy.delivery.diagnostics.formUnion(self.delivery.diagnostics.intersection(.condition))
        copy.isFinalVerdict = true
        copy.cause = cause
        return copy
    }
}
