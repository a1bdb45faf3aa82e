package io.inferlens.analysis.cardinality;

/**
 * When a metric's active series explode (docs/DESIGN.md section 3, {@code CARDINALITY_EXPLOSION}).
 * A sample of the metric now is compared with the oldest sample of it within {@link #windowMs}:
 *
 * <ul>
 *   <li>it gained at least {@link #minNewSeries(long)} active series ({@link #minNewSeries}, or
 *       half the per-metric limit when that is lower, so that a limit of 1,000 that clips the
 *       explosion at 1,000 still lets it be seen), and
 *   <li>its series per target (active series / distinct target-label combinations) rose at least
 *       {@link #growthFactor}-fold, <b>or</b> its busiest target (the one with most of its
 *       series) holds at least {@link #growthFactor} × the series the busiest target held then
 *       and gained at least the minimum of new series itself: a bomb on one of many targets,
 *       which the average over the fleet dilutes. A metric without series at the window's start
 *       counts as having had {@code minNewSeries / growthFactor} series per target (and on its
 *       busiest target) then, so a new metric explodes only when it arrives with at least
 *       {@code minNewSeries} series per target, or with more than {@code 4/3 × minNewSeries} on
 *       one target.
 * </ul>
 *
 * and the label responsible (the non-target label whose distinct values grew most) gained at least
 * {@link #MIN_NEW_LABEL_VALUES} values (fewer when {@link #minNewSeries(long)} is lower): an
 * explosion is one label taking ever new values (a user, request or session id), not the product
 * of bounded labels, such as a new vLLM 0.13 replica with 64 data-parallel engines arriving with
 * 64 {@code engine} values × 23 {@code le} buckets = 1,472 series of each histogram.
 *
 * A new target, or a new model on an instance ({@code model_name} is a target label), brings its
 * series with it: series per target, and on the busiest target, stay, and the rule stays silent.
 * A finding holds while the metric's series per target or on its busiest target stay at least
 * {@code growthFactor} × what they were before it opened (the label dropped and the series idle
 * for the hour that keeps them active ends it).
 *
 * @param windowMs how far back a sample is compared, ms, &gt; 0; default 10 minutes
 * @param sampleIntervalMs least time between two samples, ms, 1..windowMs; default 1 minute
 * @param minNewSeries least new active series of one metric within the window, ≥ 1; default
 *     1,000 (a vLLM replica exposes about 1,500 series in all, its largest histogram about 30
 *     buckets per model)
 * @param growthFactor least rise of series per target, &gt; 1; default 3
 * @param maxMetrics most metric names sampled (the largest by active series), ≥ 1; default
 *     10,000, which bounds the watch's memory
 */
