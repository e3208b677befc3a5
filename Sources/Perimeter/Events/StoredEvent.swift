/// An event as a store keeps it: every field, the holding number and final-verdict mark included.
/// (`MonitorEvent`'s own `Encodable`, in PerimeterIO, is the tool's line, which leaves those out.)
struct StoredEvent: Codable {
    var device: String
    var identifier: String
    var state: ConditionState
    var date: Timestamp
    var refinement: BeaconIdentity?
    var delivery: Delivery
    var isFinalVerdict: Bool
    var holding: UInt32
    var cause: Int

    init(_ event: MonitorEvent) {
        (device, identifier, state, date) = (event.device, event.identifier, event.state, event.date)
        (refinement, delivery, isFinalVerdict, holding, cause) = (event.refinement, event.delivery, event.isFinalVerdict,
                                                                  event.holding, event.cause)
    }

    var event: MonitorEvent {
        var event = MonitorEvent(device: device, identifier: identifier, state: state, date: date, refinement: refinement,
                                 delivery: delivery, cause: cause)
        event.isFinalVerdict = isFinalVerdict
        event.holding = holding
        return event
    }
}
