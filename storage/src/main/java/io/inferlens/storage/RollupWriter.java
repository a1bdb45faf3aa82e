package io.inferlens.storage;

import io.inferlens.storage.chunk.ChunkCodec;
import java.util.HashMap;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Writes the rollups of finalized windows into a write batch: each window's 5-minute block
 * (FORMAT.md "Rollup block", one per series and 2-hour window) and its 1-hour intervals merged
 * into the series' UTC day block. Used by window finalization and by a head flush that holds a
 * whole closed window ({@link HeadFlusher}).
 *
 * <p>Consecutive windows of one series and day are merged in memory and their day block is
 * decoded and encoded once, when the series or the day changes or at {@link #finish}: a pass
 * over four windows of a series encoded its day block four times before (on the s2k-2880 bench
 * the 1-hour work was a quarter of finalization).
 *
 * <p>Thread safety: not thread safe; one instance per batch writer, used under the flush lock
 * (which orders every writer of day blocks, so a stored day block read here is the newest one
 * outside the current batch).
 */
final class RollupWriter {

  private static final long DAY_MS = 86_400_000L;

  private final RocksHandles rocks;
  private final Map<ColumnFamilyHandle, Long> rewrittenRecords;
  /** Day blocks put in the current batch, not yet readable from RocksDB. */
  private final Map<TimeSeriesStore.WindowKey, byte[]> inBatch = new HashMap<>();
  private long pendingSeries;
  private long pendingDay;
  /** The merged 1-hour block of (pendingSeries, pendingDay), or null. */
  private RollupBlock pending;

  /**
   * @param rocks the store's handles
   * @param rewrittenRecords superseded records per partition, counted for the compaction policy
   *     of {@link WindowFinalizer}; thread safe
   */
  RollupWriter(RocksHandles rocks, Map<ColumnFamilyHandle, Long> rewrittenRecords) {
    this.rocks = rocks;
    this.rewrittenRecords = rewrittenRecords;
  }

  /**
   * Puts the 5-minute block of one window and merges its 1-hour intervals into the pending day
   * block, which is put by a later call for another series or day, or by {@link #finish}.
   *
   * @param ts the window's sample timestamps in milliseconds, strictly ascending, {@code [0, n)}
   * @param bits raw value bits, {@code [0, n)}
   * @param n samples, at least 1
   * @throws RocksDBException if reading the stored day block fails
   */
  void add(WriteBatch batch, long seriesId, long windowStartMs, long[] ts, long[] bits, int n,
      ChunkCodec codec) throws RocksDBException {
    RollupBlock r5 = RollupBlock.compute(ts, bits, n, Resolution.FIVE_MINUTES.intervalMs());
    batch.put(rocks.partitionForWrite(PartitionKind.ROLLUP_5M, windowStartMs),
        Keys.dataKey(seriesId, windowStartMs), r5.encode(codec));
    RollupBlock r1 = RollupBlock.compute(ts, bits, n, Resolution.ONE_HOUR.intervalMs());
    long day = Math.floorDiv(windowStartMs, DAY_MS) * DAY_MS;
    if (pending != null && (pendingSeries != seriesId || pendingDay != day)) {
      finish(batch, codec);
    }
    if (pending != null) {
      pending = pending.mergedWith(r1);
      return;
    }
    byte[] old = inBatch.get(new TimeSeriesStore.WindowKey(seriesId, day));
    if (old == null) {
      ColumnFamilyHandle hourCf = rocks.partitionForWrite(PartitionKind.ROLLUP_1H, day);
      old = rocks.db.get(hourCf, Keys.dataKey(seriesId, day));
      if (old != null) {
        // The stored day block is superseded (one put earlier in this batch is not: a memtable
        // flush keeps only its newest version).
        rewrittenRecords.merge(hourCf, 1L, Long::sum);
      }
    }
    pendingSeries = seriesId;
    pendingDay = day;
    pending = old == null ? r1 : RollupBlock.decode(old).mergedWith(r1);
  }

  /** Puts the pending day block, if any, into the batch. */
  void finish(WriteBatch batch, ChunkCodec codec) throws RocksDBException {
    if (pending == null) {
      return;
    }
    byte[] enc = pending.encode(codec);
    pending = null;
    inBatch.put(new TimeSeriesStore.WindowKey(pendingSeries, pendingDay), enc);
    batch.put(rocks.partitionForWrite(PartitionKind.ROLLUP_1H, pendingDay),
        Keys.dataKey(pendingSeries, pendingDay), enc);
  }

  /** Forgets the batch's day blocks once it is written or abandoned (they are readable or gone). */
  void batchDone() {
    pending = null;
    inBatch.clear();
  }
}
