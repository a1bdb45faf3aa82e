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
   * A cardinality sample per metric name of the active series, for a periodic watch (once a
   * minute): the per-metric counters choose the {@code maxMetrics} largest, then one pass over
   * the series slots counts their series, targets and distinct label values, holding the index's
   * read lock per slice of 8,192 series only and never the append lock. About 40 ms for 100,000
   * series (docs/BENCHMARKS.md); no memory kept after it returns.
   *
   * @param targetLabels label names whose value combination is one target (job, instance,
   *     model_name), at least one; the first is the job label, the second the instance label
   * @param maxMetrics most metric names sampled, ≥ 1, the largest by active series
   * @return one entry per sampled metric, most series first
   * @throws IllegalArgumentException if {@code targetLabels} is empty or {@code maxMetrics} &lt; 1
   * @throws StorageException if the store is closed
   */
  java.util.List<MetricCardinality> metricCardinality(java.util.List<String> targetLabels,
      int maxMetrics) throws StorageException;

  /**
   * @return the series limits the store enforces ({@code --limits.max-series},
   *     {@code --limits.max-series-per-metric})
   */
  SeriesLimits seriesLimits();

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