public record CardinalityRule(long windowMs, long sampleIntervalMs, long minNewSeries,
    double growthFactor, int maxMetrics) {

  /**
   * 100: more distinct values than a bounded label has on one metric (vLLM's {@code engine}, at
   * most 64 data-parallel engines; a histogram's {@code le}, about 30; a GPU index, 8).
   */
  public static final long MIN_NEW_LABEL_VALUES = 100;

  /** 10 min window, a sample a minute, 1,000 new series, ×3 per target, 10,000 metrics. */
  public static final CardinalityRule DEFAULTS =
      new CardinalityRule(600_000L, 60_000L, 1_000L, 3.0, 10_000);

  /** @throws IllegalArgumentException naming the field out of range */
  public CardinalityRule {
    if (windowMs <= 0 || sampleIntervalMs <= 0 || sampleIntervalMs > windowMs) {
      throw new IllegalArgumentException("cardinality window (" + windowMs
          + " ms) must be > 0 and the sample interval (" + sampleIntervalMs
          + " ms) within 1..window");
    }
    if (minNewSeries < 1 || !(growthFactor > 1) || maxMetrics < 1) {
      throw new IllegalArgumentException("minNewSeries (" + minNewSeries + ") must be >= 1,"
          + " growthFactor (" + growthFactor + ") > 1 and maxMetrics (" + maxMetrics + ") >= 1");
    }
  }

  /**
   * @param perMetricLimit {@code --limits.max-series-per-metric}, 0 when off
   * @return the new series that make an explosion under that limit: {@link #minNewSeries}, or
   *     half the limit (at least 1) when that is lower
   */
  public long minNewSeries(long perMetricLimit) {
    return perMetricLimit > 0 ? Math.max(1, Math.min(minNewSeries, perMetricLimit / 2))
        : minNewSeries;
  }

  /**
   * @param seriesThen series of the metric at the window's start, ≥ 0 (0: it had none)
   * @param targetsThen its targets then, ≥ 1 when {@code seriesThen} &gt; 0
   * @param minNew {@link #minNewSeries(long)} in force
   * @return series per target the metric counts as having had then
   */
  public double perTargetThen(long seriesThen, long targetsThen, long minNew) {
    return seriesThen == 0 ? minNew / growthFactor : (double) seriesThen / targetsThen;
  }

  /**
   * @param busiestThen series of the busiest target at the window's start, ≥ 0 (0: no series)
   * @param minNew {@link #minNewSeries(long)} in force
   * @return series on the busiest target the metric counts as having had then
   */
  public double busiestThen(long busiestThen, long minNew) {
    return busiestThen == 0 ? minNew / growthFactor : busiestThen;
  }

  /**
   * The rule, with the counts of the window's first sample ("then") and of now.
   *
   * @param seriesThen series at the window's start, ≥ 0
   * @param targetsThen targets then, ≥ 1 when {@code seriesThen} &gt; 0
   * @param busiestThen series of the busiest target then, ≥ 0
   * @param seriesNow series now, ≥ 1
   * @param targetsNow targets now, ≥ 1
   * @param busiestNow series of the busiest target now, 1..seriesNow
   * @param perMetricLimit {@code --limits.max-series-per-metric}, 0 when off
   * @return whether the metric is exploding
   */
  public boolean exploding(long seriesThen, long targetsThen, long busiestThen, long seriesNow,
      long targetsNow, long busiestNow, long perMetricLimit) {
    long minNew = minNewSeries(perMetricLimit);
    if (seriesNow - seriesThen < minNew) {
      return false;
    }
    double before = busiestThen(busiestThen, minNew);
    return holds(perTargetThen(seriesThen, targetsThen, minNew), seriesNow, targetsNow)
        || busiestNow - before >= minNew && atLeast(busiestNow, growthFactor * before);
  }

  /**
   * @param valuesThen distinct values of the label responsible at the window's start, ≥ 0
   * @param valuesNow its distinct values now, ≥ 0
   * @param perMetricLimit {@code --limits.max-series-per-metric}, 0 when off
   * @return whether the label gained at least {@link #MIN_NEW_LABEL_VALUES} values, or
   *     {@link #minNewSeries(long)} when that is lower
   */
  public boolean labelExplodes(long valuesThen, long valuesNow, long perMetricLimit) {
    return valuesNow - valuesThen >= Math.min(minNewSeries(perMetricLimit), MIN_NEW_LABEL_VALUES);
  }

  /**
   * @param perTargetBefore series per target before the finding opened
   * @param seriesNow series now, ≥ 0
   * @param targetsNow targets now, ≥ 1
   * @return whether series per target are still at least {@link #growthFactor} × before
   */
  public boolean holds(double perTargetBefore, long seriesNow, long targetsNow) {
    return seriesNow > 0 && atLeast(seriesNow, growthFactor * perTargetBefore * targetsNow);
  }

  /**
   * @param perTargetBefore series per target before the finding opened
   * @param busiestBefore series of the busiest target before it opened (NaN: not known)
   * @param seriesNow series now, ≥ 0
   * @param targetsNow targets now, ≥ 1
   * @param busiestNow series of the busiest target now
   * @return whether series per target, or on the busiest target, are still at least
   *     {@link #growthFactor} × before
   */
  public boolean holds(double perTargetBefore, double busiestBefore, long seriesNow,
      long targetsNow, long busiestNow) {
    return holds(perTargetBefore, seriesNow, targetsNow)
        || seriesNow > 0 && busiestBefore > 0 && atLeast(busiestNow, growthFactor * busiestBefore);
  }

  /**
   * {@code value ≥ bound}, exactly the factor counting (3 × 10/3 per target × 3 targets is 30): a
   * relative tolerance of 1e-9 absorbs the rounding of the division.
   */
  private static boolean atLeast(long value, double bound) {
    return value * (1 + 1e-9) >= bound;
  }
}
