#!/bin/bash
# POST_CMD for InferLens: ingested count, then a full compaction via the admin endpoint,
# sizes after it (keys named like vm-post.sh so summarize.py shows them as "compacted").
# The receiver must run with --web.enable-admin-api.
# usage: rx-post.sh PORT STORE_DIR
set -euo pipefail
PORT=$1; STORE=$2
met() { curl -s "http://127.0.0.1:$PORT/metrics"; }
val() { met | awk -v k="$1" '$1 == k {printf "%d\n", $2}'; }
echo "rows_inserted=$(val inferlens_samples_ingested_total)"
echo "sst_bytes_settled=$(val inferlens_rocksdb_live_sst_bytes)"
echo "memtable_bytes_settled=$(val inferlens_rocksdb_memtable_bytes)"
t0=$(date +%s.%N)
curl -s -XPOST "http://127.0.0.1:$PORT/api/v1/admin/compact" > "$STORE.compact.json"
t1=$(date +%s.%N)
sleep 3
for w in before after; do
  jq -r --arg w $w '.data[$w].bytes_by_kind // {} | to_entries[] | "kind_\(.key)_\($w)=\(.value)"' "$STORE.compact.json"
done
echo "force_merge_s=$(echo "$t1 - $t0" | bc)"
total=$(du -sb "$STORE" | cut -f1)
data=$(val inferlens_rocksdb_live_sst_bytes)
echo "merged_store_bytes=$total"
echo "merged_data_bytes=$data"
echo "merged_indexdb_bytes=$((total - data))"
echo "estimate_keys_after_merge=$(val inferlens_rocksdb_estimate_keys)"
