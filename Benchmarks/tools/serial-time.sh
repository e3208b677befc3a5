#!/bin/bash
# How long `perimeter evaluate` has one thread working alone: the wall time less the time spent
# inside its parallel steps (every `DispatchQueue.concurrentPerform`). Amdahl's law reads the
# serial fraction from it; a change that moves work off the one thread shows here even when the
# machine's noise hides it in the wall time.
#
# usage: Benchmarks/tools/serial-time.sh build COMMIT OUT
#          builds the tool at COMMIT with every concurrentPerform timed, in a scratch worktree
#          (.build/serial-time/COMMIT, which `git worktree remove` takes away again; the
#          repository's own tree is not touched), and copies it to OUT
#        Benchmarks/tools/serial-time.sh run ROUNDS CONDITIONS OBSERVATIONS BUILD...
#          runs the builds in turn, ROUNDS times, on two cores (`taskset -c 0,1`), and prints for
#          each its serial seconds, wall seconds and peak memory (MB), round by round
#   e.g. Benchmarks/tools/serial-time.sh build HEAD /tmp/timed-head
#        Benchmarks/tools/serial-time.sh run 5 .build/workloads-10m/circles.geojson \
#            .build/workloads-10m/fixes.csv /tmp/timed-old /tmp/timed-head
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

case "${1:-}" in
build)
    commit=$(git -C "$root" rev-parse "$2")
    out=$(realpath -m "$3")
    tree="$root/.build/serial-time/$commit"
    [ -d "$tree" ] || git -C "$root" worktree add --detach "$tree" "$commit" > /dev/null
    git -C "$tree" checkout --quiet -- Sources
    # The timing wrapper: adds up the wall time inside each parallel step, and prints the sum at
    # exit when PERIMETER_SERIAL_TIME is set.
    cat > "$tree/Sources/Perimeter/Support/ParallelTiming.swift" << 'SWIFT'
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

public enum ParallelTiming {
    nonisolated(unsafe) static var inside: UInt64 = 0
    nonisolated(unsafe) static var calls = 0

    public static func perform(iterations: Int, execute work: @Sendable (Int) -> Void) {
        if calls == 0 && getenv("PERIMETER_SERIAL_TIME") != nil { atexit { ParallelTiming.report() } }
        calls += 1
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: iterations, execute: work)
        inside += DispatchTime.now().uptimeNanoseconds - start
    }

    static func report() {
        let line = "parallel: \(inside / 1_000_000) ms in \(calls) steps\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
SWIFT
    grep -rl "DispatchQueue.concurrentPerform(iterations:" "$tree/Sources" | grep -v ParallelTiming.swift \
        | xargs sed -i 's/DispatchQueue\.concurrentPerform(iterations:/ParallelTiming.perform(iterations:/'
    (cd "$tree" && swift build -c release --static-swift-stdlib --product perimeter > /dev/null)
    cp "$tree/.build/release/perimeter" "$out"
    git -C "$tree" checkout --quiet -- Sources
    rm -f "$tree/Sources/Perimeter/Support/ParallelTiming.swift"
    echo "$out: the tool at ${commit:0:7}, its parallel steps timed"
    ;;
run)
    rounds=$2; conditions=$3; observations=$4; shift 4
    declare -A serial wall memory
    timing=$(mktemp); report=$(mktemp)
    trap 'rm -f "$timing" "$report"' EXIT
    for _ in $(seq "$rounds"); do
        for tool in "$@"; do
            PERIMETER_SERIAL_TIME=1 /usr/bin/time -f "%e %M" -o "$timing" taskset -c 0,1 "$tool" evaluate \
                --assume unsatisfied --conditions "$conditions" --observations "$observations" > /dev/null 2> "$report"
            read -r seconds kilobytes < <(tail -n 1 "$timing")
            inside=$(sed -n 's/^parallel: \([0-9]*\) ms.*/\1/p' "$report")
            [ -n "$inside" ] || { echo "$tool: no timing reported (not a build of '$0 build')" >&2; exit 1; }
            serial[$tool]="${serial[$tool]:-} $(awk -v w="$seconds" -v p="$inside" 'BEGIN { printf "%.3f", w - p / 1000 }')"
            wall[$tool]="${wall[$tool]:-} $seconds"
            memory[$tool]="${memory[$tool]:-} $(( kilobytes / 1024 ))"
        done
    done
    for tool in "$@"; do
        echo "$tool: serial${serial[$tool]} s; wall${wall[$tool]} s; peak${memory[$tool]} MB"
    done
    ;;
*)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
