#!/bin/sh
# Fails when the shim exports a symbol that is not a runtime call (rt*, rts*): preloaded, an export
# of ours would interpose on an application's symbol of the same name (src/libvnpu.map).
set -eu
SHIM=${1:-${BUILD:-target}/libvnpu.so}
NM=${NM:-nm}
EXPORTED=$("$NM" -D --defined-only "$SHIM" | awk '{print $3}')
OTHERS=$(echo "$EXPORTED" | grep -v '^rt' || true)
if [ -n "$OTHERS" ]; then
    echo "FAIL: $SHIM exports symbols other than the hooked runtime calls: $(echo $OTHERS)" >&2
    exit 1
fi
for hook in rtMalloc rtFree rtKernelLaunch rtMemGetInfo rtStreamSynchronize rtStreamDestroy; do
    if ! echo "$EXPORTED" | grep -qx "$hook"; then
        echo "FAIL: $SHIM does not export the hook $hook" >&2
        exit 1
    fi
done
echo "ok: $SHIM exports only its $(echo "$EXPORTED" | wc -l) runtime hooks"
