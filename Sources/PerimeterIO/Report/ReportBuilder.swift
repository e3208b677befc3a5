import Perimeter

/// Gathers a report's data from a run's inputs and outputs: the conditions, the observations (read
/// again for the shown devices' tracks and use of the app), the event lines and the authorization
/// changes, each in the tool's own format.
///
/// ```swift
/// var builder = ReportBuilder(definitions: definitions, options: .init(title: "city"))
/// try builder.readObservations(path: "observations.jsonl")
/// try builder.readEvents(path: "events.jsonl")
/// let html = ReportPage.html(builder.finish())
/// ```
public struct ReportBuilder: Sendable {
    public struct Options: Sendable {
        public var title: String
        /// The devices to draw, by name; when empty, the first `deviceCount` to appear.
        public var devices: [String] = []
        public var deviceCount = 100
        public var gracePeriod = 5.0
        /// The most condition shapes drawn: those with events of the shown devices first, then those
        /// about their tracks.
        public var shapeLimit = 3000
        /// The most points a track keeps after simplification.
        public var trackPointLimit = 1000

        public init(title: String) { self.title = title }
    }

    let definitions: [ConditionDefinition]
    let options: Options
    var data: ReportData
    /// Shown devices by name: their index in `data.devices`.
    var shown: [String: Int] = [:]
    /// Per shown device, every record's line and time (to date a held event's outcome) and its fixes.
    var recordTimes: [[(line: Int, t: Double)]] = []
    var fixes: [[(line: Int, x: Double, y: Double, t: Double)]] = []

    public init(definitions: [ConditionDefinition], options: Options) {
        self.definitions = definitions
        self.options = options
        data = ReportData(title: options.title, gracePeriod: options.gracePeriod)
        for name in options.devices where shown[name] == nil { addShown(name) }
    }

    private mutating func addShown(_ name: String) {
        shown[name] = data.devices.count
        data.devices.append(ReportData.Device(name: name))
        recordTimes.append([])
        fixes.append([])
    }

    /// Reads the observations: counts records and devices, and keeps the shown devices' fixes and
    /// app states. Records that cannot be read are counted as rejected, the first few kept as examples
    /// unless `countRejected` is false (the evaluation's quarantine then says which were). Runs of plain
    /// fixes are read in bulk, on `threads` threads, as the evaluation reads them.
    public mutating func readObservations(path: String, format: ObservationFormat? = nil,
                                          countRejected: Bool = true, threads: Int = 1) throws(InputError) {
        var reader = try ObservationReader(path: path, format: format)
        reader.threads = threads
        var tracks = Tracks()
        var batch: [PlainFixRecord] = []
        while true {
            batch.removeAll(keepingCapacity: true)
            let read = reader.readPlainFixes(into: &batch, limit: 1 << 16)
            if read > 0 {
                data.summary.records += read
                for record in batch {
                    if let k = shownIndex(record.deviceNumber, of: reader, tracks: &tracks) {
                        add(.fix(record.fix), line: record.line, device: k, tracks: &tracks)
                    }
                }
                continue
            }
            guard let result = reader.next() else { break }
            data.summary.records += 1
            switch result {
            case .success(let record):
                if let k = shownIndex(record.deviceNumber, of: reader, tracks: &tracks) {
                    add(record.observation, line: record.line, device: k, tracks: &tracks)
                }
            case .failure(let error):
                if reader.failed { throw error }
                if countRejected { noteRejected(error.description) }
            }
        }
        data.summary.devices = tracks.devicesSeen
    }

    /// What reading the observations keeps by the reader's device number.
    private struct Tracks {
        /// Per device number: its index among the shown devices, `notShown`, or `notSeen` before its
        /// first readable record.
        var shownIndex: [Int] = []
        var devicesSeen = 0
        /// Per shown device, its last fix's longitude as drawn.
        var previousLongitude: [Double?] = []
        static let notSeen = -2, notShown = -1
    }

    /// The shown index of the device of a readable record, counting the device when it is new.
    private mutating func shownIndex(_ number: Int32, of reader: borrowing ObservationReader, tracks: inout Tracks) -> Int? {
        let n = Int(number)
        while tracks.shownIndex.count <= n { tracks.shownIndex.append(Tracks.notSeen) }
        if tracks.shownIndex[n] == Tracks.notSeen {
            tracks.devicesSeen += 1
            let name = reader.deviceName(number)
            if options.devices.isEmpty && data.devices.count < options.deviceCount { addShown(name) }
            tracks.shownIndex[n] = shown[name] ?? Tracks.notShown
        }
        let k = tracks.shownIndex[n]
        return k >= 0 ? k : nil
    }

