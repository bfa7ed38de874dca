#!/usr/bin/env bash
# PTX-only builds for compute_80 and compute_86 of every example and language program (those
# that need sm_90 excepted), into .gpu/jit with a run.sh: on an sm_90 GPU the runtime
# JIT-compiles compute_86's PTX, whose module came from sm_80's shared device front end
# (docs/architecture.md, section 6). Run after build-suite.sh (which empties .gpu); then, on the
# GPU machine, `bash .gpu/jit/run.sh` (each program must print PASS).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
out="$root/.gpu/jit"
rm -rf "$out"
mkdir -p "$out"
for src in "$root"/examples/*.cpp "$root"/tests/lang/*.cpp; do
  name="$(basename "$src" .cpp)"
  case "$name" in cluster_center | wgmma_gemm) continue ;; esac # sm_90 only
  "$oxcc" build -v --arch=compute_80,compute_86 "$src" -o "$out/$name" >"$out/$name.log" 2>&1
  grep -q "sm_86 shares the device front end of sm_80" "$out/$name.log" && echo "$name: shared" ||
    echo "$name: own front end"
  strip "$out/$name" # the bundle travels: host symbols are not needed
  rm "$out/$name.log"
done
cat >"$out/run.sh" <<'EOT'
#!/usr/bin/env bash
# Runs every PTX-only program on the GPU; each must print PASS.
cd "$(dirname "$0")"
pass=0 fail=0
for x in *; do
  [ "$x" = run.sh ] && continue
  if timeout 120 "./$x" >"/tmp/jit-$x.out" 2>&1 && grep -q PASS "/tmp/jit-$x.out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "jit FAIL: $x"; tail -3 "/tmp/jit-$x.out"
  fi
done
echo "jit (compute_86 PTX from the shared front end, JIT on the GPU): $pass PASS, $fail FAIL"
[ "$fail" = 0 ]
EOT
chmod +x "$out/run.sh"
