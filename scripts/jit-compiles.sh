#!/bin/bash
# One run of InferLens (the README's launcher, api/target/inferlens) on the remote-write bench,
# recorded with JFR's jdk.Compilation events at threshold 0, then the compiles and their summed
# durations (milliseconds, wall clock of the compiler threads) by compiler, OSR and storage module.
#
# usage: scripts/jit-compiles.sh BENCH_DIR DATASET TAG [extra JVM options...]
#   BENCH_DIR  the remote-write benchmark harness (docs/BENCHMARKS.md, "The harness")
#   DATASET    e.g. /tmp/rwbench-data/s2k-2880
# Prints: TAG, then kind=compiles/ms for C1, C2, "C2 osr" and "C2 storage"; the recording is
# kept as /tmp/jit-compiles-TAG.jfr.
set -euo pipefail
BENCH=$(cd "$1" && pwd); DS=$2; TAG=$3; shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/inferlens-jit.XXXXXX)
PORT=$((20000 + RANDOM % 10000)); STORE=$WORK/store
JFR=/tmp/jit-compiles-$TAG.jfr
cat > "$WORK/compiles.jfc" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.Compilation"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
</configuration>
XML
INFERLENS_JAVA_OPTS="$* -XX:StartFlightRecording=filename=$JFR,settings=$WORK/compiles.jfc" \
  "$ROOT/api/target/inferlens" serve --listen 127.0.0.1:$PORT --data-dir "$STORE" > "$WORK/rx.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/-/ready" > /dev/null && break; sleep 0.3; done
(cd "$BENCH" && LABEL=jit-$TAG RESULTS=${RESULTS:-/tmp/rwbench-results/jit.jsonl} SETTLE_MAX=30 \
  bash rw-bench.sh "http://127.0.0.1:$PORT/api/v1/write" "$DS" $PID "$STORE" > "$WORK/bench.log" 2>&1)
kill $PID; wait $PID 2>/dev/null || true  # JFR writes the recording at exit
jfr print --events jdk.Compilation "$JFR" | python3 -c '
import re, sys, collections
tot = collections.defaultdict(lambda: [0, 0.0])
unit = {"us": 0.001, "ms": 1, "s": 1000}
for e in sys.stdin.read().split("jdk.Compilation {")[1:]:
    d = re.search(r"duration = ([\d.]+) (us|ms|s)\b", e)
    ms = float(d.group(1)) * unit[d.group(2)] if d else 0
    c2 = "compileLevel = 4" in e
    keys = ["C2" if c2 else "C1"]
    if c2 and "isOsr = true" in e: keys.append("C2 osr")
    if c2 and "io.inferlens.storage" in e: keys.append("C2 storage")
    for k in keys: tot[k][0] += 1; tot[k][1] += ms
print(sys.argv[1], " ".join("%s=%d/%.0fms" % (k, n, ms) for k, (n, ms) in sorted(tot.items())))
' "$TAG"
