#!/usr/bin/env bash
# Builds the upstream binaries the real-cluster scenario runs (docs/real-cluster.md), from the Go
# module proxy, with the Go modules in this directory:
#   kubernetes/  kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, and
#                the pause program of the node's sandbox image (build/pause/linux/pause.c of the
#                module, compiled statically with gcc)
#   volcano/     Volcano's scheduler and controller manager (and its CRDs, from the module)
#   etcd/        etcd
#   node/        containerd, its runc shim and ctr, runc, and the CNI plugins (cni/bin/)
# Every version is pinned by the go.mod and go.sum files; nothing is copied from upstream.
#
# The binaries go to a cache keyed by those files, this script and the Go version:
#   ${VNPU_UPSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vnpu-upstream}/<key>/
# A second run only checks them (each answers --version). The last line printed on stdout is that
# directory; progress goes to stderr.
#
# Usage: upstream/build.sh [--check]   (--check: exit 1 unless the cache holds this build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

say() { printf 'upstream: %s\n' "$*" >&2; }
fail() { say "$*"; exit 2; }

command -v go >/dev/null ||
  fail "needs Go 1.24 or later on PATH to build kube-apiserver, Volcano and etcd from their modules; install Go (https://go.dev/doc/install) or put the binaries of a previous build in \$VNPU_UPSTREAM_CACHE"
go_version=$(go env GOVERSION)
case "$go_version" in
  go1.2[4-9]* | go1.[3-9][0-9]*) ;;
  *) fail "needs Go 1.24 or later, found $go_version (GOTOOLCHAIN=local: no other toolchain is fetched)" ;;
esac

module_version() { # module-dir module-path
  (cd "$here/$1" && go list -m -f '{{.Version}}' "$2")
}

key=$( (cat "$here/build.sh" "$here"/*/go.mod "$here"/*/go.sum "$here"/etcd/*.go; echo "$go_version") |
  sha256sum | cut -c1-16)
cache=${VNPU_UPSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vnpu-upstream}
out="$cache/$key"
binaries=(etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy vc-scheduler vc-controller-manager
  containerd ctr runc)

complete() {
  [ -f "$out/complete" ] || return 1
  for binary in "${binaries[@]}"; do
    "$out/bin/$binary" --version >/dev/null 2>&1 || { say "$out/bin/$binary does not run"; return 1; }
  done
}

started=$SECONDS
if complete; then
  say "cached build $key is whole (checked in $((SECONDS - started)) s): $(cat "$out/complete")"
  echo "$out"
  exit 0
fi
[ "${1:-}" = "--check" ] && { say "no complete build $key in $cache"; exit 1; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/volcano-crds"
proxy=$(go env GOPROXY)
download() { # module-dir
  (cd "$here/$1" && go mod download) ||
    fail "cannot download the modules of upstream/$1 from GOPROXY=$proxy (is the module proxy reachable?)"
}

kubernetes=$(module_version kubernetes k8s.io/kubernetes)
volcano=$(module_version volcano volcano.sh/volcano)
etcd=$(module_version etcd go.etcd.io/etcd/server/v3)
say "building Kubernetes $kubernetes, Volcano $volcano and etcd $etcd into $out"

step=$SECONDS
download kubernetes
minor=${kubernetes#v1.}
minor=${minor%%.*}
# The version every component reports (nodes would say v0.0.0-master without it), as
# hack/lib/version.sh sets it.
version_flags=""
for package in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  version_flags+=" -X $package.gitVersion=$kubernetes -X $package.gitMajor=1"
  version_flags+=" -X $package.gitMinor=$minor -X $package.gitTreeState=clean"
done
(cd "$here/kubernetes" && go build -trimpath -ldflags "-s -w$version_flags" -o "$out/bin/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)
kubernetes_dir=$(cd "$here/kubernetes" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)
gcc -Os -static -Wall -Werror -DVERSION="$kubernetes" -o "$out/bin/pause" \
  "$kubernetes_dir/build/pause/linux/pause.c" ||
  fail "cannot compile the pause program statically (gcc and libc6-dev's libc.a are needed)"
say "Kubernetes built in $((SECONDS - step)) s"

step=$SECONDS
download volcano
(cd "$here/volcano" && go build -trimpath \
  -ldflags "-s -w -X volcano.sh/volcano/pkg/version.Version=$volcano" -o "$out/bin/" \
  volcano.sh/volcano/cmd/scheduler volcano.sh/volcano/cmd/controller-manager)
mv "$out/bin/scheduler" "$out/bin/vc-scheduler"
mv "$out/bin/controller-manager" "$out/bin/vc-controller-manager"
volcano_dir=$(cd "$here/volcano" && go list -m -f '{{.Dir}}' volcano.sh/volcano)
cp "$volcano_dir"/config/crd/volcano/bases/*.yaml "$volcano_dir"/config/crd/jobflow/bases/*.yaml \
  "$out/volcano-crds/"
chmod u+w "$out"/volcano-crds/*.yaml
say "Volcano built in $((SECONDS - step)) s"

step=$SECONDS
download etcd
(cd "$here/etcd" && go build -trimpath -ldflags "-s -w" -o "$out/bin/etcd" .)
say "etcd built in $((SECONDS - step)) s"

step=$SECONDS
download node
containerd=$(module_version node github.com/containerd/containerd/v2)
runc=$(module_version node github.com/opencontainers/runc)
plugins=github.com/containernetworking/plugins/plugins
# No btrfs, devicemapper or ZFS snapshotter: the node uses overlayfs, and these need C headers.
(cd "$here/node" && go build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
  -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$containerd" -o "$out/bin/" \
  github.com/containerd/containerd/v2/cmd/containerd \
  github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
  github.com/containerd/containerd/v2/cmd/ctr)
# With seccomp: containerd gives every pod sandbox the runtime's default seccomp profile.
pkg-config --exists libseccomp 2>/dev/null ||
  fail "runc needs libseccomp's headers and pkg-config (Debian: apt-get install libseccomp-dev pkg-config)"
(cd "$here/node" && go build -trimpath -tags seccomp -ldflags "-s -w" -o "$out/bin/" \
  github.com/opencontainers/runc)
mkdir -p "$out/cni/bin"
(cd "$here/node" && go build -trimpath -ldflags "-s -w" -o "$out/cni/bin/" \
  $plugins/main/bridge $plugins/ipam/host-local $plugins/main/loopback $plugins/meta/portmap)
say "containerd $containerd, runc $runc and the CNI plugins built in $((SECONDS - step)) s"

echo "Kubernetes $kubernetes, Volcano $volcano, etcd $etcd, containerd $containerd, runc $runc, $go_version" >"$out/complete"
complete || fail "a binary just built does not run"
say "built in $((SECONDS - started)) s: $(du -sh "$out" | cut -f1) in $out"
echo "$out"
