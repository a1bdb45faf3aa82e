package io.inferlens.storage;

import java.util.List;

/**
 * Appends samples and metric metadata durably. The one write path into the store; ingest depends
 * on this interface only.
 *
 * <p>Contract: when {@link #append} returns, every sample counted in
 * {@link AppendResult#samplesAppended()} is in RocksDB with its WAL record written, so it
 * survives a crash of this process. Samples may be in any order within the retention window;
 * exact duplicates (same series, timestamp and raw bits) are idempotent; a different value at a
 * stored timestamp is a {@link AppendResult.Rejection}, and a series that would become active over
 * a {@link SeriesLimits} limit an {@link AppendResult.LimitRefusal}, never an exception.
 * Implementations are thread safe.
 */
public interface SampleAppender {

  /**
   * @param writes series and their samples; label sets must be canonical ({@link LabelSet})
   * @return counts and rejections, never null
   * @throws StorageException if RocksDB failed: nothing in this call is acknowledged, and the
   *     caller should answer with a retryable status (5xx)
   */
  AppendResult append(List<SeriesWrite> writes) throws StorageException;

  /**
   * Stores metric metadata: per family, the distinct entries, at most
   * {@link MetricMetadata#MAX_ENTRIES_PER_FAMILY} (the least recently sent dropped), kept as long
   * as the store. An entry the store holds already costs no write (senders re-send all their
   * metadata every minute). When this returns, what it stored survives a crash, as samples do.
   *
   * @param metadata entries in the order sent, each valid by {@link MetricMetadata}'s bounds
   * @return how many families' stored entries changed, ≥ 0 (0 for a re-send of held entries)
   * @throws StorageException if RocksDB failed or the store is closed: nothing of this call is
   *     stored, and the caller should answer with a retryable status (5xx)
   */
  int appendMetadata(List<MetricMetadata> metadata) throws StorageException;
}
