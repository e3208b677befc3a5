import ArgumentParser
import Perimeter
import PerimeterIO

@main
struct PerimeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perimeter",
        abstract: "Geofence and BLE-beacon monitoring over recorded streams.",
        subcommands: [Evaluate.self, Validate.self]
    )
}
