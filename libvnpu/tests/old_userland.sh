#!/bin/sh
# Checks that the shim built on this machine loads and enforces in an older userland: a root made
# by debootstrap whose glibc is older than this machine's. Inside the root it builds the fake
# runtime and two programs with the root's own compiler, preloads the shim through the root's
# /etc/ld.so.preload (as the device plugin arranges in containers), and runs the memory-quota test
# and the sandbox's workload past its quota. Needs root (chroot). Once, by hand (docs/libvnpu.md):
#   debootstrap --variant=minbase --include=gcc,libc6-dev bullseye /tmp/bullseye http://deb.debian.org/debian
#   libvnpu/tests/old_userland.sh /tmp/bullseye libvnpu/target/libvnpu.so
set -eu
ROOT=${1:?usage: old_userland.sh ROOT [SHIM]}
SHIM=${2:-target/libvnpu.so}
HERE=$(cd "$(dirname "$0")/.." && pwd)
QUOTA=268435456

rm -rf "$ROOT/vnpu"
mkdir -p "$ROOT/vnpu/work/books" "$ROOT/vnpu/bin"
cp -r "$HERE/fakes" "$HERE/include" "$HERE/tests" "$ROOT/vnpu/"
cp "$SHIM" "$ROOT/vnpu/libvnpu.so"
cat > "$ROOT/vnpu/work/vnpu.conf" <<CONF
version=3
pod.uid=old-userland
pod.namespace=test
pod.name=old-userland
container=main
books_dir=/vnpu/work/books
log.level=warn
priority=online
devices=1
device.0.die_id=DIE-OLD
device.0.memory_bytes=$QUOTA
device.0.cores=30
device.0.policy=elastic
device.0.region=/vnpu/work/region
CONF

echo "userland: $(chroot "$ROOT" ldd --version | head -1)"
chroot "$ROOT" sh -ec '
  cd /vnpu
  F="-std=c11 -O2 -fPIC -Iinclude -pthread"
  gcc $F -shared -o bin/libruntime.so fakes/runtime/fake_runtime.c
  gcc $F -shared -o bin/libascendcl.so fakes/runtime/fake_ascendcl.c -Lbin -lruntime -Wl,-rpath,/vnpu/bin
  gcc $F -o bin/test_memory tests/test_memory.c -Lbin -lascendcl -lruntime -ldl -Wl,-rpath,/vnpu/bin
  gcc $F -o bin/vnpu-workload fakes/workload/vnpu_workload.c -Lbin -lascendcl -lruntime -lm -Wl,-rpath,/vnpu/bin
  gcc $F -o bin/make_region tests/make_region.c
  bin/make_region /vnpu/work/region DIE-OLD'

echo /vnpu/libvnpu.so > "$ROOT/etc/ld.so.preload"
trap 'rm -f "$ROOT/etc/ld.so.preload"' EXIT
failed=0
if out=$(chroot "$ROOT" /bin/true 2>&1) && [ -z "$out" ]; then
    echo "ok   every process of the root loads the shim"
else
    echo "FAIL the shim does not load: $out"
    failed=1
fi
if chroot "$ROOT" env QUOTA=$QUOTA VNPU_CONFIG=/vnpu/work/vnpu.conf \
    VNPU_FAKE_RT_DIR=/vnpu/work/fake-rt /vnpu/bin/test_memory; then
    echo "ok   memory quota enforced"
else
    echo "FAIL memory quota test"
    failed=1
fi
set +e
chroot "$ROOT" env VNPU_CONFIG=/vnpu/work/vnpu.conf VNPU_FAKE_RT_DIR=/vnpu/work/fake-rt \
    WORKLOAD_MEMORY_MIB=512 /vnpu/bin/vnpu-workload > "$ROOT/vnpu/work/oom.out" 2>&1
status=$?
set -e
if [ $status = 3 ] && grep -q "512 MiB refused" "$ROOT/vnpu/work/oom.out"; then
    echo "ok   a model past the quota is refused"
else
    echo "FAIL workload past its quota: exit $status, $(cat "$ROOT/vnpu/work/oom.out")"
    failed=1
fi
exit $failed
