#!/usr/bin/env bash
# A ptxas that assembles at -O0 whatever level oxcc asks for: OXIDE_PTXAS=tests/differential/ptxas-O0.sh
# builds the same PTX into an unoptimised cubin, to tell a ptxas miscompile from an Oxide one
# (issue #20: ptxas has known miscompiles). The real ptxas: $REAL_PTXAS, else the toolkit's.
real="${REAL_PTXAS:-${OXIDE_CUDA_PATH:-/usr/local/cuda}/bin/ptxas}"
args=()
for a in "$@"; do
  case "$a" in
    -O[0-9]) args+=("-O0") ;;
    *) args+=("$a") ;;
  esac
done
exec "$real" "${args[@]}"
