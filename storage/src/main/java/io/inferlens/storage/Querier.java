package io.inferlens.storage;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The read side of the store: what {@code analysis} and {@code api} read, without the lifecycle,
 * append or maintenance operations of {@link TimeSeriesStore}. Its model is Prometheus tsdb's
 * {@code Querier} (select series by matchers, label names and values) plus rollups.
 *
 * <p>Thread safety: every method may be called from any number of threads at once, concurrently
 * with appends, head flushes, finalization and retention.
 *
 * <p>Ordering and visibility: a read sees every append that returned before the read started;
 * samples of appends running meanwhile may or may not be seen. Series come in label-set order
 * (names then values, compared as UTF-8 bytes, {@link LabelOrder}); samples and intervals
 * ascending by timestamp, each timestamp at most once.
 *
 * <p>Units: every timestamp and bound is in milliseconds since the Unix epoch (UTC); bounds are
 * inclusive and clamped to {@code ±TimeSeriesStore.MAX_ABS_TIMESTAMP_MS}; {@code endMs < startMs}
 * gives an empty result.
 *
 * <p>Results: fresh objects and arrays the caller owns and may modify; the store keeps no
 * reference to them. An empty list means no matching series had data in the range (or no series
 * matched); it is never null.
 *
 * <p>Errors: {@link StorageException} if RocksDB fails or the store is closed (nothing partial is
 * returned then); {@link IllegalArgumentException} if the matcher list is not empty and every
 * matcher matches the empty string (it would select every series).
 */
public interface Querier {

  /**
   * Reads the samples of matching series.
   *
   * @param matchers PromQL matchers, all must hold; empty selects every series
   * @param startMs first timestamp to include, milliseconds
   * @param endMs last timestamp to include, milliseconds
   * @return matching series with at least one sample in {@code [startMs, endMs]}
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  List<Series> select(List<Matcher> matchers, long startMs, long endMs) throws StorageException;

  /**
   * {@link #select}, handing the series over one at a time in label-set order, so a reader that
   * evaluates series by series (the PromQL engine's range functions) holds a bounded part of
   * them at once. Implementations read in batches; the default reads all, then hands them over.
   *
   * @param matchers as for {@link #select}
   * @param startMs first timestamp to include, milliseconds
   * @param endMs last timestamp to include, milliseconds
   * @param visitor receives each matching series with a sample in range; its arrays are valid
   *     only during the call; a runtime exception it throws stops the read and propagates
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  default void selectEach(List<Matcher> matchers, long startMs, long endMs,
      SeriesVisitor visitor) throws StorageException {
    for (Series s : select(matchers, startMs, endMs)) {
      visitor.visit(s.labels(), s.timestampsMs(), s.valueBits(), s.size());
    }
  }

  /** Receives the series of {@link #selectEach}, one at a time. */
  @FunctionalInterface
  interface SeriesVisitor {
    /**
     * @param labels the series' label set
     * @param timestampsMs sample timestamps, milliseconds, strictly ascending in
     *     {@code [0, count)}; the array may be longer, and is valid only while this call runs
     *     (implementations reuse it for later series: copy what you keep)
     * @param valueBits raw IEEE-754 bits of the values, parallel, same rules
     * @param count the number of samples, &ge; 1
     */
    void visit(LabelSet labels, long[] timestampsMs, long[] valueBits, int count);
  }

