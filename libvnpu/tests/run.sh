#!/usr/bin/env bash
# The C tests (make test): the pacing arithmetic, memory quota, config errors (also under ASan/UBSan), region layout, a
# hostile container writing the chip region, every launch call paced once, the fixed config path,
# AI Core shares, waiting and idle containers that sleep, and online/offline co-location on the
# fake chip. Every test runs against the fake runtime in target/fakes.
set -euo pipefail
BUILD=${BUILD:-target}
BUILD=$(cd "$BUILD" && pwd)
SHIM="$BUILD/libvnpu.so"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VNPU_FAKE_RT_DIR="$WORK/fake-rt"
failed=0

. "$(dirname "$0")/conf.sh"
config() { # name quota cores policy
    vnpu_conf "$WORK/$1" "DIE-$1" "$2" "$3" "$4"
}

run() { # name command...
    local name=$1
    shift
    if ! timeout 120 "$@"; then
        echo "FAIL $name"
        failed=1
    fi
}

# A test that times the shim against the host's clock runs once more when it fails, and fails
# only if the second run fails too: a host that stalls the processes for a moment moves what they
# measure (a CI run once saw a lend 70 us after an online kernel ended, against a floor of 100 us),
# a shim that times its hand-backs wrong fails both runs.
# Each run has a fresh work directory: the containers' books stay there.
run_timed() { # name work-directory command...
    local name=$1 dir=$2
    shift 2
    mkdir -p "$dir"
    if ! timeout 120 "$@"; then
        echo "retry $name: its first run failed"
        rm -rf "$dir"
        mkdir -p "$dir"
        run "$name" "$@"
    fi
}

run pacing "$BUILD/tests/test_pacing"
QUOTA=268435456
run memory env QUOTA=$QUOTA VNPU_CONFIG="$(config memory $QUOTA 30 elastic)" \
    LD_PRELOAD="$SHIM" "$BUILD/tests/test_memory"
mkdir -p "$WORK/config"
run config env REGION_DIR="$WORK/config" LD_PRELOAD="$SHIM" "$BUILD/tests/test_config"
# The same under AddressSanitizer and UndefinedBehaviorSanitizer (the ASan runtime loads first).
SANITIZED="$(${CC:-gcc} -print-file-name=libasan.so) $BUILD/san/libvnpu.so"
run memory-sanitized env QUOTA=$QUOTA VNPU_CONFIG="$(config memory-san $QUOTA 30 elastic)" \
    ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$SANITIZED" "$BUILD/tests/test_memory"
run config-sanitized env REGION_DIR="$WORK/config" ASAN_OPTIONS=detect_leaks=0 \
    LD_PRELOAD="$SANITIZED" "$BUILD/tests/test_config"
run region-layout "$BUILD/tests/test_region_layout"
mkdir -p "$WORK/hostile"
run hostile-region env WORK_DIR="$WORK/hostile" LD_PRELOAD="$SHIM" "$BUILD/tests/test_hostile"
run hostile-region-sanitized env WORK_DIR="$WORK/hostile" ASAN_OPTIONS=detect_leaks=0 \
    LD_PRELOAD="$SANITIZED" "$BUILD/tests/test_hostile"

mkdir -p "$WORK/launch"
run launch-calls env WORK_DIR="$WORK/launch" LD_PRELOAD="$SHIM" "$BUILD/tests/test_launch"
mkdir -p "$WORK/cap"
run offline-kernel-cap env WORK_DIR="$WORK/cap" LD_PRELOAD="$SHIM" "$BUILD/tests/test_cap"
run_timed online-takes-the-chip "$WORK/priority" env WORK_DIR="$WORK/priority" LD_PRELOAD="$SHIM" \
    "$BUILD/tests/test_priority"
mkdir -p "$WORK/quiet"
run quiet-waiters env WORK_DIR="$WORK/quiet" LD_PRELOAD="$SHIM" "$BUILD/tests/test_quiet"

# In a container the config is at its fixed path and VNPU_CONFIG cannot move it. The sanitized
# build's fixed path is $BUILD/san/fixed.conf (the Makefile), which only this check creates.
FIXED="$BUILD/san/fixed.conf"
cp "$(config fixed $QUOTA 30 elastic)" "$FIXED"
run fixed-config-path env QUOTA=$QUOTA VNPU_CONFIG="$(config bigger $((QUOTA * 2)) 30 elastic)" \
    ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$SANITIZED" "$BUILD/tests/test_memory"
rm -f "$FIXED"

# The sandbox's workload: its model fits the quota, or it stops with the out-of-memory exit code 3;
# device 0 of a container that sees chip 5 is the fake's chip5.
run workload-fits env VNPU_CONFIG="$(config workload $QUOTA 30 elastic)" VNPU_FAKE_RT_VISIBLE=5 \
    WORKLOAD_MEMORY_MIB=128 WORKLOAD_SECONDS=1 LD_PRELOAD="$SHIM" "$BUILD/fakes/vnpu-workload"
