#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (a package of their own) and, one target at a time:
#   1. replays every regression input of the target (Fixtures/fuzz/regressions/<target>/*);
#   2. fuzzes it for SECONDS seconds from its seed corpus (Fixtures/fuzz/<target>/), growing a working
#      corpus in Fuzz/corpus/<target>/ (ignored by git).
# Prints per target the seconds run, the executions and the result; exits non-zero if any target
# found a crash, a leak, a timeout or an oracle difference (or a regression input fails again).
#
# Usage: scripts/fuzz.sh [SECONDS]        (default 30 per target)
# Environment:
#   FUZZ_TARGETS="jsonl csv"   only these targets (default: conditions jsonl csv evaluate index-image)
#   FUZZ_NO_BUILD=1            use the binaries already built
#   FUZZ_ARGS="..."            more libFuzzer flags (e.g. -seed=1)
# Needs libgeos-dev (pkg-config geos) and a Swift 6.1+ toolchain with libFuzzer (Linux).
set -uo pipefail

SECONDS_PER_TARGET="${1:-30}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SCRATCH="$ROOT/Fuzz/.build"
# The Swift runtime's backtracer would catch abort() before libFuzzer (and trips ASan as it reads memory).
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
TARGETS=(${FUZZ_TARGETS:-conditions jsonl csv evaluate index-image})

max_len() {
    case "$1" in
        conditions) echo 16384 ;;   # > 64 small features: the reader's 2-thread split
        jsonl) echo 32768 ;;
        csv) echo 65536 ;;          # > 4,096 short lines: a parallel block cut at the reader's limit
        evaluate) echo 16384 ;;
        index-image) echo 256 ;;    # 51 edits of 5 bytes to the base image
    esac
}
# Leak checks: per input where the target's runs are balanced; at exit only (LeakSanitizer's own
# check: a leak fails the run, without an input saved) where libdispatch's continuation cache leaves
# an allocation behind in most runs (`concurrentPerform`), which made libFuzzer scan the heap after
# each run (some 20 times slower). To find the input of a leak reported at exit, rerun the target
# with FUZZ_ARGS=-detect_leaks=1. index-image's runs are balanced: its engine keeps one thread
# (`batchThreads` 1), so nothing per input goes through Dispatch.
leaks() {
    case "$1" in
        conditions|index-image) echo "-detect_leaks=1" ;;
        *) echo "-detect_leaks=0" ;;
    esac
}
# The target's libFuzzer dictionary, or nothing for a target without one (index-image: its inputs are
# offsets and masks, not words).
dict() {
    case "$1" in
        jsonl|csv) echo "$ROOT/Fuzz/dict/observations.dict" ;;
        index-image) ;;
        *) echo "$ROOT/Fuzz/dict/$1.dict" ;;
    esac
}

if [[ -z "${FUZZ_NO_BUILD:-}" ]]; then
    echo "fuzz: building the fuzz targets (release, -sanitize=fuzzer,address)…"
    start=$(date +%s)
    mkdir -p "$SCRATCH"
    if ! swift build -c release --package-path "$ROOT/Fuzz" --scratch-path "$SCRATCH" \
            -Xswiftc -sanitize=fuzzer,address >"$SCRATCH/fuzz-build.log" 2>&1; then
        grep -v "Cannot export local symbol '__asan" "$SCRATCH/fuzz-build.log" | tail -40 >&2
        echo "fuzz: the build failed" >&2
        exit 2
    fi
    echo "fuzz: built in $(( $(date +%s) - start )) s"
fi
BIN="$(swift build -c release --package-path "$ROOT/Fuzz" --scratch-path "$SCRATCH" --show-bin-path)"

failed=0
summary=()
for target in "${TARGETS[@]}"; do
    binary="$BIN/fuzz-$target"
    if [[ ! -x "$binary" ]]; then
        echo "fuzz: no binary $binary" >&2
        exit 2
    fi
    work="$ROOT/Fuzz/corpus/$target"
    artifacts="$ROOT/Fuzz/artifacts/$target"
    mkdir -p "$work" "$artifacts"
    log="$artifacts/fuzz.log"
    # The targets' scratch files (Fuzz.Scratch), here rather than in /tmp: a crash leaves them behind.
    export TMPDIR="$artifacts/tmp"
    rm -rf "$TMPDIR"
    mkdir -p "$TMPDIR"
    common=(-rss_limit_mb=2048 -timeout=10 "-max_len=$(max_len "$target")")
    dictionary="$(dict "$target")"
    dict_flag=()
    [[ -n "$dictionary" ]] && dict_flag=("-dict=$dictionary")

    # 1. Regressions: each saved input must pass now.
    regressions="$ROOT/Fixtures/fuzz/regressions/$target"
    replayed=0
    replay_result="ok"
    if [[ -d "$regressions" ]] && compgen -G "$regressions/*" >/dev/null; then
        files=("$regressions"/*)
        replayed=${#files[@]}
        if ! "$binary" "${common[@]}" "${files[@]}" >"$artifacts/regressions.log" 2>&1; then
            replay_result="FAILED"
            failed=1
            echo "fuzz: $target: a regression input fails again:" >&2
            # The input, and the finding's message or the sanitizer's report.
            awk '/^Running:/ { print } /PERIMETER FUZZ FINDING/ { on = 1 } on && n < 40 { print; n++ } /^=+$/ && on && n > 1 { on = 0 }
                 /ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)/ { print }' "$artifacts/regressions.log" | head -60 >&2
        fi
    fi

    # 2. Fuzzing.
    echo "fuzz: $target: $SECONDS_PER_TARGET s…"
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$binary" "${common[@]}" "$(leaks "$target")" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 \
        "${dict_flag[@]}" -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} \
        "$work" "$ROOT/Fixtures/fuzz/$target" >"$log" 2>&1
    code=$?
    elapsed=$(( $(date +%s) - start ))
    rm -rf "$TMPDIR"
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    if [[ $code -eq 0 ]]; then
        result="ok"
    else
        failed=1
        artifact=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
        kind=$(grep -m1 -oE "PERIMETER FUZZ FINDING|ERROR: AddressSanitizer: [a-z-]+|ERROR: LeakSanitizer|ERROR: libFuzzer: [a-z-]+|Fatal error" "$log" || true)
        result="FAILED (exit $code: ${kind:-see log}) ${artifact:+input $artifact}"
        echo "fuzz: $target failed; the end of $log:" >&2
        grep -v "^#[0-9]" "$log" | tail -40 >&2
    fi
    line=$(printf "%-11s %5s s  %10s executions  regressions: %s %s  fuzzing: %s" \
        "$target" "$elapsed" "${executions:-?}" "$replayed" "$replay_result" "$result")
    summary+=("$line")
    echo "fuzz: $line"
done

echo
echo "fuzz: summary"
for line in "${summary[@]}"; do echo "  $line"; done
if [[ $failed -ne 0 ]]; then
    echo "fuzz: FAILED (artifacts and logs in Fuzz/artifacts/; replay one input with: $BIN/fuzz-<target> <file>)"
    exit 1
fi
echo "fuzz: all targets passed"
