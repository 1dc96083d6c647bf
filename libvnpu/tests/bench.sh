#!/usr/bin/env bash
# AI Core share accuracy and hook overhead (make bench; figures in docs/benchmarks.md).
# Shares: one container at 10/30/50/70 % under each policy, alone, with one other container and
# with three others, on one fake chip; SECONDS per run (default 5).
set -euo pipefail
BUILD=${BUILD:-target}
BUILD=$(cd "$BUILD" && pwd)
SHIM="$BUILD/libvnpu.so"
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VNPU_FAKE_RT_DIR="$WORK/fake-rt"

measure() { # label specs... ; prints the first container's share
    rm -rf "$WORK/share"
    mkdir -p "$WORK/share"
    local label=$1
    shift
    local line
    line=$(WORK_DIR="$WORK/share" LD_PRELOAD="$SHIM" "$BUILD/tests/test_share" "$SECONDS_PER_RUN" "$@" | head -1)
    printf '| %s | %s | %s |\n' "$label" "$*" "${line##* }"
}

echo "| case | containers (name:policy:cores) | first container's share % |"
echo "|---|---|---|"
for q in 10 30 50 70; do
    r=$((100 - q))
    t=$(((100 - q) / 3))
    measure "fixed-share $q alone" a:fixed-share:$q
    measure "fixed-share $q vs best-effort" a:fixed-share:$q b:best-effort:0
    measure "fixed-share $q vs elastic $r" a:fixed-share:$q b:elastic:$r
    measure "fixed-share $q vs 3 elastic" a:fixed-share:$q b:elastic:$t c:elastic:$t d:elastic:$t
    measure "elastic $q alone" a:elastic:$q
    measure "elastic $q vs fixed-share $r" a:elastic:$q b:fixed-share:$r
    measure "elastic $q vs 3 fixed-share" a:elastic:$q b:fixed-share:$t c:fixed-share:$t d:fixed-share:$t
    measure "best-effort vs fixed-share $q" a:best-effort:0 b:fixed-share:$q
done
measure "best-effort alone" a:best-effort:0

echo
echo "CPU of the containers' processes over a run (user + system seconds; the fake chip's kernels"
echo "spin their last 100 us, about a tenth of a core):"
for count in 2 4 8; do
    specs=()
    for i in $(seq "$count"); do specs+=("c$i:fixed-share:$((96 / count))"); done
    rm -rf "$WORK/share"
    mkdir -p "$WORK/share"
    TIMEFORMAT="$count fixed-share containers of $((96 / count)) %%: %U + %S s in %R s"
    time (WORK_DIR="$WORK/share" LD_PRELOAD="$SHIM" "$BUILD/tests/test_share" "$SECONDS_PER_RUN" \
        "${specs[@]}" > /dev/null)
done 2>&1


echo
echo "hook overhead (ns per call, uncontended; three runs each):"
. "$(dirname "$0")/conf.sh"
OVERHEAD_CONF=$(vnpu_conf "$WORK/overhead" OVERHEAD 1073741824 100 elastic)
for run in 1 2 3; do
    printf 'fake runtime alone: %s\n' "$("$BUILD/tests/bench_overhead")"
    printf 'through the shim:   %s\n' \
        "$(VNPU_CONFIG="$OVERHEAD_CONF" LD_PRELOAD="$SHIM" "$BUILD/tests/bench_overhead")"
done
