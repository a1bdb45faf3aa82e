package io.inferlens.storage;

import java.util.List;

/**
 * What one {@code append} call did. Every sample is counted exactly once, in
 * {@code samplesAppended}, {@code samplesDuplicate}, {@code rejectedCount} or the
 * {@code samples} of one of {@code limitRefusals}.
 *
 * @param samplesAppended new samples now durable (their RocksDB write with WAL returned)
 * @param samplesDuplicate samples identical (timestamp and raw bits) to one already stored or
 *     earlier in the same call: idempotent successes, stored once
 * @param seriesCreated label sets seen for the first time
 * @param rejections samples refused, such as a different value at an already stored timestamp;
 *     the first few are listed in full, see {@code rejectedCount} for the total
 * @param rejectedCount total number of rejected samples, ≥ {@code rejections.size()}, not
 *     counting those of {@code limitRefusals}
 * @param limitRefusals per {@link SeriesLimits.Kind} that refused series in this call, in the
 *     order each first refused one: the series that would have become active over the limit
 *     ({@link SeriesLimits}); empty when none; at most one entry per kind
 */
public record AppendResult(
    long samplesAppended,
    long samplesDuplicate,
    long seriesCreated,
    List<Rejection> rejections,
    long rejectedCount,
    List<LimitRefusal> limitRefusals) {

  /** Makes the lists unmodifiable. */
  public AppendResult {
    rejections = List.copyOf(rejections);
    limitRefusals = List.copyOf(limitRefusals);
  }

  /** A result without limit refusals. */
  public AppendResult(long samplesAppended, long samplesDuplicate, long seriesCreated,
      List<Rejection> rejections, long rejectedCount) {
    this(samplesAppended, samplesDuplicate, seriesCreated, rejections, rejectedCount, List.of());
  }

  /** @return samples refused by the series limits, summed over {@code limitRefusals} */
  public long samplesLimited() {
    long n = 0;
    for (LimitRefusal r : limitRefusals) {
      n += r.samples();
    }
    return n;
  }

  /**
   * One refused sample.
   *
   * @param series the series it belongs to
   * @param timestampMs its timestamp in milliseconds
   * @param reason why, as a sentence with the numbers, e.g. "sample at 1700000000000 ms has value
   *     bits 0x... but 0x... is already stored"
   */
  public record Rejection(LabelSet series, long timestampMs, String reason) {}

  /**
   * The series one limit refused in one call: new series, or series inactive for longer than
   * {@link SeriesLimits#ACTIVE_WINDOW_MS}, that would have become active over the limit. None of
   * their samples was stored; the other series of the call were.
   *
   * @param limit which limit
   * @param limitValue its value, ≥ 1
   * @param firstSeries the first refused series of the call
   * @param activeCount the active series the limit counted when it refused {@code firstSeries}:
   *     all of them ({@code MAX_SERIES}) or those of its metric ({@code MAX_SERIES_PER_METRIC})
   * @param series distinct series refused by this limit in the call, ≥ 1
   * @param samples their samples refused, ≥ {@code series}
   */
  public record LimitRefusal(SeriesLimits.Kind limit, long limitValue, LabelSet firstSeries,
      long activeCount, long series, long samples) {

    /** @return the first refused series' {@code __name__}, "" if it has none */
    public String firstMetric() {
      String m = firstSeries.metricName();
      return m == null ? "" : m;
    }

    /**
     * @return a sentence naming the limit (flag and value), the first series' metric and the
     *     counts, e.g. "new series of metric "req" refused: it has 1000 active series (a sample
     *     in the last hour), the limit --limits.max-series-per-metric=1000; 19000 new series
     *     (19000 samples) refused, the first {__name__="req", user="u1000"}; samples of active
     *     series are still stored"
     */
    public String message() {
      String what = limit == SeriesLimits.Kind.MAX_SERIES
          ? "the store has " + activeCount + " active series"
          : "it has " + activeCount + " active series";
      return "new series of metric \"" + firstMetric() + "\" refused: " + what
          + " (a sample in the last hour), the limit " + limit.flag() + "=" + limitValue + "; "
          + series + " new series (" + samples + (samples == 1 ? " sample" : " samples")
          + ") refused, the first " + firstSeries
          + "; samples of active series are still stored";
    }
  }
}
