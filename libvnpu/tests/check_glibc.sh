#!/bin/sh
# Fails when the shim needs a glibc symbol version newer than 2.17 (src/glibc_compat.h says why).
set -eu
SHIM=${1:-${BUILD:-target}/libvnpu.so}
OBJDUMP=${OBJDUMP:-objdump}
NEWER=$("$OBJDUMP" -T "$SHIM" | grep -o 'GLIBC_[0-9.]*' | sort -u -V |
    awk -F'[_.]' '$2 > 2 || ($2 == 2 && $3 > 17)')
if [ -n "$NEWER" ]; then
    echo "FAIL: $SHIM needs glibc versions newer than 2.17: $(echo $NEWER)" >&2
    "$OBJDUMP" -T "$SHIM" | grep -E "$(echo $NEWER | tr ' ' '|')" >&2
    exit 1
fi
NEEDED=$("$OBJDUMP" -p "$SHIM" | awk '/NEEDED/ {print $2}' | sort | tr '\n' ' ')
for library in libpthread.so.0 libdl.so.2; do
    case " $NEEDED" in
        *" $library "*) ;;
        *) echo "FAIL: $SHIM does not name $library as needed (it has: $NEEDED)" >&2; exit 1 ;;
    esac
done
echo "ok: $SHIM needs glibc <= 2.17 ($("$OBJDUMP" -T "$SHIM" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)); needs $NEEDED"
