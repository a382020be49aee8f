#!/usr/bin/env bash
# The e2e CPU rows of odm, the Rust driver, Mongoose and the node driver,
# against one server: the client's CPU per round trip of each (save() of a
# scalar, a push and a whole-array rewrite, a load, change and save, find by
# id, a bulk save and a find of many), then one table (BENCHMARKS.md,
# "Client CPU per round trip").
#
#   benches/mongoose/e2e.sh [S] [M] [L]     (default: S M L)
#
# Each side pairs its ORM with its driver in one process (e2e.mjs; the
# `CPU` rows of `cargo bench --bench e2e`), alternating in blocks; the two
# processes take turns ODM_E2E_REPEAT times (default 3), each first every
# other time, and the table gives the medians over the repeats (the ratios
# are the medians of each repeat's ratio). ODM_E2E_RUNTIME picks the Rust
# rows' runtime: multi (the default), current or both.
#
# Uses MONGODB_URI if set; else starts the local SecantusDB server from the
# virtual environment odm-testing installs (under $ODM_SECANTUS_HOME, or
# .secantus/ at the top of the repository; installed here if missing) and
# stops it at the end. Needs Node.js >= 20 and npm (installs the pinned
# Mongoose on first use). ODM_CPU_ROUNDS, ODM_CPU_OPS, ODM_CPU_DOCS and
# ODM_BENCH_QUICK apply to both sides. The Rust bench is built (release)
# before the first run, so no build falls in a measurement.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
shapes=("$@")
[ "$#" -gt 0 ] || shapes=(S M L)
runtime="${ODM_E2E_RUNTIME:-multi}"
case "$runtime" in
  multi | current) runtimes=("$runtime") ;;
  both) runtimes=(multi current) ;;
  *) echo "ODM_E2E_RUNTIME=$runtime: multi, current or both" >&2; exit 2 ;;
esac
repeat="${ODM_E2E_REPEAT:-3}"
# ODM_E2E_KINDS: the round trips to run on both sides (space-separated
# names, e.g. "load_save save_scalar"); default all.
kinds="${ODM_E2E_KINDS:-}"
# ODM_E2E_OUT: a directory that keeps each run's output (node.N, rust.N).
out="${ODM_E2E_OUT:-}"
keep="$out"
[ -n "$out" ] || out="$(mktemp -d)"
mkdir -p "$out"
server=""
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$out"
}
trap cleanup EXIT

if [ -z "${MONGODB_URI:-}" ]; then
  home="${ODM_SECANTUS_HOME:-$repo/.secantus}"
  if [ ! -x "$home/venv/bin/secantusd-py" ]; then
    python3 -m venv "$home/venv" >&2
    "$home/venv/bin/python" -m pip install --quiet --disable-pip-version-check 'secantusdb==0.7.0b3' >&2
  fi
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "$home/venv/bin/secantusd-py" --host 127.0.0.1 --port "$port" --storage-path :memory: \
    --enable-test-commands >"$out/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  export MONGODB_URI="mongodb://127.0.0.1:$port/?directConnection=true&retryWrites=false"
fi

(cd "$here" && { [ -d node_modules ] || npm ci --no-audit --no-fund >&2; })
(cd "$repo" && cargo bench --bench e2e --no-run >&2)

node_side() {
  (cd "$here" && ODM_CPU_KINDS="$kinds" node e2e.mjs "${shapes[@]}") >"$out/node.$1"
  grep -v '^NODE' "$out/node.$1" >&2
}
rust_side() {
  # shellcheck disable=SC2086 # the kinds are words
  (cd "$repo" && cargo bench --bench e2e -- CPU "${shapes[@]}" "${runtimes[@]}" $kinds 2>/dev/null) >"$out/rust.$1"
  grep -v '^E2E' "$out/rust.$1" >&2
}
for r in $(seq 1 "$repeat"); do
  echo "repeat $r of $repeat" >&2
  if [ $((r % 2)) -eq 1 ]; then node_side "$r"; rust_side "$r"; else rust_side "$r"; node_side "$r"; fi
done

echo
echo "Client CPU per round trip, us, medians of $repeat runs of each side"
echo
echo "| runtime | shape | round trip | odm | Rust driver | odm / driver | Mongoose | node driver | Mongoose / node | Mongoose / odm |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
cat "$out"/node.* "$out"/rust.* | awk '
  function median(key,    n, i, j, t, a) {
    n = split(vals[key], a, " ")
    if (n == 0) return "nan"
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function add(key, v) { vals[key] = vals[key] (key in vals ? " " : "") v }
  $1 == "NODE" { add($2 " " $3 " " $4, $5); next }
  $1 == "E2E" && $2 == "CPU" && $6 != "ratio" {
    add($3 " " $4 " " $5 " " $6, $7)
    k = $3 " " $4 " " $5
    if (!(k in seen)) { seen[k] = 1; order[n++] = k }
    next
  }
  $1 == "E2E" && $2 == "CPU" && $6 == "ratio" { add($3 " " $4 " " $5 " ratio", $7) }
  END {
    # Mongoose / node: the median of the ratio of each run (the runs are in
    # the same order in both lists).
    for (i = 0; i < n; i++) {
      k = order[i]; split(k, p, " "); sk = p[2] " " p[3]
      o = median(k " odm_ns"); d = median(k " driver_ns"); r = median(k " ratio")
      m = median(sk " mongoose_ns"); nd = median(sk " node_ns")
      nm = split(vals[sk " mongoose_ns"], am, " "); split(vals[sk " node_ns"], an, " ")
      for (j = 1; j <= nm; j++) if (an[j] > 0) add(sk " mn", am[j] / an[j])
      mr = median(sk " mn"); delete vals[sk " mn"]
      printf "| %s | %s | %s | %.1f | %.1f | %.3f | %.1f | %.1f | %.2f | %.1fx |\n", p[1], p[2], p[3], o / 1e3, d / 1e3, r, m / 1e3, nd / 1e3, mr, m / o
      printf "COMPARE_E2E %s %s %s odm_driver %.3f mongoose_node %.3f mongoose_odm %.2f\n", p[1], p[2], p[3], r, mr, m / o > "/dev/stderr"
    }
  }'
