/// The state of one (device, beacon condition) pair (SPEC §2).
struct BeaconPairState {
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
/// An entry is either one touched pair's exit — live only while it still equals the pair's `exitDue`
/// (a later sighting pushes a new entry rather than moving the old one) — or the first exit timer of
/// a whole range of untouched conditions, which share it because they share their start.
struct ExitQueue {
    struct Entry: Comparable {
        var due: Timestamp
        var condition: Int32
        /// For a range entry, one past its last condition; −1 for a single pair's exit.
        var rangeEnd: Int32 = -1

        var isRange: Bool { rangeEnd >= 0 }

        static func < (a: Entry, b: Entry) -> Bool {
            a.due != b.due ? a.due < b.due : a.condition < b.condition
        }
    }

    private(set) var heap: [Entry] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var first: Entry? { heap.first }

    mutating func push(_ entry: Entry) {
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
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(from: 0)
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

    /// Drops stale entries once they outnumber live ones, so a beacon seen every second does not
    /// grow the queue without bound. In place, without allocating: the survivors keep the array, and
    /// the heap is rebuilt bottom-up (a filter made a new array, and a sort took a scratch buffer).
    mutating func compact(live: (Entry) -> Bool) {
        heap.removeAll { !live($0) }
        for start in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(from: start) }
    }
}
