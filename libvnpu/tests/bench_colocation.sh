#!/usr/bin/env bash
# Online and offline work on one fake chip (make bench-colocation; figures in docs/benchmarks.md).
# For offline kernels of 0.5, 2 and 8 ms and 1 or 3 offline containers: the online container's
# request latency alone, beside offline work with priority=offline (at most CAP kernels in flight,
# default 1), and beside today's best-effort and elastic offline work with no priority; SECONDS per
# run (default 10). Prints a table, then one summary line per case, e.g.
#   colocation offline_kernel_ms=2 offline=1 online_p99_alone_ms=3.7 online_p99_shared_ms=5.4 offline_idle_share=0.89
# Targets (issue 20): shared p99 <= alone p99 + one offline kernel + 10 %; offline_idle_share >= 0.9.
set -euo pipefail
BUILD=${BUILD:-target}
BUILD=$(cd "$BUILD" && pwd)
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VNPU_FAKE_RT_DIR="$WORK/fake-rt"

run() { # kernel_us offline_count mode; prints the bench's line
    rm -rf "$WORK/run"
    mkdir -p "$WORK/run"
    WORK_DIR="$WORK/run" LD_PRELOAD="$BUILD/libvnpu.so" \
        "$BUILD/tests/bench_colocation" "$SECONDS_PER_RUN" "$@"
}

echo "online: Poisson requests at 30 % load, 4 x 250 us kernels each; ${SECONDS_PER_RUN} s per run" >&2
read -r _ ALONE_P50 ALONE_P99 ALONE_P999 ALONE_BUSY _ <<<"$(run 1000 0 alone)"
echo "| offline kernel | offline containers | offline runs as | online p50 ms | p99 ms | p99.9 ms | online busy | offline busy | offline share of idle | preemptions | p99 target ms | p99 met | share met |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '| - | 0 | (online alone) | %s | %s | %s | %s | - | - | - | - | - | - |\n' \
    "$ALONE_P50" "$ALONE_P99" "$ALONE_P999" "$ALONE_BUSY"
SUMMARY=()
for kernel_us in 500 2000 8000; do
    kernel_ms=$(awk -v k="$kernel_us" 'BEGIN { print k / 1000 }')
    target=$(awk -v a="$ALONE_P99" -v k="$kernel_ms" 'BEGIN { printf "%.3f", a * 1.1 + k }')
    for offline in 1 3; do
        for mode in priority best-effort elastic; do
            echo "offline kernel $kernel_ms ms, $offline offline, $mode" >&2
            read -r _ p50 p99 p999 online_busy offline_busy share _ caused _ \
                <<<"$(run "$kernel_us" "$offline" "$mode")"
            met=$(awk -v s="$p99" -v t="$target" 'BEGIN { print (s <= t ? "yes" : "no") }')
            share_met=$(awk -v f="$share" 'BEGIN { print (f >= 0.9 ? "yes" : "no") }')
            printf '| %s ms | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
                "$kernel_ms" "$offline" "$mode" "$p50" "$p99" "$p999" "$online_busy" \
                "$offline_busy" "$share" "$caused" "$target" "$met" "$share_met"
            if [ "$mode" = priority ]; then
                SUMMARY+=("colocation offline_kernel_ms=$kernel_ms offline=$offline online_p99_alone_ms=$ALONE_P99 online_p99_shared_ms=$p99 offline_idle_share=$share")
            fi
        done
    done
done
echo
printf '%s\n' "${SUMMARY[@]}"
