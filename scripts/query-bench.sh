#!/bin/bash
# The query benchmark of issue 18 (docs/BENCHMARKS.md, "Query benchmark (issue 18)"): InferLens's
# plain run command and Debian's Prometheus 2.42 side by side on loopback, the same data
# remote-written to both (scripts/QueryBenchLoad.java), then the same PromQL range queries timed
# on both in alternation (scripts/query-bench.py).
#
# usage: scripts/query-bench.sh [ROUNDS]        (default 5 rounds after one warm-up)
# Needs api/target/inferlens (mvn -q -DskipTests package), /usr/bin/prometheus
# (apt-get install -y prometheus), JDK 17, python3, curl.
# Environment: RESULTS (path without extension; default /tmp/qbench-results/qbench-<UTC time>,
# written as .txt and .json), DASHBOARD (default grafana/dashboards/live-overview.json; its
# built-in copy when absent), RX_PORT / PROM_PORT (default 19201 / 19090), KEEP=1 to keep the
# data directories, SETTLE_MAX (seconds, default 600).
set -euo pipefail
ROUNDS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RX_PORT=${RX_PORT:-19201}
PROM_PORT=${PROM_PORT:-19090}
SETTLE_MAX=${SETTLE_MAX:-600}
RESULTS=${RESULTS:-/tmp/qbench-results/qbench-$(date -u +%Y%m%dT%H%M%SZ)}
DASHBOARD=${DASHBOARD:-$ROOT/grafana/dashboards/live-overview.json}
mkdir -p "$(dirname "$RESULTS")"
[ -x "$ROOT/api/target/inferlens" ] || { echo "build the launcher first: mvn -q -DskipTests package" >&2; exit 2; }
[ -x /usr/bin/prometheus ] || { echo "needs /usr/bin/prometheus: apt-get install -y prometheus" >&2; exit 2; }

WORK=$(mktemp -d /tmp/qbench.XXXXXX)
RX_PID=; PROM_PID=
cleanup() {
  set +e  # a killed server's exit status must not stop the cleanup half-way
  for pid in $RX_PID $PROM_PID; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

for port in "$RX_PORT" "$PROM_PORT"; do
  if ss -ltn "sport = :$port" | grep -q LISTEN; then echo "port $port is taken (RX_PORT / PROM_PORT)" >&2; exit 2; fi
done

# Prometheus without scrape jobs (Debian's packaged config would scrape itself and add series).
printf 'global:\n  scrape_interval: 15s\n' > "$WORK/prometheus.yml"

"$ROOT/api/target/inferlens" serve --listen "127.0.0.1:$RX_PORT" --data-dir "$WORK/inferlens" \
  --web.enable-admin-api > "$WORK/inferlens.log" 2>&1 &
RX_PID=$!
/usr/bin/prometheus --config.file="$WORK/prometheus.yml" --web.enable-remote-write-receiver \
  --storage.tsdb.path "$WORK/prometheus" --web.listen-address "127.0.0.1:$PROM_PORT" \
  --storage.tsdb.retention.time=60d > "$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
for port in "$RX_PORT" "$PROM_PORT"; do
  for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null && break; sleep 0.3; done
  curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null || { echo "port $port not ready" >&2; exit 1; }
done
for pid in $RX_PID $PROM_PID; do kill -0 "$pid" || { echo "pid $pid exited; see $WORK/*.log" >&2; exit 1; }; done
echo "InferLens pid $RX_PID on :$RX_PORT, Prometheus pid $PROM_PID on :$PROM_PORT, data in $WORK"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
t0=$(date +%s)
java "$ROOT/scripts/QueryBenchLoad.java" --manifest "$WORK/manifest.json" \
  "http://127.0.0.1:$RX_PORT/api/v1/write" "http://127.0.0.1:$PROM_PORT/api/v1/write"
t1=$(date +%s)
echo "loaded in $((t1 - t0)) s; CPU-s so far: InferLens $(( $(cpu_ticks $RX_PID) / 100 )), Prometheus $(( $(cpu_ticks $PROM_PID) / 100 ))"

# Settled: the head flushed and the closed windows finalized with their rollups (InferLens:
# the admin flush, then idle), the head compacted into blocks (Prometheus: idle). Idle = under
# 5 % of a core over 10 s, three times in a row.
curl -sf -XPOST "http://127.0.0.1:$RX_PORT/api/v1/admin/flush" > /dev/null
for pid in $RX_PID $PROM_PID; do
  quiet=0; start=$(date +%s)
  while [ "$quiet" -lt 3 ] && [ $(( $(date +%s) - start )) -lt "$SETTLE_MAX" ]; do
    a=$(cpu_ticks "$pid"); sleep 10; b=$(cpu_ticks "$pid")
    if [ $((b - a)) -lt 50 ]; then quiet=$((quiet + 1)); else quiet=0; fi
  done
  echo "pid $pid settled after $(( $(date +%s) - start )) s (quiet=$quiet)"
done
rx_disk=$(du -sm "$WORK/inferlens" | cut -f1); prom_disk=$(du -sm "$WORK/prometheus" | cut -f1)
blocks=$(find "$WORK/prometheus" -maxdepth 1 -type d -name '01*' | wc -l)
info="commit $(git -C "$ROOT" rev-parse --short HEAD); load $((t1 - t0)) s; disk MiB InferLens $rx_disk, Prometheus $prom_disk ($blocks blocks); CPU-s before queries InferLens $(( $(cpu_ticks $RX_PID) / 100 )), Prometheus $(( $(cpu_ticks $PROM_PID) / 100 )); command: scripts/query-bench.sh $ROUNDS"

python3 "$ROOT/scripts/query-bench.py" --manifest "$WORK/manifest.json" \
  --inferlens "127.0.0.1:$RX_PORT" --inferlens-pid "$RX_PID" \
  --prometheus "127.0.0.1:$PROM_PORT" --prometheus-pid "$PROM_PID" \
  --rounds "$ROUNDS" --dashboard "$DASHBOARD" --results "$RESULTS" --info "$info"
echo "results: $RESULTS.txt, $RESULTS.json"
