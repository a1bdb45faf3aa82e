package io.inferlens.storage;

/**
 * The rollup intervals of one series at one {@link Resolution}, ascending by start. Arrays are
 * parallel, fresh and owned by the caller. Stale markers are not counted; other NaN values are and
 * make min, max and sum NaN, as PromQL's {@code min_over_time} etc. would be.
 *
 * @param labels the series
 * @param resolution the interval length
 * @param startsMs interval starts in milliseconds, multiples of the interval, strictly ascending
 * @param counts raw samples in each interval, &ge; 1
 * @param min smallest value
 * @param max largest value
 * @param sum sum of the values
 * @param first value of the oldest sample
 * @param last value of the newest sample
 * @param increase counter-aware increase between the interval's own samples: the sum over
 *     consecutive samples of {@code v[i] - v[i-1]}, or of {@code v[i]} where the value dropped (a
 *     counter reset, as PromQL's {@code increase} treats it)
 */
public record RollupSeries(
    LabelSet labels,
    Resolution resolution,
    long[] startsMs,
    long[] counts,
    double[] min,
    double[] max,
    double[] sum,
    double[] first,
    double[] last,
    double[] increase) {

  /** @return the number of intervals */
  public int size() {
    return startsMs.length;
  }

  /**
   * Counter increase over intervals {@code [from, to)}: their own increases plus the step from
   * each interval's previous {@code last} to its {@code first} (reset-aware), so a rate over
   * rollups is right across resets and interval boundaries. The step into interval {@code from}
   * is not included: it belongs to the interval before.
   *
   * @param from first interval index, inclusive
   * @param to last interval index, exclusive, &ge; from
   * @return the increase in the counter's unit; 0 for an empty range
   * @throws IndexOutOfBoundsException if the range is outside the arrays
   */
  public double counterIncrease(int from, int to) {
    double total = 0;
    for (int i = from; i < to; i++) {
      total += increase[i];
      if (i > from) {
        double step = first[i] - last[i - 1];
        total += step >= 0 ? step : first[i];
      }
    }
    return total;
  }
}
