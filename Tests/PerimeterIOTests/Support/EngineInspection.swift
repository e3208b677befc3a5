@testable import Perimeter
@testable import PerimeterIO

// What the tests read of the library's insides, and nothing else does: kept here rather than in the
// library, so that its types carry no members for tests alone. (`PerimeterTests` keeps its own
// copy of the one member both test targets read, `isUsingConditionIndexOnly`: test targets share
// no code but through a library target, which cannot see internals in a release build.)

extension ContainmentQuery {
    /// Whether a batch tests each point against a few polygons directly.
    var testsPolygonsDirectly: Bool { catalog.fewPolygons() != nil }

    /// Whether the query has no cover grid (every condition too large for one) and uses the
    /// condition index alone.
    var isUsingConditionIndexOnly: Bool { catalog.coverGrid.isEmpty }
}

extension PolygonLocator {
    /// How many edges the stripes list in all (an edge once for each stripe it reaches).
    var stripeEdgeCount: Int { stripeEdges.count }

    /// Whether the references equal those of the plain version (a stripe count per cell).
    func referencesEqualStripeCounts() -> Bool {
        let references = cells.indices.map { cells[$0] == Self.boundary ? cellDetails[$0] & 3 : Self.noReference }
        return references == Self.references(cells: cells, columns: columns, minX: minX, minY: minY, scaleX: cellScaleX,
                                             scaleY: cellScaleY, vertices: vertices, stripeCount: stripeCount, stripeScale: stripeScale,
                                             stripeStart: stripeStart, stripeEdges: stripeEdges)
    }

    /// Each boundary cell's reference: where its centre lies, by GEOS's count over the centre's stripe.
    private static func references(cells: [UInt8], columns: Int, minX: Double, minY: Double, scaleX: Double, scaleY: Double,
                                   vertices: [Double], stripeCount: Int, stripeScale: Double,
                                   stripeStart: [Int32], stripeEdges: [Int32]) -> [UInt8] {
        var references = [UInt8](repeating: noReference, count: cells.count)
        for cell in cells.indices where cells[cell] == boundary {
            let (qx, qy) = centre(column: cell % columns, row: cell / columns, minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY)
            switch rayCrossingLocation(qx, qy, vertices: vertices, stripeCount: stripeCount, stripeScale: stripeScale, minY: minY,
                                       stripeStart: stripeStart, stripeEdges: stripeEdges) {
            case .inside: references[cell] = inside
            case .outside: references[cell] = outside
            case .boundary: break
            }
        }
        return references
    }
}

extension ObservationReader {
    /// Bytes the line reader searched for newlines after refilling its buffer.
    var bytesSearchedAfterRefill: Int { lines.bytesSearchedAfterRefill }
}

extension JSONText {
    /// `String(value)`'s bytes, with zeros in front of the digits up to `width` characters (the sign
    /// counting as one; at most 32).
    static func appendDecimal(_ value: Int, width: Int = 1, to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 40) { $0.writeDecimal(value, width: width) }
    }
}
