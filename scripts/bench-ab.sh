#!/bin/bash
# A/B runs of InferLens alone on the remote-write bench, variants alternating round by round,
# as the "one head buffer per series" and earlier passes of docs/BENCHMARKS.md were measured.
#
# usage: scripts/bench-ab.sh BENCH_DIR DATASET ROUNDS 'VARIANT' ['VARIANT' ...]
#   BENCH_DIR  the remote-write benchmark harness (rw-bench.sh, its data sets; not part of this
#              repository, see docs/BENCHMARKS.md, "The harness")
#   DATASET    e.g. /tmp/rwbench-data/s100k-240
#   VARIANT    the receiver command with {PORT} and {STORE} placeholders, e.g.
#              'env MALLOC_ARENA_MAX=2 java -Xmx160m -jar api/target/inferlens.jar serve
#               --listen 127.0.0.1:{PORT} --data-dir {STORE} --eval-interval=0s
#               --web.enable-admin-api'
#              (the flag is needed: the flush and the post-run compaction call the admin API)
# Prints one line per run: CPU-s per 1M samples (ingest), peak RSS MiB, request p99 ms, dropped
# samples, settled disk B/sample, and the CPU-s of the JIT compiler threads when the last request
# was acknowledged. Full results go to $RESULTS (default /tmp/rwbench-results/ab.jsonl).
set -euo pipefail
BENCH=$(cd "$1" && pwd); DS=$2; ROUNDS=$3; shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
RESULTS=${RESULTS:-/tmp/rwbench-results/ab.jsonl}
mkdir -p "$(dirname "$RESULTS")"
WORK=$(mktemp -d /tmp/inferlens-ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# CPU-s per thread kind ("C2 CompilerThread0" and "...1" add up as "C# CompilerThre"). utime and
# stime are fields 14 and 15 of /proc/PID/task/TID/stat, counted after the ")" that ends the
# thread name, which may hold spaces. Compiler threads that already exited (the JVM stops idle
# ones) are not counted.
cat > "$WORK/threads.sh" <<'EOS'
for t in /proc/"$1"/task/*; do echo "$(cat "$t/comm") $(sed 's/.*) //' "$t/stat" | awk '{print $12+$13}')"; done |
  awk '{n=$0; sub(/ [0-9]+$/,"",n); gsub(/[0-9]+/,"#",n); a[n]+=$NF} END{for(k in a) print a[k]/100, k}'
EOS

for r in $(seq 1 "$ROUNDS"); do
  v=0
  for cmd in "$@"; do
    v=$((v + 1)); label="ab-$v-$r"
    port=$((20000 + RANDOM % 10000)); store="$WORK/store-$label"
    c=${cmd//\{PORT\}/$port}; c=${c//\{STORE\}/$store}
    bash -c "exec $c" > "$WORK/$label.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null && break; sleep 0.3; done
    (cd "$BENCH" && LABEL=$label RESULTS=$RESULTS SETTLE_MAX=60 \
      FLUSH_CMD="bash $WORK/threads.sh $pid > $WORK/$label.threads; curl -s -XPOST http://127.0.0.1:$port/api/v1/admin/flush" \
      POST_CMD="$HERE/bench-rx-post.sh $port $store" \
      bash rw-bench.sh "http://127.0.0.1:$port/api/v1/write" "$DS" "$pid" "$store" > "$WORK/$label.bench.log" 2>&1) || true
    kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    rm -rf "$store"
    jit=$(awk '/CompilerThre/{print $1}' "$WORK/$label.threads" 2>/dev/null | paste -sd+ | bc)
    grep "\"label\": \"$label\"" "$RESULTS" | tail -1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print("%s cpu1M=%s rss=%s p99=%s dropped=%s disk=%s jit=%s cmd=[%s]" % (sys.argv[1],
      d["cpu_s_per_1M_ingest"], d["peak_rss_mib"], d["req_latency_ms"]["p99"],
      d["samples_dropped"], d["store_bytes_per_sample"], sys.argv[2], sys.argv[3]))' \
      "$label" "${jit:-?}" "$cmd"
  done
done
