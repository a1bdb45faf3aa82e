#!/bin/bash
# Records what the real Prometheus 2.42 parser says about each expression of the PromQL parse
# corpus, as the golden file ParserGoldenTest (analysis) compares InferLens's parser with.
#
# usage: scripts/promql-golden.sh [CORPUS [GOLDEN]]
#   CORPUS  default analysis/src/test/resources/promql/parse-corpus.txt: one expression a line;
#           lines starting with ";;" and empty lines are skipped; U+23CE (⏎) stands for a line
#           break inside an expression, so multi-line queries and "#" comments fit on one line
#   GOLDEN  default analysis/src/test/resources/promql/parse-golden.tsv
#   PROMETHEUS  environment: the binary, default /usr/bin/prometheus (must be 2.42.x)
#
# Starts Prometheus on 127.0.0.1 with a temporary TSDB, asks GET /api/v1/format_query for every
# expression, and writes one line per expression: the corpus line, "ok" or "error", and the
# formatted query (expr.Pretty(0)) or the error message. Fields are separated by a tab; in them
# "\" is written "\\", a line break "\n" and a tab "\t". Prometheus is stopped on exit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${1:-$HERE/analysis/src/test/resources/promql/parse-corpus.txt}
GOLDEN=${2:-$HERE/analysis/src/test/resources/promql/parse-golden.tsv}
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}

version=$("$PROMETHEUS" --version 2>&1 | head -1)
case "$version" in
  *"version 2.42."*) ;;
  *) echo "need Prometheus 2.42, found: $version" >&2; exit 1 ;;
esac

WORK=$(mktemp -d /tmp/promql-golden.XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

cat > "$WORK/prometheus.yml" <<'EOF'
global:
  scrape_interval: 1h
EOF
port=$((30000 + RANDOM % 10000))
"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$port" > "$WORK/prometheus.log" 2>&1 &
pid=$!
ready=""
for _ in $(seq 1 100); do
  if curl -sf "http://127.0.0.1:$port/-/ready" > /dev/null; then ready=1; break; fi
  sleep 0.2
done
if [ -z "$ready" ]; then cat "$WORK/prometheus.log" >&2; echo "Prometheus did not start" >&2; exit 1; fi

# Escapes a field for the TSV: backslash, line break, tab.
esc() { jq -Rrs 'gsub("\\\\"; "\\\\") | gsub("\n"; "\\n") | gsub("\t"; "\\t")'; }

tmp="$WORK/golden.tsv"
: > "$tmp"
n=0
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in ""|";;"*) continue ;; esac
  query=${line//⏎/$'\n'}
  answer=$(curl -s -G "http://127.0.0.1:$port/api/v1/format_query" --data-urlencode "query=$query")
  status=$(jq -r .status <<< "$answer")
  if [ "$status" = success ]; then
    verdict=ok; text=$(jq -j .data <<< "$answer" | esc)
  elif [ "$(jq -r .errorType <<< "$answer")" = bad_data ]; then
    verdict=error; text=$(jq -j .error <<< "$answer" | esc)
  else
    echo "unexpected answer for $line: $answer" >&2; exit 1
  fi
  printf '%s\t%s\t%s\n' "$(printf '%s' "$line" | esc)" "$verdict" "$text" >> "$tmp"
  n=$((n + 1))
done < "$CORPUS"
mv "$tmp" "$GOLDEN"
echo "recorded $n expressions from $version into $GOLDEN" >&2
