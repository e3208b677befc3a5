import Foundation
import Perimeter
import PerimeterIO

// The city fixture's conditions (run from the repository root, or give the file's path).
let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Fixtures/city/conditions.geojson"
let monitor = Monitor(name: "city")
try await monitor.add(contentsOf: ConditionsReader.read(contentsOf: path))
// One condition of our own: any beacon of the store's floor 1.
let store = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
try await monitor.add(.beacon(BeaconIdentityCondition(uuid: store, major: 1)), identifier: "floor-1", assuming: .unsatisfied)

// Events come as a stream, as from CLMonitor, each with what the app was given (delivered here).
let printer = Task {
    for await event in monitor.events {
        print(event.date, event.device, event.identifier, event.state, event.delivery.verdict)
    }
}

// A walk from the Louvre to the Marais, a fix a minute, then a beacon of floor 1 seen on the way.
let start = Timestamp(Date(timeIntervalSince1970: 1_772_352_000))!  // 2026-03-01T08:00:00Z
let walk = [(48.8606, 2.3376), (48.8600, 2.3450), (48.8594, 2.3530), (48.8591, 2.3612)]
for (minute, (latitude, longitude)) in walk.enumerated() {
    let fix = Fix(time: start.adding(TimeSpan(seconds: Double(minute) * 60)),
                  coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: 10)
    try await monitor.process(.fix(fix), device: "phone-1")
}
let seen = BeaconSighting(time: start.adding(TimeSpan(seconds: 270)),
                          identity: BeaconIdentity(uuid: store, major: 1, minor: 7), rssi: -60)
try await monitor.process(.sighting(seen), device: "phone-1")
await monitor.finish()
await printer.value

// The condition's state for the device, and the last event it produced, as the tool writes it.
if let record = await monitor.record(for: "home-marais", device: "phone-1"), let last = record.lastEvent {
    print(record.state, String(decoding: try JSONEncoder().encode(last), as: UTF8.self))
}