  /**
   * Lists matching series that have a sample in range, reading at most one chunk per series.
   *
   * @param matchers as for {@link #select}
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   * @return label sets in label-set order
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  List<LabelSet> series(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException;

  /**
   * Lists the label names of matching series that have a sample in range.
   *
   * @param matchers as for {@link #select}; empty means all series
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   * @return distinct names in UTF-8 order
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  List<String> labelNames(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException;

  /**
   * Lists the values of one label among matching series that have a sample in range.
   *
   * @param name the label name
   * @param matchers as for {@link #select}; empty means all series
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   * @return distinct non-empty values in UTF-8 order
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  List<String> labelValues(String name, List<Matcher> matchers, long startMs, long endMs)
      throws StorageException;

  /**
   * Reads rollups of matching series: the stored intervals of finalized windows, and intervals
   * computed from raw samples for windows not finalized yet (or changed since). Cost grows with
   * the intervals in range, not with the raw samples they summarize.
   *
   * @param matchers as for {@link #select}
   * @param startMs the first interval is the one holding {@code startMs}, milliseconds
   * @param endMs intervals starting after this are left out, milliseconds
   * @param resolution interval length (5 minutes or 1 hour)
   * @return matching series with at least one interval in range, every column decoded
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  List<RollupSeries> selectRollups(
      List<Matcher> matchers, long startMs, long endMs, Resolution resolution)
      throws StorageException;

  /**
   * {@link #selectRollups(List, long, long, Resolution)} decoding only some columns of stored
   * rollups: the others are NaN in the result (counts and starts are always there). Intervals
   * computed from raw samples have every column.
   *
   * @param matchers as for {@link #select}
   * @param startMs the first interval is the one holding this time, milliseconds
   * @param endMs intervals starting after this are left out, milliseconds
   * @param resolution interval length
   * @param columns the columns needed; empty means counts only
   * @return as the overload without columns
   * @throws IllegalArgumentException see the class comment
   * @throws StorageException if RocksDB fails or the store is closed
   */
  List<RollupSeries> selectRollups(List<Matcher> matchers, long startMs, long endMs,
      Resolution resolution, Set<RollupColumn> columns) throws StorageException;

  /**
   * Reads the stored metric metadata ({@link SampleAppender#appendMetadata}), with the parameters
   * of Prometheus's {@code /api/v1/metadata} (web/api/v1/api.go at v2.42.0, plus
   * {@code limit_per_metric} of later versions). Metadata is not tied to time or to series: a
   * family's entries stay while the store lives.
   *
   * @param metricOrNull one family name (exact, no matchers), or null or empty for every family
   * @param limit the most families returned; negative for no limit; 0 returns none (as Prometheus)
   * @param limitPerMetric the most entries per family; 0 or negative for all (at most
   *     {@link MetricMetadata#MAX_ENTRIES_PER_FAMILY})
   * @return family name → its entries, newest first (in the order first stored, reversed);
   *     families in UTF-8 order of their names ({@link LabelSet#UTF8_ORDER}), only those with
   *     entries; a fresh map the caller owns
   * @throws StorageException if the store is closed
   */
  Map<String, List<MetricMetadata>> metadata(String metricOrNull, int limit, int limitPerMetric)
      throws StorageException;

  /**
   * Registers a listener told the time range of every append that stored samples, so a reader's
   * cache can drop what it held for that range (backfill included).
   *
   * @param listener called after every append that stored at least one sample
   */
  void addAppendListener(AppendListener listener);

  /**
   * The newest sample timestamp the store has received: through appends since it opened, and
   * from the head log it replayed when it opened. The always-on evaluator follows it, so a
   * sender replaying hours of its WAL is evaluated as the data arrives, and a sender that stops
   * is told from a clock that moves on.
   *
   * @return milliseconds since the epoch, or {@link Long#MIN_VALUE} when none is known (an empty
   *     store, or one whose head was flushed before it was reopened)
   */
  long newestSampleMs();

  /**
   * Told the time range of the samples each append made durable. Called on the appending thread
   * while the append lock is held: implementations must be quick, must not throw (a thrown
   * exception is logged and ignored) and must not call back into the store.
   */
  @FunctionalInterface
  interface AppendListener {
    /**
     * @param minTimestampMs oldest sample appended, milliseconds
     * @param maxTimestampMs newest sample appended, milliseconds
     */
    void appended(long minTimestampMs, long maxTimestampMs);
  }
}
