#!/usr/bin/env bash
# The fast subset of the tests, for the edit–test loop: every suite but its slowest tests.
#
#   scripts/fast-tests.sh [swift test options…]   e.g. --skip-build, --filter ReaderFuzzTests
#
# It leaves out the tests that take most of the suite's time: the thousand-run and million-point
# differential tests, the fuzzers' long files, the tool's 26k-line and 262k-line stop runs, the
# longest randomized comparisons (exit queue, beacon matcher, beacon and polygon churn, cover-grid
# sides, circle thresholds). Every area still runs its quicker tests: authorization, beacons,
# geographic state, the cover grid and containment query, polygons and circles at the extremes,
# the readers (JSON Lines, CSV, numbers, times, conditions), the event writer, the batch paths on
# several threads, and the tool end to end and on the scenarios.
#
# It is no substitute for the full `swift test`, which CI runs: run that before a commit.
set -euo pipefail
cd "$(dirname "$0")/.."

slow=(
    # Authorization: 800 random runs against the oracle (the pinned sequences stay).
    'AuthorizationOracleTests/verdictsAgreeWithTheOracle'
    # Beacons: long random comparisons (the plain-reading oracle and the queue's short run stay).
    'ExitQueueTests/queueInDueOrderEqualsASortedList'
    'BeaconMatcherTests/matcherEqualsAScanOfEveryCondition'
    'BeaconChurnTests/'
    # Geometry: a million points against GEOS, real countries, the aligned drawings, churn.
    'PolygonLocatorTests/(locatorEqualsGEOSCoversOnAMillionPoints|fastMarginTestEqualsTheFullMeasureAtTheThreshold)'
    'DifferentialTests/(polygonVerdictsEqualGEOSPlainCoversOnRealCountries|indexedEngineEqualsBruteForce)'
    'AlignedGeometryTests/(shapeAnswersOnAlignedPoints|engineEventsOnAlignedWalks)'
    'CoverGridTests/(gridSidesEqualExactSidesForEveryCondition|indexLeavesOutOnlyConfidentlyOutsideConditions)'
    'CircleExtremesTests/exactThresholdsAndCells'
    'PolygonChurnTests/'
    # Reading: the fuzzer's files (its reduced bugs and the oracle's own check stay).
    'ReaderFuzzTests/(filesMatchTheOracle|blockPathMatchesTheOracleAndNext)'
    # The tool: stop runs over the 26k-line inputs and at the 262k batch size, thread and budget
    # sweeps (the quarantine run over the same inputs stays).
    'ToolOracleTests/(stopsAtTheBatchSize|stopsAtTheEdgesOfParallelBlocks|stopsAtTheFirstBadLine)'
    'EndToEndTests/threadsAndBudgetCutsWriteTheSameBytes'
)

pattern=$(IFS='|'; echo "${slow[*]}")
exec swift test --skip "$pattern" "$@"
