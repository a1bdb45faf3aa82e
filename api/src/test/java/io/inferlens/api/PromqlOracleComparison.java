package io.inferlens.api;

import io.inferlens.api.PromqlOracleAnswer.Series;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The comparison rules of {@link PromqlOracleTest}, those of the public PromQL compliance tester
 * (github.com/prometheus/compliance, promql/comparer/comparer.go): the result types must be
 * equal; the label sets of the series must be equal exactly; each series must have the same
 * sample timestamps (ms) and values equal within {@link #FRACTION} of the smaller magnitude or
 * {@link #MARGIN} absolute, whichever is larger ({@code cmpopts.EquateApprox(0.00001, 0)}, which
 * applies only to finite values: infinities must be equal), NaN equal to NaN ({@code
 * cmpopts.EquateNaNs}). Series order is ignored (the tester sorts the matrix), except for the
 * instant queries whose order Prometheus defines ({@link PromqlOracleCorpus#isOrdered}); there,
 * series with equal values may come in either order, since Prometheus's sort is not stable.
 *
 * <p>The tester only requires a query Prometheus rejects to be rejected ({@code should_fail});
 * here the {@code errorType} must be Prometheus's too, with any HTTP error status.
 */
final class PromqlOracleComparison {

  /** Relative tolerance: the tester's {@code defaultFraction}. */
  static final double FRACTION = 0.00001;
  /** Absolute tolerance: the tester's {@code defaultMargin}. */
  static final double MARGIN = 0.0;
  /** Differences listed per case before "and N more". */
  static final int MAX_DIFFERENCES = 6;

  private PromqlOracleComparison() {}

  /** @return whether two sample values are equal under the tester's rules */
  static boolean sameValue(double expected, double actual) {
    if (Double.isNaN(expected) || Double.isNaN(actual)) {
      return Double.isNaN(expected) && Double.isNaN(actual);
    }
    if (Double.isInfinite(expected) || Double.isInfinite(actual)) {
      return expected == actual;
    }
    return Math.abs(expected - actual)
        <= Math.max(MARGIN, FRACTION * Math.min(Math.abs(expected), Math.abs(actual)));
  }

  /**
   * Compares the answer under test with Prometheus's.
   *
   * @param ordered whether series order counts
   * @param baseMs the data's base, Unix ms, for readable timestamps
   * @return the differences, empty when the answers match
   */
  static List<String> differences(PromqlOracleAnswer reference, PromqlOracleAnswer tested,
      boolean ordered, long baseMs) {
    List<String> out = new ArrayList<>();
    if (tested.malformed() != null) {
      out.add("not a valid answer: " + tested.malformed());
      return out;
    }
    if (!reference.success()) {
      if (tested.success()) {
        out.add("Prometheus rejects it (" + reference.errorType() + "), the answer is a "
            + tested.resultType());
      } else if (!reference.errorType().equals(tested.errorType())) {
        out.add("errorType " + tested.errorType() + ", Prometheus's is "
            + reference.errorType());
      }
      return out;
    }
    if (!tested.success()) {
      out.add("rejected (" + tested.errorType() + ": " + tested.error()
          + "), Prometheus answers a " + reference.resultType());
      return out;
    }
    if (!reference.resultType().equals(tested.resultType())) {
      out.add("resultType " + tested.resultType() + ", Prometheus's is "
          + reference.resultType());
      return out;
    }
    Map<TreeMap<String, String>, Series> mine = new HashMap<>();
    for (Series s : tested.series()) {
      if (mine.put(s.labels(), s) != null) {
        out.add("the label set " + s.labelText() + " comes twice");
      }
    }
    for (Series p : reference.series()) {
      Series m = mine.remove(p.labels());
      if (m == null) {
        out.add("missing series " + p.labelText());
      } else {
        seriesDifferences(p, m, baseMs, out);
      }
    }
    for (Series extra : mine.values()) {
      out.add("extra series " + extra.labelText());
    }
    if (out.isEmpty() && ordered) {
      orderDifferences(reference.series(), tested.series(), out);
    }
    return out;
  }

  private static void seriesDifferences(Series p, Series m, long baseMs, List<String> out) {
    String name = p.labelText();
    if (p.text() != null) {
      if (!p.text().equals(m.text()) || p.timestampsMs()[0] != m.timestampsMs()[0]) {
        out.add("string " + render(m, 0, baseMs) + ", Prometheus's is " + render(p, 0, baseMs));
      }
      return;
    }
    int i = 0;
    int j = 0;
    long[] pt = p.timestampsMs();
    long[] mt = m.timestampsMs();
    while (i < pt.length || j < mt.length) {
      if (j >= mt.length || (i < pt.length && pt[i] < mt[j])) {
        out.add(name + " has no sample at " + PromqlOracleAnswer.offset(pt[i] - baseMs)
            + ", Prometheus's is " + PromqlOracleAnswer.format(p.values()[i]));
        i++;
      } else if (i >= pt.length || mt[j] < pt[i]) {
        out.add(name + " has a sample Prometheus has not: " + render(m, j, baseMs));
        j++;
      } else {
        if (!sameValue(p.values()[i], m.values()[j])) {
          out.add(name + " at " + PromqlOracleAnswer.offset(pt[i] - baseMs) + ": "
              + PromqlOracleAnswer.format(m.values()[j]) + ", Prometheus's is "
              + PromqlOracleAnswer.format(p.values()[i]));
        }
        i++;
        j++;
      }
    }
  }

  /**
   * Same series and values, so only the order can differ: walk Prometheus's order in runs of
   * equal values; each run must hold the same label sets at the same positions in any order.
   */
  private static void orderDifferences(List<Series> reference, List<Series> tested,
      List<String> out) {
    int i = 0;
    while (i < reference.size()) {
      double v = reference.get(i).values()[0];
      int end = i + 1;
      while (end < reference.size() && Double.compare(reference.get(end).values()[0], v) == 0) {
        end++;
      }
      List<TreeMap<String, String>> want = new ArrayList<>();
      List<TreeMap<String, String>> got = new ArrayList<>();
      for (int k = i; k < end; k++) {
        want.add(reference.get(k).labels());
        got.add(tested.get(k).labels());
      }
      if (!got.containsAll(want)) {
        out.add("order differs at position " + i + ": " + tested.get(i).labelText()
            + ", Prometheus's is " + reference.get(i).labelText());
        return;
      }
      i = end;
    }
  }

  private static String render(Series s, int i, long baseMs) {
    return PromqlOracleAnswer.offset(s.timestampsMs()[i] - baseMs) + ":"
        + (s.text() != null ? "\"" + s.text() + "\"" : PromqlOracleAnswer.format(s.values()[i]));
  }

  /** @return the differences as one text, the first {@link #MAX_DIFFERENCES} of them */
  static String summarize(List<String> differences) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(MAX_DIFFERENCES, differences.size()); i++) {
      sb.append(i == 0 ? "" : "; ").append(differences.get(i));
    }
    if (differences.size() > MAX_DIFFERENCES) {
      sb.append("; and ").append(differences.size() - MAX_DIFFERENCES).append(" more");
    }
    return sb.toString();
  }
}
