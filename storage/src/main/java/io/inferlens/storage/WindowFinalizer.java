package io.inferlens.storage;

import io.inferlens.storage.head.SampleRun;
import io.inferlens.storage.chunk.ChunkCodec;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Window finalization and the compaction policy ({@code compact.go} and VictoriaMetrics' part
 * merge in spirit): merges each closed window's chunks into one, writes its 5-minute rollup
 * block and merges its intervals into the day's 1-hour block, then compacts partitions whose
 * superseded records reach half their keys.
 *
 * <p>Thread safety: one pass at a time under the finalize lock; each batch also holds the flush
 * lock and the partition read lock, in that order ({@link StoreLocks}).
 */
final class WindowFinalizer {

  private final StoreCore core;
  private final Clock clock;
  private final RocksHandles rocks;
  private final ReentrantReadWriteLock lifecycle;
  private final StoreLocks.RankedLock flushLock;
  private final StoreLocks.RankedLock finalizeLock;
  private final WindowMarks unfinalized;
  private static final System.Logger LOG = System.getLogger(TimeSeriesStore.class.getName());

  /** Windows finalized per RocksDB batch, so a batch stays a few MiB. */
  private static final int FINALIZE_BATCH_WINDOWS = 2_000;

  WindowFinalizer(StoreCore core) {
    this.core = core;
    this.clock = core.clock;
    this.rocks = core.rocks;
    this.lifecycle = core.locks.lifecycle;
    this.flushLock = core.locks.flush;
    this.finalizeLock = core.locks.finalize;
    this.unfinalized = core.unfinalized;
    this.rewrittenRecords = core.rewrittenRecords;
    this.rollups = new RollupWriter(rocks, rewrittenRecords);
  }