    /// Keeps a shown device's record: its time, and its fix or its app's state.
    private mutating func add(_ observation: Observation, line: Int, device k: Int, tracks: inout Tracks) {
        while tracks.previousLongitude.count <= k { tracks.previousLongitude.append(nil) }
        let t = Self.seconds(observation.time)
        recordTimes[k].append((line, t))
        data.devices[k].first = data.devices[k].first ?? t
        data.devices[k].last = t
        switch observation {
        case .fix(let fix) where fix.horizontalAccuracy >= 0:
            // Longitudes unwrapped along the track, so that a crossing of ±180 draws as a step.
            var longitude = fix.coordinate.longitude
            if let previous = tracks.previousLongitude[k] {
                while longitude - previous > 180 { longitude -= 360 }
                while previous - longitude > 180 { longitude += 360 }
            }
            tracks.previousLongitude[k] = longitude
            let (x, y) = ReportMap.project(latitude: fix.coordinate.latitude, longitude: longitude)
            fixes[k].append((line, x, y, t))
        case .app(let change):
            data.devices[k].use.append(ReportData.UseChange(t: t, state: change.state.rawValue))
        default:
            break
        }
    }

    /// Counts a record the evaluation refused, keeping the first twenty as examples.
    public mutating func noteRejected(_ description: String) {
        data.summary.rejected += 1
        if data.summary.rejectedExamples.count < 20 { data.summary.rejectedExamples.append(description) }
    }

    /// Takes the records and rejected counts the evaluation itself reported.
    public mutating func setCounts(records: Int, rejected: Int) {
        data.summary.records = records
        data.summary.rejected = rejected
    }

    static func seconds(_ t: Timestamp) -> Double { Double(t.nanosecondsSinceEpoch) / 1e9 }

    /// The index of the first element of `sorted` for which `isBefore` is false (`sorted` holds
    /// all those for which it is true first).
    static func partitionIndex<T>(_ sorted: [T], _ isBefore: (T) -> Bool) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi { let mid = (lo + hi) / 2; if isBefore(sorted[mid]) { lo = mid + 1 } else { hi = mid } }
        return lo
    }

    /// The finished data: tracks simplified, events placed, conditions chosen for the map.
    public mutating func finish() -> ReportData {
        let box = trackBounds()
        let frame = box.map { ReportMap.Frame(minX: $0.minX, minY: $0.minY, maxX: $0.maxX, maxY: $0.maxY) } ?? ReportMap.Frame()
        data.frame = frame
        for k in data.devices.indices {
            var device = data.devices[k]
            device.fixes = fixes[k].count
            device.track = TrackSimplification.simplify(fixes[k].map { (x: $0.x, y: $0.y, t: $0.t) },
                                                        limit: options.trackPointLimit, frame: frame)
            for e in device.events.indices {
                // The device's last fix at or before the event's record.
                let line = device.events[e].line
                let after = Self.partitionIndex(fixes[k]) { $0.line <= line }
                if after > 0 {
                    device.events[e].x = ReportMap.pageUnits(frame.x(fixes[k][after - 1].x))
                    device.events[e].y = ReportMap.pageUnits(frame.y(fixes[k][after - 1].y))
                }
            }
            data.devices[k] = device
        }
        chooseShapes(box: box, frame: frame)
        return data
    }

    /// The box of the shown devices' fixes in map units, `nil` without fixes.
    func trackBounds() -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        for track in fixes {
            for f in track {
                if let b = box {
                    box = (min(b.minX, f.x), min(b.minY, f.y), max(b.maxX, f.x), max(b.maxY, f.y))
                } else {
                    box = (f.x, f.y, f.x, f.y)
                }
            }
        }
        return box
    }

    /// The conditions drawn: those the shown devices have events of, then those whose shape comes
    /// near their tracks, up to `shapeLimit`; beacon conditions with events are listed without a shape.
    mutating func chooseShapes(box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?, frame: ReportMap.Frame) {
        var withEvents: Set<String> = []
        for device in data.devices { for event in device.events { withEvents.insert(event.condition) } }
        var margin = 0.0
        if let b = box { margin = max(b.maxX - b.minX, b.maxY - b.minY) * 0.1 + 0.001 }
        // Bounds first, paths only for what is drawn: writing a path costs far more than its bounds.
        var first: [(Int, String)] = [], near: [(Int, String)] = []
        for (index, definition) in definitions.enumerated() {
            let kind: String
            switch definition.condition {
            case .circle: kind = "circle"
            case .polygon: kind = "polygon"
            case .beacon: kind = "beacon"
            }
            if withEvents.contains(definition.identifier) {
                first.append((index, kind))
            } else if kind != "beacon", let b = box, let s = ReportMap.bounds(of: definition.condition),
                      s.maxX >= b.minX - margin, s.minX <= b.maxX + margin, s.maxY >= b.minY - margin, s.minY <= b.maxY + margin {
                near.append((index, kind))
            }
        }
        let drawn = (first + near).prefix(options.shapeLimit).map { index, kind in
            ReportData.ConditionShape(id: definitions[index].identifier, kind: kind,
                                      path: ReportMap.shape(of: definitions[index].condition, in: frame)?.path)
        }
        data.conditions = drawn
        data.conditionsNotDrawn = definitions.count - drawn.count
    }
}
