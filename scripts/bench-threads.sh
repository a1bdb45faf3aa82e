#!/bin/bash
# One run of InferLens on the remote-write bench with the README's command (the launcher api/target/inferlens), and the
# CPU-s each kind of thread used between "ready" and the last acknowledged request (from
# /proc/PID/task/*/stat; thread names with digits folded, "C1/C2 CompilerThread0" -> "C# ...").
#
# usage: scripts/bench-threads.sh BENCH_DIR DATASET TAG [extra JVM options...]
#   BENCH_DIR  the remote-write benchmark harness (docs/BENCHMARKS.md, "The harness")
#   DATASET    e.g. /tmp/rwbench-data/s2k-2880
# Prints: TAG, CPU-s per 1M samples (ingest), the sender's CPU-s, samples/s, then kind=CPU-s for
# each kind of thread above 0.15 CPU-s. Results go to $RESULTS (default /tmp/rwbench-results/threads.jsonl).
set -euo pipefail
BENCH=$(cd "$1" && pwd); DS=$2; TAG=$3; shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAR=${JAR:-$ROOT/api/target/inferlens.jar}
RESULTS=${RESULTS:-/tmp/rwbench-results/threads.jsonl}
mkdir -p "$(dirname "$RESULTS")"
WORK=$(mktemp -d /tmp/inferlens-threads.XXXXXX)
PORT=$((20000 + RANDOM % 10000)); STORE=$WORK/store
INFERLENS_JAR=$JAR INFERLENS_JAVA_OPTS="$*" "$ROOT/api/target/inferlens" serve --listen 127.0.0.1:$PORT \
  --data-dir "$STORE" --eval-interval=0s > "$WORK/rx.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/-/ready" > /dev/null && break; sleep 0.3; done
cat > "$WORK/snap.sh" <<'EOS'
for t in /proc/"$1"/task/*; do echo "$(cat "$t/comm")|$(sed 's/.*) //' "$t/stat" | awk '{print $12+$13}')"; done |
  awk -F'|' '{n=$1; gsub(/[0-9]+/,"#",n); a[n]+=$2} END{for(k in a) print k"|"a[k]}' | sort
EOS
bash "$WORK/snap.sh" $PID > "$WORK/t0"
(cd "$BENCH" && LABEL=threads-$TAG RESULTS=$RESULTS SETTLE_MAX=15 \
  FLUSH_CMD="bash $WORK/snap.sh $PID > $WORK/t1" \
  bash rw-bench.sh "http://127.0.0.1:$PORT/api/v1/write" "$DS" $PID "$STORE" > "$WORK/bench.log" 2>&1)
line=$(tail -1 "$RESULTS" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["cpu_s_per_1M_ingest"], d["sender_cpu_s"], d["samples_per_s"])')
# threads that did not exist at "ready" count from 0
echo "$TAG $line $(join -t'|' -a 2 -e 0 -o 0,1.2,2.2 "$WORK/t0" "$WORK/t1" |
  awk -F'|' '{d=($3-$2)/100; if (d>0.15) printf "%s=%.2f ", $1, d}')"
