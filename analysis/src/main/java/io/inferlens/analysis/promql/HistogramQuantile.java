package io.inferlens.analysis.promql;

import io.inferlens.storage.Series;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * PromQL {@code histogram_quantile} over classic (bucket-series) histograms, as Prometheus 2.42.
 *
 * <p>{@link #quantile} is {@code bucketQuantile} from Prometheus v2.42.0 {@code promql/quantile.go}:
 *
 * <ul>
 *   <li>{@code q} NaN → NaN; {@code q < 0} → −Inf; {@code q > 1} → +Inf (before looking at buckets);
 *   <li>buckets sorted by upper bound; the largest must be +Inf, else NaN;
 *   <li>buckets with equal upper bounds are merged (counts added, {@code coalesceBuckets});
 *   <li>cumulative counts made monotonic: a count below an earlier one is raised to it
 *       ({@code ensureMonotonic}; scrapes of buckets are not atomic, so this happens);
 *   <li>fewer than 2 buckets, or a total (+Inf) count of 0 → NaN;
 *   <li>rank = q × total; the first bucket whose count reaches the rank is chosen (binary search
 *       over all but the +Inf bucket, like Go's {@code sort.Search});
 *   <li>rank in the +Inf bucket → the highest finite upper bound;
 *   <li>first bucket with an upper bound &le; 0 → that bound; otherwise linear interpolation inside
 *       the bucket, the first bucket starting at 0. A quantile in the first bucket is therefore an
 *       interpolation, not a measured value.
 * </ul>
 *
 * <p>The PromQL engine's {@code histogram_quantile} groups the buckets and calls {@link #quantile}.
 *
 * <p>Thread safety: stateless.
 */
public final class HistogramQuantile {

  /** The bucket label of classic histograms. */
  public static final String LE = "le";

  /**
   * One cumulative bucket.
   *
   * @param upperBound the bucket's upper bound ({@code le}), +Inf for the last bucket
   * @param count observations &le; {@code upperBound} (cumulative), or a rate of them
   */
  public record Bucket(double upperBound, double count) {}

  private HistogramQuantile() {}

  /**
   * Prometheus 2.42 {@code bucketQuantile}; see the class comment for the rules.
   *
   * @param q the quantile, meaningful in [0, 1]
   * @param buckets cumulative buckets in any order; not modified
   * @return the estimated quantile in the buckets' unit, ±Inf for q outside [0, 1], NaN for NaN q,
   *     no +Inf bucket, fewer than 2 buckets or no observations
   */
  public static double quantile(double q, List<Bucket> buckets) {
    if (Double.isNaN(q)) {
      return Double.NaN;
    }
    if (q < 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (q > 1) {
      return Double.POSITIVE_INFINITY;
    }
    if (buckets.isEmpty()) {
      return Double.NaN; // Prometheus never calls bucketQuantile without buckets
    }
    Bucket[] sorted = buckets.toArray(new Bucket[0]);
    Arrays.sort(sorted, Comparator.comparingDouble(Bucket::upperBound));
    if (sorted[sorted.length - 1].upperBound() != Double.POSITIVE_INFINITY) {
      return Double.NaN;
    }
    double[] upper = new double[sorted.length];
    double[] count = new double[sorted.length];
    int n = coalesce(sorted, upper, count);
    ensureMonotonic(count, n);
    if (n < 2) {
      return Double.NaN;
    }
    double observations = count[n - 1];
    if (observations == 0) {
      return Double.NaN;
    }
    double rank = q * observations;
    int b = searchFirstAtLeast(count, n - 1, rank);
    if (b == n - 1) {
      return upper[n - 2];
    }
    if (b == 0 && upper[0] <= 0) {
      return upper[0];
    }
    double bucketStart = 0;
    double bucketEnd = upper[b];
    double bucketCount = count[b];
    if (b > 0) {
      bucketStart = upper[b - 1];
      bucketCount -= count[b - 1];
      rank -= count[b - 1];
    }
    return bucketStart + (bucketEnd - bucketStart) * (rank / bucketCount);
  }

  /**
   * Parses an {@code le} label value the way Go's {@code strconv.ParseFloat(s, 64)} does for the
   * forms exporters write: decimal and exponent notation, hexadecimal floats with a {@code p}
   * exponent, and {@code inf}/{@code infinity}/{@code nan} in any case, infinities with an optional
   * sign. Forms only Java accepts (surrounding spaces, {@code d}/{@code f} suffixes) are
   * rejected, as Go does. Underscores, which Go allows only with a base prefix, are rejected.
   *
   * @param le the label value, "" when absent
   * @return the upper bound, or empty when Go would reject the text
   */
  public static OptionalDouble parseUpperBound(String le) {
    if (le == null || le.isEmpty()) {
      return OptionalDouble.empty();
    }
    String lower = le.toLowerCase(Locale.ROOT);
    String unsigned = lower.startsWith("+") || lower.startsWith("-") ? lower.substring(1) : lower;
    if (unsigned.equals("inf") || unsigned.equals("infinity")) {
      return OptionalDouble.of(lower.startsWith("-")
          ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
    }
    if (lower.equals("nan")) {
      return OptionalDouble.of(Double.NaN);
    }
    char last = lower.charAt(lower.length() - 1);
    if (Character.isWhitespace(lower.charAt(0)) || Character.isWhitespace(last)
        // a float ends in a digit, '.' or 'p'-exponent digits; d/f are Java type suffixes
        || last == 'd' || last == 'f'
        || unsigned.startsWith("n") || unsigned.startsWith("i")) {
      return OptionalDouble.empty();
    }
    try {
      return OptionalDouble.of(Double.parseDouble(le));
    } catch (NumberFormatException e) {
      return OptionalDouble.empty();
    }
  }

  /** {@code coalesceBuckets}: merges equal upper bounds of sorted buckets; returns the count. */
  private static int coalesce(Bucket[] sorted, double[] upper, double[] count) {
    int n = 0;
    upper[0] = sorted[0].upperBound();
    count[0] = sorted[0].count();
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i].upperBound() == upper[n]) {
        count[n] += sorted[i].count();
      } else {
        n++;
        upper[n] = sorted[i].upperBound();
        count[n] = sorted[i].count();
      }
    }
    return n + 1;
  }

  /** {@code ensureMonotonic}: raises every count below an earlier maximum to that maximum. */
  private static void ensureMonotonic(double[] count, int n) {
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      if (count[i] > max) {
        max = count[i];
      } else if (count[i] < max) {
        count[i] = max;
      }
    }
  }

  /** Go's {@code sort.Search(n, i -> count[i] >= rank)}: the same probes, the same answer. */
  private static int searchFirstAtLeast(double[] count, int n, double rank) {
    int i = 0;
    int j = n;
    while (i < j) {
      int h = (i + j) >>> 1;
      if (!(count[h] >= rank)) {
        i = h + 1;
      } else {
        j = h;
      }
    }
    return i;
  }


}
