import CBuiltins
import Foundation

// What evaluation asks of the catalogue per fix and per condition: readings, boxes, candidates.
extension ConditionCatalog {
    /// The beacon conditions a sighted identity matches, ascending (addition order), into `result`.
    @inline(__always)
    func matchingBeacons(_ identity: BeaconIdentity, into result: inout [Int32]) {
        beaconMatcher.matches(identity, into: &result)
    }

    /// Whether beacon condition `i` is one `watch`'s device watches (and monitors, under per-device
    /// limits).
    @inline(__always)
    func watches(beacon i: Int32, _ watch: Watch) -> Bool {
        if let monitored = watch.monitoredBeacons { return SortedIndices.contains(monitored, i) }
        return !audiences.filtersBeacons || watch.watches(audiences.beacons[Int(i)])
    }

    /// The geographic conditions from `lo` below `hi` that `watch`'s device watches, starting otherwise
    /// than unsatisfied and not removed, ascending, into `result` (emptied first): those a device's
    /// fix settles one by one.
    func watchedStartingOtherwise(from lo: Int32, below hi: Int32, watch: Watch, into result: inout [Int32]) {
        result.removeAll(keepingCapacity: true)
        let others = watch.skipsShared ? [] : geographicStartingOtherwise
        var k = SortedIndices.firstIndex(in: others, notBelow: lo)
        while k < others.count && others[k] < hi {
            let i = others[k]
            k += 1
            guard !geographic[Int(i)].isRemoved, !watch.filtersShared || isAdmitted(i, watch) else { continue }
            result.append(i)
        }
        let own = watch.privateGeographic
        guard !own.isEmpty else { return }
        let shared = result.count
        for i in own[SortedIndices.firstIndex(in: own, notBelow: lo)...] {
            guard i < hi else { break }
            if geographic[Int(i)].initialState != .unsatisfied && !geographic[Int(i)].isRemoved { result.append(i) }
        }
        if shared > 0 && result.count > shared { result.sort() }
    }

    func beaconIdentifier(_ i: Int32) -> String { beaconIdentifiers[Int(i)] }
    func beaconInitialState(_ i: Int32) -> ConditionState { beacons[Int(i)].initialState }
    func geographicIdentifier(_ i: Int32) -> String { geographicIdentifiers[Int(i)] }
    func geographicInitialState(_ i: Int32) -> ConditionState { geographic[Int(i)].initialState }

    func boundingBox(_ i: Int32) -> BoundingBox {
        let s = geographic[Int(i)]
        return s.isPolygon ? polygonShapes[Int(s.slot)].boundingBox
            : Geodesy.boundingBox(around: circleCentres[Int(s.slot)], metres: circleShapes[Int(s.slot)].radius)
    }

    /// The circle in slot `slot` of `circleShapes`, as it was added.
    func circle(inSlot slot: Int32) -> CircularGeographicCondition {
        CircularGeographicCondition(checkedCenter: circleCentres[Int(slot)], radius: circleShapes[Int(slot)].radius)
    }

    /// What the frame's fix says about the circle in `slot`: from the chord, else the plain haversine.
    @inline(__always)
    private func circleReading(_ slot: Int32, _ frame: inout FixFrame) -> Reading {
        circleShapes[Int(slot)].reading(&frame) ?? CircleShape.exactReading(frame, circle(inSlot: slot))
    }

    /// Whether geographic condition `i`'s box meets `query` (`BoundingBox.meets`): a polygon's box
    /// as its shape keeps it, a circle's as `BoundingBox.marginBox` bounds it around the centre
    /// (no trigonometry; never smaller than the circle), so that no box need be stored per condition.
    @inline(__always)
    func boxMeets(_ i: Int32, _ query: BoundingBox) -> Bool {
        let s = geographic[Int(i)]
        if s.isPolygon { return BoundingBox.meets(polygonShapes[Int(s.slot)].boundingBox, query) }
        return BoundingBox.meets(BoundingBox.marginBox(around: circleCentres[Int(s.slot)], metres: circleShapes[Int(s.slot)].radius),
                                    query)
    }

    /// Whether geographic condition `i` is still monitored and its box meets `query`.
    @inline(__always)
    private func isPresent(_ i: Int32, meeting query: BoundingBox) -> Bool {
        !geographic[Int(i)].isRemoved && boxMeets(i, query)
    }

    /// Whether geographic condition `i` is in the shared index and watched by `watch`'s device.
    @inline(__always)
    private func isShared(_ i: Int32, watchedBy watch: Watch) -> Bool {
        (!audiences.hasAudiences || !audiences.isPrivate(geographic: i)) && (!watch.filtersShared || isAdmitted(i, watch))
    }

