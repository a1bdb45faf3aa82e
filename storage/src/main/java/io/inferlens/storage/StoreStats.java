package io.inferlens.storage;

import java.util.Map;

/**
 * Sizes and counts of the store for gauges and the admin API. Thread safe; each call is cheap
 * (in-memory counters and RocksDB properties) except {@link #diskSizeBytes()}, which walks the
 * data directory.
 */
public interface StoreStats {

  /**
   * @return series in the index, including series whose samples retention removed
   * @throws StorageException if the store is closed
   */
  long seriesCount() throws StorageException;

  /**
   * @return active series (a sample appended within {@link SeriesLimits#ACTIVE_WINDOW_MS}), the
   *     count {@link SeriesLimits#maxSeries()} limits; never throws
   */
  long activeSeriesCount();

  /**
   * Cardinality statistics of the active series in Prometheus's {@code TSDBStatus} shape. Walks
   * every posting entry (series × labels) under the index's read lock, so new series wait for
   * it (about a second at a million series); for a status page, not for a gauge.
   *
   * @param limit entries per top list, ≥ 1
   * @return the statistics
   * @throws IllegalArgumentException if {@code limit} &lt; 1
   * @throws StorageException if the store is closed
   */
  TsdbStatus tsdbStatus(int limit) throws StorageException;

  /**
   * @return stored raw samples (head plus chunk partitions kept), an estimate: a crash between a
   *     flush and its log truncation counts replayed samples twice until finalization
   * @throws StorageException if the store is closed
   */
  long sampleCountEstimate() throws StorageException;

  /** @return samples in the head (appended, not yet in chunks); never throws */
  long headSampleCount();

  /**
   * @return the sum of the sizes of all files under the data directory, bytes
   * @throws StorageException if the directory cannot be read
   */
  long diskSizeBytes() throws StorageException;

  /**
   * @return each of {@link TimeSeriesStore#ROCKS_PROPERTIES} summed over all column families
   * @throws StorageException if RocksDB fails or the store is closed
   */
  Map<String, Long> rocksProperties() throws StorageException;

  /**
   * @return bytes RocksDB holds per kind ({@code chunks}, {@code rollup5m}, {@code rollup1h},
   *     {@code head_log}, {@code index}), SST files plus memtables
   * @throws StorageException if RocksDB fails or the store is closed
   */
  Map<String, Long> bytesByKind() throws StorageException;
}
