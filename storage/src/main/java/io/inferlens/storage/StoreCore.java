package io.inferlens.storage;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state the parts of one store share: options, clock, RocksDB, the in-memory index, the
 * locks and the head's counters. Each field says which lock guards it ({@link StoreLocks}).
 */
final class StoreCore {

  final StoreOptions options;
  final Clock clock;
  final RocksHandles rocks;
  /** The free-space floor and low-space state; thread safe. */
  final FreeSpaceFloor floor;
  final SeriesIndex index = new SeriesIndex();
  final StoreLocks locks = new StoreLocks();
  /** Windows with chunks written since they were last finalized; thread safe. */
  final WindowMarks unfinalized = new WindowMarks();
  /** Samples written to each chunk partition (by start), an estimate after crash replays. */
  final Map<Long, AtomicLong> partitionSamples = new ConcurrentHashMap<>();
  /**
   * Records superseded per partition since its last compaction, counted by finalization and by
   * head flushes that finalize, read by {@link WindowFinalizer}'s compaction policy; thread safe.
   */
  final Map<org.rocksdb.ColumnFamilyHandle, Long> rewrittenRecords = new ConcurrentHashMap<>();
  final CopyOnWriteArrayList<Querier.AppendListener> listeners = new CopyOnWriteArrayList<>();
  /** Active series counts and the series limits; see its class for the locking. */
  final ActiveSeries active;

  /** Next series id to assign; guarded by the append lock. */
  long nextSeriesId;
  /** Next head-log sequence number; guarded by the append lock. */
  long nextLogSeq;
  /** Head samples appended since the last flush's cut; guarded by the append lock. */
  long headSamples;
  /** Clock ms when the active head got its first sample; guarded by the append lock. */
  long headSinceMs = Long.MAX_VALUE;
  /**
   * Smallest sample timestamp appended (or replayed) since the last flush's cut, ms, or
   * {@code Long.MAX_VALUE}: no head sample is older. Written under the append lock; read by
   * finalization, which leaves a window open while the head still holds samples of it.
   */
  volatile long headMinTs = Long.MAX_VALUE;
  /**
   * {@link #headMinTs} of the samples a running head flush is writing, or {@code Long.MAX_VALUE};
   * written under the append lock or by the flushing thread under the flush lock.
   */
  volatile long flushingMinTs = Long.MAX_VALUE;
  /** Clock ms of the last append that stored a sample (idle flush); written under append lock. */
  volatile long lastAppendMs = Long.MIN_VALUE;
  /**
   * Whether head samples may already be in chunks (a flush failed between batches, or one was cut
   * short before a restart): the next flush then merges windows with stored chunks. Guarded by
   * the flush lock.
   */
  boolean headMayOverlapChunks;
  /** Head samples before the cut of the flush in progress: written, not yet dropped. */
  volatile long flushingSamples;
  /**
   * Incremented after finalization rewrote chunks and after retention dropped chunk partitions:
   * chunk windows decoded for duplicate checks ({@link StoredWindowCache}) are reused only while
   * it is unchanged (head flushes raise the {@link SeriesRef#chunkVersion} of their series instead).
   */
  volatile long chunkEpoch;
  /** Newest sample timestamp ever appended, milliseconds. */
  volatile long maxSeenMs = Long.MIN_VALUE;
  volatile boolean closed;

  StoreCore(StoreOptions options, Clock clock, RocksHandles rocks, FreeSpaceFloor floor) {
    this.options = options;
    this.clock = clock;
    this.rocks = rocks;
    this.floor = floor;
    this.active = new ActiveSeries(options.seriesLimits(), index, locks.append);
  }

  /** @throws StorageException if the store is closed */
  void ensureOpen() throws StorageException {
    if (closed) {
      throw new StorageException("store at " + options.dataDir() + " is closed", null);
    }
  }

  /** @return {@code a - b}, or {@link Long#MIN_VALUE} where it would overflow */
  static long saturatedSubtract(long a, long b) {
    long r = a - b;
    // Overflow only when the signs of a and b differ and the result's sign differs from a's.
    return ((a ^ b) & (a ^ r)) < 0 ? Long.MIN_VALUE : r;
  }

  /** @return the start of the chunk window holding {@code ts}, milliseconds */
  static long windowStart(long ts) {
    return Math.floorDiv(ts, TimeSeriesStore.WINDOW_MS) * TimeSeriesStore.WINDOW_MS;
  }
}
