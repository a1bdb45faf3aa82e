package io.inferlens.storage;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.RocksDBException;

/**
 * Retention: drops whole time partitions past their horizon (VictoriaMetrics drops whole
 * partitions the same way); nothing is deleted key by key. Takes the lifecycle read lock and,
 * inside {@link RocksHandles#dropPartitionsBefore}, the partition write lock, which waits for
 * running reads but never for appends.
 */
final class Retention {

  private final StoreCore core;
  private final StoreOptions options;
  private final RocksHandles rocks;
  private final SeriesIndex index;
  private final ReentrantReadWriteLock lifecycle;
  private final WindowMarks unfinalized;
  private final Map<Long, AtomicLong> partitionSamples;

  Retention(StoreCore core) {
    this.core = core;
    this.options = core.options;
    this.rocks = core.rocks;
    this.index = core.index;
    this.lifecycle = core.locks.lifecycle;
    this.unfinalized = core.unfinalized;
    this.partitionSamples = core.partitionSamples;
  }

  /**
   * Drops whole partitions past their retention: raw chunk days that ended at or before
   * {@code nowMs - retentionMs}, 5-minute rollup partitions before {@code nowMs -
   * rollup5mRetentionMs}, 1-hour ones before {@code nowMs - rollup1hRetentionMs}. A drop is a
   * metadata operation (no compaction); it waits for running reads of partitions but not for
   * appends, which never write to a partition older than the horizon. Series stay in the index
   * (their rollups may outlive their samples) and reads skip them by their time bounds.
   *
   * @param nowMs the current time in milliseconds
   * @return partitions dropped, all kinds
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public int enforceRetention(long nowMs) throws StorageException {
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      int dropped = 0;
      for (long start : rocks.dropPartitionsBefore(PartitionKind.CHUNKS,
          StoreCore.saturatedSubtract(nowMs, options.retentionMs()))) {
        partitionSamples.remove(start);
        long end = start + PartitionKind.CHUNKS.lengthMs;
        unfinalized.removeWindows(start, end);
        dropped++;
      }
      if (dropped > 0) {
        core.chunkEpoch++; // chunk windows decoded for duplicate checks may be gone
      }
      dropped += rocks.dropPartitionsBefore(PartitionKind.ROLLUP_5M,
          StoreCore.saturatedSubtract(nowMs, options.rollup5mRetentionMs())).size();
      dropped += rocks.dropPartitionsBefore(PartitionKind.ROLLUP_1H,
          StoreCore.saturatedSubtract(nowMs, options.rollup1hRetentionMs())).size();
      return dropped;
    } catch (RocksDBException e) {
      throw new StorageException("dropping partitions before retention failed: "
          + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }
}
