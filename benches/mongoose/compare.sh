#!/usr/bin/env bash
# Mongoose beside odm, in one run on one machine: Mongoose's load and save()
# CPU (shapes.mjs), then odm's `shapes` bench rows of the same shapes, then
# the ratios the performance targets are stated in (BENCHMARKS.md).
#
#   benches/mongoose/compare.sh [S] [M] [L]     (default: S)
#
# Needs Node.js >= 20 and npm (installs the pinned Mongoose on first use).
# ODM_BENCH_RUNS / ODM_BENCH_SECS apply to both sides.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shapes=("${@:-S}")
[ "$#" -gt 0 ] || shapes=(S)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

(cd "$here" && { [ -d node_modules ] || npm ci --no-audit --no-fund >&2; } &&
  node shapes.mjs "${shapes[@]}") | tee "$out/mongoose"
for shape in "${shapes[@]}"; do
  (cd "$here/../.." && cargo bench --bench shapes -- "$shape" 2>/dev/null) |
    grep -E "^$shape (load|save_build_scalar|cycle) " | tee -a "$out/odm"
done

echo
echo "| shape | Mongoose load (decode + hydrate) | odm load | x | Mongoose save() CPU | odm save_build scalar | x | Mongoose cycle | odm cycle | x |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for shape in "${shapes[@]}"; do
  m_load=$(awk -v s="$shape" '$2 == s && $3 == "load" { print $4 }' "$out/mongoose")
  m_save=$(awk -v s="$shape" '$2 == s && $3 == "save" { print $4 }' "$out/mongoose")
  o_load=$(awk -v s="$shape" '$1 == s && $2 == "load" { print $3 }' "$out/odm")
  o_save=$(awk -v s="$shape" '$1 == s && $2 == "save_build_scalar" { print $3 }' "$out/odm")
  m_cycle=$(awk -v s="$shape" '$2 == s && $3 == "cycle" { print $4 }' "$out/mongoose")
  o_cycle=$(awk -v s="$shape" '$1 == s && $2 == "cycle" { print $3 }' "$out/odm")
  awk -v s="$shape" -v ml="$m_load" -v ol="$o_load" -v ms="$m_save" -v os="$o_save" \
    -v mc="$m_cycle" -v oc="$o_cycle" 'BEGIN {
      printf "| %s | %d | %d | %.1fx | %d | %d | %.1fx | %d | %d | %.1fx |\n", s, ml, ol, ml / ol, ms, os, ms / os, mc, oc, mc / oc
      printf "COMPARE %s load %.1fx save %.1fx cycle %.1fx\n", s, ml / ol, ms / os, mc / oc
    }'
done