    /// Whether shared geographic condition `i` is one `watch`'s device watches (its audience) and
    /// monitors (under a limit that leaves some out): asked only when `watch.filtersShared`.
    @inline(__always)
    func isAdmitted(_ i: Int32, _ watch: Watch) -> Bool {
        if let monitored = watch.sharedMonitored { return SortedIndices.contains(monitored, i) }
        return watch.watches(audiences.geographic[Int(i)])
    }

    /// Whether geographic condition `i` is still monitored, in the shared index, and its box meets `query`.
    @inline(__always)
    private func isPresentAndShared(_ i: Int32, meeting query: BoundingBox) -> Bool {
        isPresent(i, meeting: query) && !isLeftOutOfSharedIndex(i)
    }

    /// Asks for the shapes of `conditions` that a reading at `c` will read first, for one fix at a
    /// time, whose shapes are seldom in cache (a device's next fix comes after thousands of other
    /// devices'): first each circle's record and each polygon's locator, then each polygon's raster
    /// data at `c`, so that the waits of all of them overlap instead of following one another. (A
    /// batch reads each device's fixes together, its shapes mostly still in cache: it skips this.)
    @inline(__always)
    func askForShapes<Conditions: Sequence<Int32>>(of conditions: Conditions, at c: Coordinate) {
        for i in conditions {
            let s = geographic[Int(i)]
            if s.isPolygon {
                let object = Unmanaged.passUnretained(polygonShapes[Int(s.slot)].locator).toOpaque()
                perimeter_prefetch(object)
                perimeter_prefetch(object + 64)
                perimeter_prefetch(object + 128)
            } else {
                circleShapes.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + Int(s.slot)) }
            }
        }
        for i in conditions {
            let s = geographic[Int(i)]
            if s.isPolygon { polygonShapes[Int(s.slot)].locator.prefetch(c.longitude, c.latitude) }
        }
    }

    /// What the frame's fix says about geographic condition `i` (`Reading`).
    @inline(__always)
    func reading(_ i: Int32, _ frame: inout FixFrame) -> Reading {
        let s = geographic[Int(i)]
        if s.isPolygon { return polygonShapes[Int(s.slot)].reading(&frame) }
        return circleReading(s.slot, &frame)
    }

    /// `reading(_:_:)`, from the cover grid's entry for `i` in the fix's cell (`cell`, from
    /// `coverGrid.entries(at:)`) where that decides it (perhaps the side alone: `Reading.isUnmeasured`),
    /// with the clearance it gives, as `collectReadings` would.
    @inline(__always)
    func reading(_ i: Int32, _ frame: inout FixFrame, cell: (range: Range<Int>, offset: Double),
                 clearance: inout Double) -> Reading {
        guard frame.margin <= coverGrid.reach, let e = coverGrid.entry(of: i, in: cell.range) else {
            clearance = 0
            return reading(i, &frame)
        }
        return reading(e, &frame, need: coverGrid.need(cell.offset + frame.margin), sideNeed: coverGrid.need(cell.offset),
                       offset: cell.offset, clearance: &clearance)
    }

    /// What the frame's fix says about cover-grid entry `e`'s condition: the entry's side where it
    /// decides `need`; the side alone (`Reading.insideUnmeasured`, `.outsideUnmeasured`) where it
    /// decides only `sideNeed` (the fix's offset from the cell's centre, without its margin); with
    /// `clearance` a lower bound on the great-circle distance from the fix to the boundary (λ × the
    /// entry's clearance at the cell's centre, less the fix's `offset` from the centre;
    /// λ = `MeasureBounds.marginShare` covers the grid's frame distance against the great circle).
    /// Else the condition's reading, with `clearance` 0.
    @inline(__always)
    private func reading(_ e: CoverGrid.Entry, _ frame: inout FixFrame, need: CoverGrid.Need, sideNeed: CoverGrid.Need,
                         offset: Double, clearance: inout Double) -> Reading {
        guard e.decides(sideNeed) else {
            clearance = 0
            return reading(e.condition, &frame)
        }
        clearance = max(0, MeasureBounds.marginShare * coverGrid.clearance(e) - offset)
        if e.decides(need) { return e.isInside ? .inside : .outside }
        return e.isInside ? .insideUnmeasured : .outsideUnmeasured
    }

    /// The great-circle distance from the frame's fix to geographic condition `i`'s boundary, to within
    /// `cheapDistanceError`, when it is cheap to know: a circle's; `nil` for a polygon, whose measure
    /// costs more than the anchor gains by it.
    @inline(__always)
    func cheapDistanceToBoundary(_ i: Int32, _ frame: inout FixFrame) -> Double? {
        let s = geographic[Int(i)]
        guard !s.isPolygon else { return nil }
        return circleShapes[Int(s.slot)].distanceToBoundary(&frame)
            ?? abs(circle(inSlot: s.slot).signedDistance(to: frame.coordinate))
    }

    /// The most an anchor term of geographic condition `i` may be for a fix at `c`: unbounded, but
    /// for a polygon with seam edges (`MeasureBounds.seamTermCap`).
    @inline(__always)
    func anchorTermCap(_ i: Int32, at c: Coordinate) -> Double {
        geographic[Int(i)].hasSeamEdges ? MeasureBounds.seamTermCap(c) : .infinity
    }

    /// How far `cheapDistanceToBoundary(_:_:)` may be from the true distance, in metres.
    static let cheapDistanceError = CircleShape.distanceError

    /// A lower bound on the distance of every geographic condition that `collectReadings` leaves out for
    /// a fix with margin `m`: its margin, or the cover grid's reach when the grid alone answered.
    func nonCandidateDistance(margin m: Double) -> Double {
        let gridAnswers = !coverGrid.isEmpty && m <= coverGrid.reach && coverGrid.excluded.isEmpty
            && coverGrid.builtThrough == Int32(geographic.count)
        return MeasureBounds.marginShare * (gridAnswers ? coverGrid.reach : m)
    }

    /// Every geographic condition within `frame`'s margin of its fix, each with what the fix says about
    /// it, into `candidates` and `readings`. Conditions left out are confidently outside. A reading
    /// may be unmeasured (`Reading.isUnmeasured`): the caller measures it where the distance matters.
    ///
    /// `clearances` gets, per candidate, a lower bound on the great-circle distance from the fix to
    /// its boundary that the cover grid knew without measuring, 0 where it knew none
    /// (`reading(_:_:need:sideNeed:offset:clearance:)`).
    ///
    /// Only conditions the device watches (`watch`) are collected: those of the shared index that its
    /// audiences allow, and its private ones, each a candidate within the distance
    /// `nonCandidateDistance(margin:)` promises for those left out.
    @inline(__always)
    func collectReadings(_ frame: inout FixFrame, watch: Watch, stamps: inout [UInt32], stamp: UInt32, asksAhead: Bool,
                         candidates: inout [Int32], readings: inout [Reading], clearances: inout [Double]) {
        if !watch.skipsShared {
            collectSharedReadings(&frame, watch: watch, stamps: &stamps, stamp: stamp, asksAhead: asksAhead,
                                  candidates: &candidates, readings: &readings, clearances: &clearances)
        }
        guard !watch.privateGeographic.isEmpty else { return }
        let query = BoundingBox.marginBox(around: frame.coordinate, metres: max(frame.margin, coverGrid.reach))
        for i in watch.privateGeographic where !geographic[Int(i)].isRemoved && boxMeets(i, query) {
            candidates.append(i)
            readings.append(reading(i, &frame))
            clearances.append(0)
        }
    }

    /// `collectReadings` over the shared index.
    @inline(__always)
    private func collectSharedReadings(_ frame: inout FixFrame, watch: Watch, stamps: inout [UInt32], stamp: UInt32,
                                       asksAhead: Bool, candidates: inout [Int32], readings: inout [Reading],
                                       clearances: inout [Double]) {
        let m = frame.margin
        if !coverGrid.isEmpty && m <= coverGrid.reach {
            let (range, offset) = coverGrid.entries(at: frame.coordinate)
            let need = coverGrid.need(offset + m), sideNeed = coverGrid.need(offset)
            if asksAhead {
                askForShapes(of: range.lazy.map { self.coverGrid.entry($0) }.filter { !$0.decides(sideNeed) }.map(\.condition),
                             at: frame.coordinate)
            }
            for k in range {
                let e = coverGrid.entry(k)
                guard !hasRemovedGeographic || !geographic[Int(e.condition)].isRemoved else { continue }
                guard !watch.filtersShared || isAdmitted(e.condition, watch) else { continue }
                var clearance = 0.0
                let reading = self.reading(e, &frame, need: need, sideNeed: sideNeed, offset: offset, clearance: &clearance)
                candidates.append(e.condition)
                readings.append(reading)
                clearances.append(clearance)
            }
            let built = coverGrid.builtThrough, count = Int32(geographic.count)
            if coverGrid.excluded.isEmpty && built == count { return }
            // Those the grid does not list: too large for it, or added since it was built.
            let query = BoundingBox.marginBox(around: frame.coordinate, metres: m)
            func consider(_ i: Int32) {
                guard isPresent(i, meeting: query), isShared(i, watchedBy: watch) else { return }
                candidates.append(i)
                readings.append(reading(i, &frame))
                clearances.append(0)
            }
            for k in coverGrid.excluded.indices { consider(coverGrid.excluded[k]) }
            for i in built..<max(built, count) { consider(i) }
            return
        }
        let first = candidates.count
        index.collect(around: frame.coordinate, margin: m, stamps: &stamps, stamp: stamp, into: &candidates,
                      meets: { isPresent($0, meeting: $1) && isShared($0, watchedBy: watch) })
        for k in first..<candidates.count {
            readings.append(reading(candidates[k], &frame))
            clearances.append(0)
        }
    }

    /// The geographic conditions covering `c` (boundary included, no margin), into `result`: the
    /// stateless question, answered without collecting sides — an entry of the point's cover-grid cell
    /// whose centre is farther from the boundary than the point is from the centre gives the centre's
    /// side without a test (inside: covered; outside: skipped); only the rest are tested.
    @inline(__always)
    func appendCovering(_ c: Coordinate, stamps: inout [UInt32], stamp: UInt32, candidates: inout [Int32],
                        into result: inout [Int32]) {
        var frame = FixFrame(c, margin: 0)
        if !coverGrid.isEmpty {
            let (range, offset) = coverGrid.entries(at: c)
            let need = coverGrid.need(offset)
            for k in range {
                let e = coverGrid.entry(k)
                let decided = e.decides(need)
                guard !(decided && !e.isInside) && (!hasRemovedGeographic || !geographic[Int(e.condition)].isRemoved) else { continue }
                if decided || covers(e.condition, &frame) { result.append(e.condition) }
            }
            let built = coverGrid.builtThrough, count = Int32(geographic.count)
            for k in coverGrid.excluded.indices where covers(coverGrid.excluded[k], &frame) { result.append(coverGrid.excluded[k]) }
            if built < count {
                for i in built..<count where !isLeftOutOfSharedIndex(i) && covers(i, &frame) { result.append(i) }
            }
            return
        }
        candidates.removeAll(keepingCapacity: true)
        index.collect(around: c, margin: 0, stamps: &stamps, stamp: stamp, into: &candidates,
                      meets: isPresentAndShared(_:meeting:))
        for i in candidates where covers(i, &frame) { result.append(i) }
    }

    /// The live geographic conditions with their shapes when they are at most a few polygons and
    /// nothing else (a country, or a city's districts), all in the cover grid or all too large for
    /// it; `nil` otherwise. A batch then tests each point against each polygon directly, in
    /// ascending order as the grid would list them.
    func fewPolygons() -> (indices: [Int32], shapes: [PolygonShape])? {
        guard geographic.count <= Self.fewPolygonCount, !audiences.hasAudiences, !coverGrid.isEmpty, coverGrid.builtThrough == Int32(geographic.count),
              coverGrid.holdsNoEntries || coverGrid.excluded.isEmpty else { return nil }
        var indices: [Int32] = [], shapes: [PolygonShape] = []
        for (i, s) in geographic.enumerated() where !s.isRemoved {
            guard s.isPolygon else { return nil }
            indices.append(Int32(i))
            shapes.append(polygonShapes[Int(s.slot)])
        }
        return (indices, shapes)
    }

    /// At most this many polygons are tested directly by a batch (`fewPolygons`).
    static let fewPolygonCount = 8

    /// Whether geographic condition `i` covers the frame's fix (boundary included).
    /// (A polygon checks its own box first; a circle is checked by box before its exact test.)
    @inline(__always)
    private func covers(_ i: Int32, _ frame: inout FixFrame) -> Bool {
        let s = geographic[Int(i)]
        guard !s.isRemoved else { return false }
        if s.isPolygon { return polygonShapes[Int(s.slot)].covers(frame.coordinate) }
        guard BoundingBox.marginBox(around: circleCentres[Int(s.slot)], metres: circleShapes[Int(s.slot)].radius,
                                       holds: frame.coordinate) else { return false }
        return circleReading(s.slot, &frame) == .inside
    }

    func condition(_ identifier: String) -> Condition? {
        switch entry(identifier) {
        case .geographic(let i)?:
            let s = geographic[Int(i)]
            return s.isPolygon ? .polygon(PolygonalGeographicCondition(checked: polygonShapes[Int(s.slot)].locator.polygons))
                : .circle(circle(inSlot: s.slot))
        case .beacon(let i)?: return .beacon(beacons[Int(i)].condition)
        case nil: return nil
        }
    }
}
