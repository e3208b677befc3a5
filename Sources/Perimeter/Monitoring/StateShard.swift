/// One worker's outputs while the state machines of a batch run sharded by device: events and
/// authorization changes, each with the batch position of the record that produced it.
///
/// `@unchecked Sendable`: each shard is written by exactly one worker, and read only after every
/// worker has finished.
final class StateShard: @unchecked Sendable {
    var events: [MonitorEvent] = []
    var eventRecords: [Int32] = []
    var changes: [AuthorizationChange] = []
    var changeRecords: [Int32] = []
}
