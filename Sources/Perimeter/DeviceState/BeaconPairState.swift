/// The state of one (device, beacon condition) pair (SPEC §2).
struct BeaconPairState: Codable {
    var state: ConditionState
    /// When the pair becomes unsatisfied unless a matching sighting comes first;
    /// `distantFuture` when no exit is due.
    var exitDue = Timestamp.distantFuture

    init(state: ConditionState) {
        self.state = state
    }
}

/// A min-queue of beacon exits by (due time, condition index), for one device.
///
/// An entry is either one touched pair's exit — live only while it still equals the pair's `exitDue`;
/// a later sighting moves `exitDue` and leaves the entry, which the device moves when it comes due, so
/// a pair has at most one entry — or the first exit timer of a whole range of untouched conditions,
/// which share it because they share their start.
///
/// A device's records come in time order and the exit timeout is one policy value, so its pairs'
/// exits are pushed almost always in the order they fall due: those go to the back of a sorted run,
/// pushed and popped in a few instructions. The rest — range timers, and ties pushed after a larger
/// condition more than a few places back — go to a binary heap beside it, so that no push costs
/// more than a heap push.
struct ExitQueue: Codable {
    struct Entry: Comparable, Codable {
        var due: Timestamp
        var condition: Int32
        /// For a range entry, one past its last condition; −1 for a single pair's exit.
        var rangeEnd: Int32 = -1

        var isRange: Bool { rangeEnd >= 0 }

        /// A total order, so that the queue's order never depends on the order of pushes: a range
        /// goes before the single exit filed under the same instant and condition.
        static func < (a: Entry, b: Entry) -> Bool {
            a.due != b.due ? a.due < b.due : a.condition != b.condition ? a.condition < b.condition : a.rangeEnd > b.rangeEnd
        }
    }

    /// The first entry's due instant (`distantFuture` when empty), kept beside the arrays: a record
    /// asks whether anything is due, and most find nothing without touching the arrays' memory.
    private(set) var nextDue = Timestamp.distantFuture
    /// Entries in (due, condition) order from `head` on; those before `head` were popped.
    private(set) var run: [Entry] = []
    private var head = 0
    /// Entries that did not fit at the back of `run`, as a binary min-heap.
    private(set) var heap: [Entry] = []
    /// How far back from the end of `run` a push may still be inserted.
    static let insertionReach = 8

    var count: Int { run.count - head + heap.count }

    var first: Entry? {
        let inRun = head < run.count ? run[head] : nil
        guard let top = heap.first else { return inRun }
        guard let inRun else { return top }
        return top < inRun ? top : inRun
    }

    /// Whether every queued exit is of a beacon condition below `count` (a restored queue's check).
    func conditionsAreBelow(_ count: Int32) -> Bool {
        (run[head...] + heap).allSatisfy { $0.condition >= 0 && $0.condition < count && $0.rangeEnd <= count }
    }

    mutating func push(_ entry: Entry) {
        nextDue = min(nextDue, entry.due)
        if !entry.isRange {
            var at = run.count
            while at > head, run.count - at < Self.insertionReach, entry < run[at - 1] { at -= 1 }
            if at == head || !(entry < run[at - 1]) {
                if at == run.count { run.append(entry) } else { run.insert(entry, at: at) }
                return
            }
        }
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popFirst() -> Entry? {
        defer { nextDue = first?.due ?? .distantFuture }
        if head < run.count, heap.isEmpty || !(heap[0] < run[head]) {
            let entry = run[head]
            head += 1
            if head == run.count {
                run.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && 2 * head >= run.count {
                run.removeSubrange(..<head)  // (amortised: at least as many pops as entries moved)
                head = 0
            }
            return entry
        }
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(from: 0)
        } else {
            heap = []  // (rarely used: let its buffer go, so that `isEmpty` reads no memory of its own)
        }
        return top
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