  /**
   * Finalizes windows whose chunks changed since they were last finalized: merges each window's
   * chunks into one (dropping any sample a crash replay wrote twice) and writes its 5-minute and
   * 1-hour rollups. Only closed windows (ended {@link #CLOSE_GRACE_MS} before the newest sample
   * and before now) of which the head holds no sample, unless {@code all}: a window finalized
   * while the head still held some of its samples would be merged and finalized again after the
   * next head flush (with historical data ingested faster than real time, most windows were).
   *
   * @param all finalize open windows too (tests, benchmarks, {@link TimeSeriesStore#flush()})
   * @param byClock close windows by the clock alone, not by the newest sample: the store has been
   *     idle ({@link TimeSeriesStore#IDLE_FLUSH_MS}), so the last windows of a burst, which no
   *     newer sample will close, are finalized once their end plus the grace has passed
   * @return how many windows were finalized
   * @throws StorageException if RocksDB fails or the store is closed; windows not yet written
   *     stay pending
   */
  int finalizeWindows(boolean all, boolean byClock) throws StorageException {
    lifecycle.readLock().lock();
    finalizeLock.lock();
    try {
      core.ensureOpen();
      long now = clock.millis();
      long closedBefore = Math.min(
          (byClock ? now : Math.min(core.maxSeenMs, now)) - TimeSeriesStore.CLOSE_GRACE_MS,
          Math.min(core.headMinTs, core.flushingMinTs));
      List<TimeSeriesStore.WindowKey> due =
          new ArrayList<>(unfinalized.upTo(all ? Long.MAX_VALUE
              : StoreCore.saturatedSubtract(closedBefore, TimeSeriesStore.WINDOW_MS)));
      // By series, then window start: a series' windows of one day come in a row, so its day
      // block is merged in memory and encoded once (RollupWriter).
      due.sort(java.util.Comparator.comparingLong(TimeSeriesStore.WindowKey::seriesId)
          .thenComparingLong(TimeSeriesStore.WindowKey::windowStartMs));
      ChunkCodec codec = new ChunkCodec();
      for (int from = 0; from < due.size(); from += FINALIZE_BATCH_WINDOWS) {
        List<TimeSeriesStore.WindowKey> part =
            due.subList(from, Math.min(due.size(), from + FINALIZE_BATCH_WINDOWS));
        // Cleared before reading: a flush that adds a chunk meanwhile marks the window again.
        for (TimeSeriesStore.WindowKey w : part) {
          unfinalized.remove(w.seriesId(), w.windowStartMs());
        }
        try {
          finalizeBatch(part, codec);
        } catch (RocksDBException | RuntimeException e) {
          for (TimeSeriesStore.WindowKey w : part) {
            unfinalized.add(w.seriesId(), w.windowStartMs());
          }
          throw new StorageException("finalizing " + part.size() + " chunk windows failed: "
              + e.getMessage(), e);
        }
      }
      compactRewrittenPartitions(byClock);
      return due.size();
    } finally {
      finalizeLock.unlock();
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Records superseded by finalization since the last compaction, per partition: chunk fragments
   * merged into one, and 1-hour day blocks replaced by their merge with a newer window. Deleted
   * or overwritten bytes stay in SST files until a compaction: on the 100,000-series bench (12
   * fragments a window) the settled store was 2.7 times its compacted size, and its 1-hour
   * partition, written once per window, settled at 7.7 MB against 3.1 MB compacted when RocksDB
   * happened not to compact it. A partition is compacted after the pass once its superseded
   * records reach half its estimated keys (RocksDB's {@code rocksdb.estimate-num-keys}), and at
   * least {@link #COMPACT_AFTER_REWRITES}: then about a third or more of its bytes are garbage,
   * so the extra writing stays within a few times the data written, for 2,000 series as for
   * 100,000 (a fixed 100,000 never compacted the s2k-2880 bench's 12,000 rewritten chunks, whose
   * settled store stayed 19 % over its compacted size). A 1-hour partition grows by a day block
   * per series a day while every window supersedes one, so it is compacted about every
   * {@code days/2} passes: about two days' worth of 1-hour blocks rewritten per pass.
   */
  private final Map<ColumnFamilyHandle, Long> rewrittenRecords;

  /** Writes the rollups of each batch; used under the flush lock. */
  private final RollupWriter rollups;

  /** Fewest rewritten chunks that make a partition worth compacting after a finalization pass. */
  private static final long COMPACT_AFTER_REWRITES = 1_000;

  /**
   * @param idle true when no append came for {@link TimeSeriesStore#IDLE_FLUSH_MS}: then every
   *     partition with superseded records is compacted, whatever their share. After a burst,
   *     the superseded fragments in L0 otherwise stay until RocksDB compacts on its own (the
   *     settled s2k-2880 store was 1.62 B/sample against 1.53 compacted); with no ingest to
   *     compete with, one compaction of the partitions just rewritten is cheap.
   */
  private void compactRewrittenPartitions(boolean idle) {
    rocks.partitionLock.readLock().lock();
    try (CompactRangeOptions co = new CompactRangeOptions()
        .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
      java.util.Set<ColumnFamilyHandle> live = new java.util.HashSet<>(rocks.allPartitions());
      var it = rewrittenRecords.entrySet().iterator();
      while (it.hasNext()) {
        var e = it.next();
        if (!live.contains(e.getKey())) {
          it.remove(); // dropped by retention
        } else if (idle && e.getValue() > 0 || e.getValue() >= COMPACT_AFTER_REWRITES
            && e.getValue() >= rocks.db.getLongProperty(e.getKey(), "rocksdb.estimate-num-keys")
                / 2) {
          rocks.db.compactRange(e.getKey(), null, null, co);
          it.remove();
        }
      }
    } catch (RocksDBException e) {
      LOG.log(System.Logger.Level.WARNING, "compacting finalized partitions failed; RocksDB"
          + " will reclaim the space in later compactions", e);
    } finally {
      rocks.partitionLock.readLock().unlock();
    }
  }

  private void finalizeBatch(List<TimeSeriesStore.WindowKey> windows, ChunkCodec codec)
      throws RocksDBException {
    // Lock order as in flushHead: flushLock, then the partition read lock (a queued retention
    // drop would otherwise block one of two threads holding the other lock).
    flushLock.lock();
    rocks.partitionLock.readLock().lock();
    // One iterator per partition for the whole batch (windows come sorted by start). Created
    // after the batch's marks were cleared, so it sees every chunk whose mark was cleared.
    Map<ColumnFamilyHandle, RocksIterator> iterators = new HashMap<>();
    List<TimeSeriesStore.WindowKey> marks = new ArrayList<>();
    try (WriteBatch batch = new WriteBatch()) {
      SampleRun run = new SampleRun(1024);
      List<byte[]> keys = new ArrayList<>();
      for (TimeSeriesStore.WindowKey w : windows) {
        long ws = w.windowStartMs();
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, ws);
        if (cf == null) {
          continue; // dropped by retention meanwhile
        }
        run.clear();
        keys.clear();
        RocksIterator it = iterators.computeIfAbsent(cf, rocks.db::newIterator);
        int chunks = ChunkReads.read(
            it, w.seriesId(), ws, ws + TimeSeriesStore.WINDOW_MS - 1, run, false, keys);
        marks.add(w);
        if (chunks == 0) {
          continue;
        }
        int before = run.size();
        run.sortAndDedupe();
        if (chunks > 1 || run.size() != before) {
          for (byte[] k : keys) {
            batch.delete(cf, k);
          }
          rewrittenRecords.merge(cf, (long) keys.size(), Long::sum);
          long[] ts = run.timestampsArray();
          long[] bits = run.valuesArray();
          for (int from = 0; from < run.size(); from += ChunkCodec.MAX_SAMPLES) {
            int to = Math.min(run.size(), from + ChunkCodec.MAX_SAMPLES);
            long[] t = java.util.Arrays.copyOfRange(ts, from, to);
            long[] b = java.util.Arrays.copyOfRange(bits, from, to);
            // A put after a delete of the same key in one batch wins: the merged chunk stays.
            batch.put(cf, Keys.dataKey(w.seriesId(), t[0]), codec.encode(t, b, to - from));
          }
        }
        rollups.add(batch, w.seriesId(), ws, run.timestampsArray(), run.valuesArray(), run.size(),
            codec);
      }
      rollups.finish(batch, codec);
      // A head flush writes chunks and their marks under flushLock, which this batch holds: a
      // mark a flush put back since the pass cleared it is kept.
      for (TimeSeriesStore.WindowKey w : marks) {
        if (!unfinalized.contains(w.seriesId(), w.windowStartMs())) {
          ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, w.windowStartMs());
          if (cf != null) {
            batch.delete(cf, Keys.unfinalizedKey(w.seriesId(), w.windowStartMs()));
          }
        }
      }
      rocks.db.write(rocks.writeOptions, batch);
      core.chunkEpoch++; // merged chunks replaced the ones duplicate checks may have decoded
    } finally {
      for (RocksIterator it : iterators.values()) {
        it.close();
      }
      rollups.batchDone();
      rocks.partitionLock.readLock().unlock();
      flushLock.unlock();
    }
  }
}
