package io.inferlens.analysis.diagnose;

/**
 * A log-bucketed histogram of non-negative values for baseline quantiles: bucket width 2 %
 * (relative error ≤ 1 %) from 1e-6 to 1e7, plus a bucket for 0. Counts can be added and
 * removed, so a sliding 14-day window costs O(buckets) per block instead of a sort.
 *
 * <p>Not thread safe.
 */
public final class BaselineHistogram {

  private static final double GROWTH = 1.02;
  private static final double MIN = 1e-6;
  private static final double LOG_GROWTH = Math.log(GROWTH);
  /** ln(1e7/1e-6)/ln(1.02) ≈ 1512 buckets cover 13 decades; index 0 holds zero and below MIN. */
  private static final int BUCKETS = (int) Math.ceil(Math.log(1e7 / MIN) / LOG_GROWTH) + 2;

  private final long[] counts = new long[BUCKETS];
  private long total;

  /** @return the bucket of {@code v} ≥ 0 (NaN and negatives are the caller's to skip) */
  static int index(double v) {
    if (v < MIN) {
      return 0;
    }
    int i = 1 + (int) (Math.log(v / MIN) / LOG_GROWTH);
    return Math.min(i, BUCKETS - 1);
  }

  /** Adds {@code weight} (negative to take out) to bucket {@code i} from {@link #index}. */
  void addToBucket(int i, long weight) {
    counts[i] += weight;
    total += weight;
  }

  /** @param v a value ≥ 0; NaN and negatives are ignored */
  public void add(double v) {
    add(v, 1);
  }

  /**
   * Adds a value that stands for {@code weight} equal values, e.g. one 5-minute rollup interval
   * standing for the twenty 15-second steps it summarizes, so that quantiles stay weighted by time.
   *
   * @param v a value ≥ 0; NaN and negatives are ignored
   * @param weight how many values it counts as, ≥ 1
   * @throws IllegalArgumentException if weight &lt; 1
   */
  public void add(double v, long weight) {
    if (weight < 1) {
      throw new IllegalArgumentException("weight must be >= 1, got " + weight);
    }
    if (!(v >= 0)) {
      return;
    }
    counts[index(v)] += weight;
    total += weight;
  }

  /** @param other counts to add to this one */
  public void addAll(BaselineHistogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] += other.counts[i];
    }
    total += other.total;
  }

  /** @param other counts previously added with {@link #addAll}, to take out again */
  public void removeAll(BaselineHistogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] -= other.counts[i];
    }
    total -= other.total;
  }

  /** @return number of values held (each counted with its weight) */
  public long count() {
    return total;
  }

  /**
   * @param q quantile in [0, 1]
   * @return the value at that rank (bucket midpoint, within 1 %), NaN when empty
   */
  public double quantile(double q) {
    if (total == 0) {
      return Double.NaN;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank && counts[i] > 0) {
        return i == 0 ? 0 : MIN * Math.pow(GROWTH, i - 0.5);
      }
    }
    return MIN * Math.pow(GROWTH, BUCKETS - 1.5);
  }
}
