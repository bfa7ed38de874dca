#!/usr/bin/env bash
# Puts cuobjdump and nvdisasm on a machine whose CUDA toolkit lacks them (the build machine's
# CUDA 13 has ptxas but no binary tools), so SASS can be read without a GPU: Debian trixie's
# non-free nvidia-cuda-toolkit (CUDA 12.4) is downloaded, not installed, and its two tools are
# unpacked into a cache folder. Its cuobjdump reads CUDA 13's sm_90 cubins (Debian 12's CUDA 11.8
# does not). Prints the folder; nothing outside it changes.
#
#   tools="$(bash scripts/sass-tools.sh)"
#   ptxas -arch=sm_90 -O3 kernel.ptx -o kernel.cubin && "$tools/cuobjdump" -sass kernel.cubin
set -euo pipefail
dest="${OXIDE_SASS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/oxide/sass-tools}"
if [ -x "$dest/cuobjdump" ] && [ -x "$dest/nvdisasm" ]; then
  echo "$dest"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists" "$work/cache" "$dest"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie non-free" \
  >"$work/sources.list"
apt_options=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
apt-get "${apt_options[@]}" update >&2
(cd "$work" && apt-get "${apt_options[@]}" download nvidia-cuda-toolkit >&2)
dpkg-deb -x "$work"/nvidia-cuda-toolkit_*.deb "$work/root"
install -m 755 "$work/root/usr/bin/cuobjdump" "$work/root/usr/bin/nvdisasm" "$dest/"
echo "$dest"
