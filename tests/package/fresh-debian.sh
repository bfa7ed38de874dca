#!/usr/bin/env bash
# The Debian package on a Debian 12 that has nothing else: a minimal bookworm (debootstrap
# --variant=minbase, Debian's default sources: bookworm, -updates, -security), `apt-get install
# --no-install-recommends` of the .deb that cpack makes, which must pull in everything oxcc needs
# through its declared dependencies: then `oxcc doctor` must pass and the basic `oxcc new`
# template build and run on the CPU simulator; with the package's Recommends installed too, the
# CMake template. The CUDA toolkit is NVIDIA's, not a Debian package: the host's is mounted
# read-only at /usr/local/cuda, as a user installs it.
#
#   sudo bash tests/package/fresh-debian.sh [BUILD_DIR] [SCRATCH_DIR]
#
# Needs root (debootstrap, chroot, bind mounts), debootstrap and a Debian mirror
# (DEBIAN_MIRROR, default deb.debian.org): about 450 MB of packages and several minutes, so it
# is a release check rather than part of CI (CI's package.test installs the tarball into a
# prefix and builds an out-of-tree project). The chroot is kept in SCRATCH_DIR for a rerun;
# delete it for a fresh one.
set -euo pipefail
build="$(realpath "${1:-build}")"
scratch="$(realpath -m "${2:-/tmp/oxide-fresh-debian}")"
cuda="${OXIDE_CUDA_PATH:-/usr/local/cuda}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
root="$scratch/root"

fail() {
  echo "fresh-debian: $*" >&2
  exit 2
}
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and bind mounts): run it with sudo"
command -v debootstrap >/dev/null || fail "needs debootstrap: apt-get install debootstrap"
[ -f "$build/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $build: build Oxide first (scripts/build.sh)"
[ -x "$cuda/bin/ptxas" ] || fail "no CUDA toolkit at $cuda (set OXIDE_CUDA_PATH)"
mkdir -p "$scratch"

echo "== cpack -G DEB"
rm -rf "$scratch/cpack"
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$scratch/cpack" >"$scratch/cpack.log"
deb=$(ls "$scratch"/cpack/oxide_*_amd64.deb)

if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "== debootstrap bookworm (minbase) into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$scratch/debootstrap.log"
fi
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"

mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true; done
}
trap cleanup EXIT
mount_into() { # mount_into TARGET MOUNT-ARGS...
  mkdir -p "$1"
  mount "${@:2}" "$1"
  mounts+=("$1")
}
mount_into "$root/proc" -t proc proc
mount_into "$root/dev" --bind /dev
mount_into "$root/usr/local/cuda" --bind "$(realpath "$cuda")"
mount -o remount,bind,ro "$root/usr/local/cuda"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

echo "== what the fresh system has before the package"
# shellcheck disable=SC2016 # dpkg-query's format fields, not the shell's
in_root dpkg-query -W -f '${Package}\n' | grep -E '^(libllvm|clang|libclang|libmlir|cmake|python3$)' || echo "(no LLVM, Clang, MLIR, CMake or Python)"

echo "== apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/oxide.deb"
in_root apt-get update -q >"$scratch/apt-update.log"
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/oxide.deb \
  >"$scratch/apt-install.log"
grep -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$scratch/apt-install.log"
# shellcheck disable=SC2016
in_root dpkg-query -W -f '${Package} ${Version}\n' oxide libllvm22 libclang-cpp22 libmlir-22 clang-22

echo "== oxcc doctor"
in_root /opt/oxide/bin/oxcc doctor

echo "== oxcc new demo --template basic, built and run on the simulator"
in_root bash -c 'set -e; rm -rf /tmp/p && mkdir -p /tmp/p && cd /tmp/p && /opt/oxide/bin/oxcc new demo --template basic >/dev/null &&
  cd demo && /opt/oxide/bin/oxcc build src/main.cpp -o demo && OXIDE_DEVICE=cpu ./demo'

echo "== the package's Recommends, then oxcc new demo2 --template cmake"
recommends=$(dpkg-deb -f "$deb" Recommends | sed -e 's/([^)]*)//g' -e 's/,/ /g')
echo "Recommends: $recommends"
# shellcheck disable=SC2086 # one package name a word
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $recommends >"$scratch/apt-recommends.log"
in_root /opt/oxide/bin/oxcc doctor | grep -E '(lld|clangd)'
in_root bash -c 'set -e; cd /tmp/p && /opt/oxide/bin/oxcc new demo2 --template cmake >/dev/null &&
  cmake -S demo2 -B demo2/build -G Ninja -DCMAKE_PREFIX_PATH=/opt/oxide >/dev/null && cmake --build demo2/build >/dev/null &&
  OXIDE_DEVICE=cpu ./demo2/build/demo2'
echo "fresh-debian: PASS"
