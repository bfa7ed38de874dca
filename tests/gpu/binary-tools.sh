#!/usr/bin/env bash
# Issue 42 on the GPU machine: NVIDIA's binary tools and cuda-gdb on oxcc executables.
#
#   bash tests/gpu/binary-tools.sh build     # here, after build-suite.sh (which empties .gpu):
#                                            # vecadd and vecadd -G into .gpu/dbg, with this script
#   bash .gpu/dbg/binary-tools.sh            # there: cuobjdump, nvdisasm, cuda-gdb (needs a GPU)
#
# Each step prints what the tool gave; a reader checks them (cuobjdump lists the cubins, the SASS
# has LDG/STG, cuda-gdb prints `a` as {data_ = 0x..., size_ = 16777216} and its elements).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "${1:-}" = build ]; then
  root="$(cd "$here/../.." && pwd)"
  out="$root/.gpu/dbg"
  mkdir -p "$out"
  oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
  "$oxcc" build "$root/examples/vecadd.cpp" --arch=sm_90 --no-cache -o "$out/vecadd" &&
    "$oxcc" build "$root/examples/vecadd.cpp" -G --arch=sm_90 --no-cache -o "$out/vecadd_g" &&
    install -m 755 "${BASH_SOURCE[0]}" "$out/binary-tools.sh" && echo "binary-tools: built $out"
  exit
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cd "$(mktemp -d)"
echo "=== cuobjdump --list-elf"; cuobjdump --list-elf "$here/vecadd"
echo "=== cuobjdump --dump-sass (head)"; cuobjdump --dump-sass "$here/vecadd" | grep -E "Function|LDG|STG|EXIT" | head -8
echo "=== nvdisasm of the extracted cubin (head)"
cuobjdump -xelf all "$here/vecadd" >/dev/null && for c in *.cubin; do
  echo "$c"
  nvdisasm "$c" | grep -E "LDG|STG|EXIT" | head -4
done
echo "=== cuda-gdb -G: span parameters in the kernel's frame"
timeout 90 cuda-gdb -batch -ex 'set pagination off' -ex 'set cuda break_on_launch none' \
  -ex 'break vecadd.cpp:17' -ex run -ex 'up' -ex 'info args' -ex 'print a' -ex 'print a.size_' \
  -ex 'print a.data_[0]' -ex 'print *a.data_@4' -ex 'print c' -ex 'cuda thread (5,0,0)' -ex 'up' \
  -ex 'print idx' -ex 'print a.data_[5]' -ex 'delete' -ex 'kill' "$here/vecadd_g" 2>&1 |
  grep -v "^\[New Thread\|^\[Thread\|exited\]$\|libthread_db" | tail -24
