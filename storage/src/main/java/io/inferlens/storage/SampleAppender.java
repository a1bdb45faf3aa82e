package io.inferlens.storage;

import java.util.List;

/**
 * Appends samples durably. The one write path into the store; ingest depends on this interface
 * only.
 *
 * <p>Contract: when {@link #append} returns, every sample counted in
 * {@link AppendResult#samplesAppended()} is in RocksDB with its WAL record written, so it
 * survives a crash of this process. Samples may be in any order within the retention window;
 * exact duplicates (same series, timestamp and raw bits) are idempotent; a different value at a
 * stored timestamp is a {@link AppendResult.Rejection}, never an exception. Implementations are
 * thread safe.
 */
public interface SampleAppender {

  /**
   * @param writes series and their samples; label sets must be canonical ({@link LabelSet})
   * @return counts and rejections, never null
   * @throws StorageException if RocksDB failed: nothing in this call is acknowledged, and the
   *     caller should answer with a retryable status (5xx)
   */
  AppendResult append(List<SeriesWrite> writes) throws StorageException;
}
