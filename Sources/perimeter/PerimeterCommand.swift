import ArgumentParser
import Perimeter
import PerimeterIO

@main
struct PerimeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perimeter",
        abstract: "Geofence and BLE-beacon monitoring over recorded streams.",
        discussion: """
            Conditions are a GeoJSON FeatureCollection (circles, polygons, beacon identities); observations are JSON Lines or CSV (fixes, sightings, authorization records).

            EXAMPLES:
              perimeter evaluate --conditions Fixtures/city/conditions.geojson \\
                                 --observations Fixtures/city/observations.jsonl
              perimeter validate --conditions Fixtures/city/conditions.geojson
              perimeter updates --observations Fixtures/city/observations.jsonl
              perimeter report --conditions Fixtures/city/conditions.geojson \\
                               --observations Fixtures/city/observations.jsonl --out city.html
              perimeter evaluate --help

            \(ExitStatus.table)
            """,
        version: ToolVersion.current,
        subcommands: [Evaluate.self, Validate.self, Updates.self, RangeCommand.self, Compare.self, Report.self]
    )
}
