import ArgumentParser
import Perimeter
import PerimeterIO

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a conditions file and print every problem, each with its line, feature and field.",
        discussion: """
            Prints one line per problem (file:line: field "…": what is wrong) on standard output, or a count of the conditions by kind when there is none. A file without features is valid, with a warning on standard error.

            EXAMPLES:
              perimeter validate --conditions Fixtures/city/conditions.geojson
              perimeter validate --conditions countries.geojson --repair-polygons

            \(ExitStatus.table)
            """
    )

    @Option(help: "GeoJSON FeatureCollection of conditions.")
    var conditions: String

    @Option(help: "CSV of group memberships (header device,group) for conditions with properties.groups.")
    var groups: String?

    @Flag(help: "Accept invalid polygons that GEOS make-valid can repair.")
    var repairPolygons = false

    func run() throws {
        do {
            let definitions = try ConditionsReader.read(contentsOf: conditions, repair: repairPolygons,
                                                        threads: CommandSupport.usableProcessorCount)
            CommandSupport.warnIfEmpty(definitions, path: conditions)
            var circles = 0, polygons = 0, beacons = 0
            for definition in definitions {
                switch definition.condition {
                case .circle: circles += 1
                case .polygon: polygons += 1
                case .beacon: beacons += 1
                }
            }
            let scoped = definitions.count { !$0.audience.isEveryone }
            print("\(conditions): \(definitions.count) conditions OK (\(circles) circles, \(polygons) polygons, \(beacons) beacons"
                  + (scoped > 0 ? "; \(scoped) for some devices only)" : ")"))
            if let groups {
                let members = try GroupsReader.read(contentsOf: groups)
                CommandSupport.warnAboutGroups(definitions.lazy.map { ($0.identifier, $0.line, $0.audience) }, members: members, path: groups)
                print("\(groups): \(members.values.reduce(0) { $0 + $1.count }) memberships OK (\(members.count) groups)")
            }
        } catch {
            // A file that cannot be read is no list of problems: one error, as `evaluate` says it.
            if let unreadable = error.errors.first, error.errors.count == 1, unreadable.line == nil {
                throw CommandSupport.fail(unreadable.description)
            }
            for problem in error.errors { print(problem.description) }
            throw CommandSupport.fail("\(error.errors.first?.file ?? conditions): \(error.errors.count) problem\(error.errors.count == 1 ? "" : "s")")
        }
    }
}