[ -e "$VNPU_FAKE_RT_DIR/chip5" ] || { echo "FAIL workload: ran on chip5"; failed=1; }
set +e
env VNPU_CONFIG="$(config workload-oom $QUOTA 30 elastic)" WORKLOAD_MEMORY_MIB=512 \
    LD_PRELOAD="$SHIM" "$BUILD/fakes/vnpu-workload" > "$WORK/oom.out"
status=$?
set -e
if [ $status = 3 ] && grep -q "512 MiB refused" "$WORK/oom.out"; then
    echo "ok   workload refused past its quota"
else
    echo "FAIL workload past its quota: exit $status, $(cat "$WORK/oom.out")"
    failed=1
fi

# A workload whose parent dies without stopping it (a sandbox killed with SIGKILL) stops by itself.
sh -c 'env VNPU_CONFIG="$1" WORKLOAD_MEMORY_MIB=16 LD_PRELOAD="$2" "$3" > /dev/null &
       echo $! > "$4"; sleep 1' orphan "$(config orphan $QUOTA 30 elastic)" "$SHIM" \
    "$BUILD/fakes/vnpu-workload" "$WORK/orphan.pid"
orphan=$(cat "$WORK/orphan.pid")
for _ in $(seq 50); do kill -0 "$orphan" 2> /dev/null || break; sleep 0.1; done
if kill -0 "$orphan" 2> /dev/null; then
    echo "FAIL workload outlives its parent"
    kill -9 "$orphan"
    failed=1
else
    echo "ok   workload stops when its parent is gone"
fi

# AI Core shares, short runs (bench.sh measures longer): a cap may be exceeded by 3 points at most;
# below a share the margin is 5 points, because a CPU-starved machine (a parallel build) delays
# the processes' wake-ups and so lowers what they measure, not what the shim grants. A miss is
# measured once more, and fails only if the second run misses too: a host that starved the
# processes for a while (a CI run once measured 63.6 % for fixed-share 70) does not fail the check,
# a shim that grants the wrong share misses both runs.
share() { # expected-min expected-max container specs...
    local min=$1 max=$2
    shift 2
    local attempt line measured missed=""
    for attempt in 1 2; do
        rm -rf "$WORK/share"
        mkdir -p "$WORK/share"
        line=$(WORK_DIR="$WORK/share" LD_PRELOAD="$SHIM" timeout 60 "$BUILD/tests/test_share" 2 "$@" \
            | head -1)
        measured=${line##* }
        if awk -v m="$measured" -v lo="$min" -v hi="$max" 'BEGIN { exit !(m >= lo && m <= hi) }'; then
            echo "ok   share $* -> first container $measured %${missed:+ (first run: $missed %)}"
            return
        fi
        missed=$measured
    done
    echo "FAIL share $* -> first container $missed % then $measured %, expected $min..$max"
    failed=1
}
share 25 33 a:fixed-share:30
share 25 33 a:fixed-share:30 b:best-effort:0
share 65 73 a:fixed-share:70 b:elastic:30
share 85 100 a:elastic:30
share 30 100 a:elastic:30 b:fixed-share:50
share 85 100 a:best-effort:0

# Co-location (docs/colocation.md; make bench-colocation measures longer): beside offline work of
# 8 ms kernels, an online request waits for about one offline kernel, not for the offline
# container's slices and queue (today's best-effort gives p99 above 100 ms), the containers' books
# count the preemptions, and offline work keeps most of the idle time. The online container is
# charged for its own time, not for the offline kernels its launches queued behind (test_priority
# shows one such turn; here, charged for them, it was charged 2.4 times its busy time).
rm -rf "$WORK/colocation"
mkdir -p "$WORK/colocation"
read -r _ _ p99 _ online_busy _ idle_share _ caused suffered _ charged <<<"$(WORK_DIR="$WORK/colocation" \
    LD_PRELOAD="$SHIM" timeout 60 "$BUILD/tests/bench_colocation" 3 8000 1 priority)"
if awk -v p="$p99" -v f="$idle_share" -v c="$caused" -v s="$suffered" -v b="$online_busy" \
    -v g="$charged" 'BEGIN { exit !(p < 30 && f > 0.6 && c > 0 && s > 0 && g < 1.5 * b) }'; then
    echo "ok   co-location: online p99 $p99 ms beside 8 ms offline kernels, offline $idle_share of idle, $caused/$suffered preemptions, online charged $charged for $online_busy busy"
else
    echo "FAIL co-location: online p99 $p99 ms (< 30), offline share of idle $idle_share (> 0.6), preemptions caused $caused and suffered $suffered (> 0), online charged $charged for $online_busy busy (< 1.5 x)"
    failed=1
fi

exit $failed
