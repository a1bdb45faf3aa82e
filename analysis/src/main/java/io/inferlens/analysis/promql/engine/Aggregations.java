package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.ast.AggregationOp;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.storage.LabelSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.regex.Pattern;

/**
 * PromQL aggregation operators at one step, as Prometheus 2.42's {@code aggregation}
 * ({@code promql/engine.go}): groups by the {@code by} labels (only those, {@code __name__} too if
 * listed) or by every label but the {@code without} ones and the name; groups come out in the
 * order their first sample arrived. {@code avg} keeps an incremental mean that survives
 * infinities; {@code stddev}/{@code stdvar} are the population figures by Welford's method;
 * {@code min}/{@code max} replace a NaN by any later value; {@code topk}/{@code bottomk} keep the
 * samples' full label sets and treat NaN as the smallest/greatest; {@code quantile} interpolates
 * between the two nearest ranks ({@code promql/quantile.go} {@code quantile}); {@code count_values}
 * labels each distinct value as Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}.
 */
final class Aggregations {

  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private Aggregations() {}

  /**
   * Grouping keys and output label sets per input label set, kept across the steps of one
   * aggregation node (the input series recur at every step, as Prometheus's seriesHelper keeps
   * their grouping key). Keyed by identity: the label sets are the input series' own objects.
   */
  static final class GroupCache {
    private final java.util.IdentityHashMap<LabelSet, Object[]> entries =
        new java.util.IdentityHashMap<>();
  }

  private static final class Group {
    final LabelSet labels;
    double value;
    double mean;
    long count;
    PriorityQueue<Sample> heap;
    List<Sample> all;

    Group(LabelSet labels, double value) {
      this.labels = labels;
      this.value = value;
      this.mean = value;
      this.count = 1;
    }
  }

  /**
   * @param op the operator
   * @param grouping the {@code by}/{@code without} labels, sorted
   * @param without true for {@code without}
   * @param param the numeric parameter of topk, bottomk, quantile (NaN otherwise)
   * @param stringParam the label of count_values (null otherwise)
   * @param vector the input samples at this step
   * @param ts the step time, milliseconds
   * @return the output samples
   * @throws QueryException {@code EXECUTION} for a k that overflows int64 or an invalid
   *     count_values label name
   */
  static List<Sample> aggregate(AggregationOp op, List<String> grouping, boolean without,
      double param, String stringParam, List<Sample> vector, long ts) {
    return aggregate(op, grouping, without, param, stringParam, vector, ts, null);
  }

  /**
   * As {@link #aggregate(AggregationOp, List, boolean, double, String, List, long)}, with grouping
   * keys remembered across steps.
   *
   * @param cache the node's cache, or null
   */
  static List<Sample> aggregate(AggregationOp op, List<String> grouping, boolean without,
      double param, String stringParam, List<Sample> vector, long ts, GroupCache cache) {
    long k = 0;
    if (op == AggregationOp.TOPK || op == AggregationOp.BOTTOMK) {
      if (!(param >= -9.223372036854776E18 && param <= 9.223372036854776E18)) {
        throw QueryException.execution("Scalar value %s overflows int64", Printer.number(param));
      }
      k = (long) param;
      if (k < 1) {
        return List.of();
      }
    }
    List<String> groupBy = grouping;
    if (op == AggregationOp.COUNT_VALUES) {
      if (!LABEL_NAME.matcher(stringParam).matches()) {
        throw QueryException.execution("invalid label name \"%s\"", stringParam);
      }
      if (!without) {
        groupBy = new ArrayList<>(grouping);
        groupBy.add(stringParam);
      }
    }
    Map<List<String>, Group> groups = new HashMap<>();
    List<Group> ordered = new ArrayList<>();
    for (Sample s : vector) {
      LabelSet metric = s.labels();
      if (op == AggregationOp.COUNT_VALUES) {
        metric = new LabelBuilder(metric).set(stringParam, Printer.number(s.value())).build();
      }
      Object[] entry = cache == null || op == AggregationOp.COUNT_VALUES ? null
          : cache.entries.get(metric);
      if (entry == null) {
        entry = new Object[] {without ? LabelBuilder.keyWithout(metric, groupBy)
            : LabelBuilder.keyOn(metric, groupBy), null};
        if (cache != null && op != AggregationOp.COUNT_VALUES) {
          cache.entries.put(metric, entry);
        }
      }
      @SuppressWarnings("unchecked")
      List<String> key = (List<String>) entry[0];
      Group g = groups.get(key);
      if (g == null) {
        LabelSet labels = (LabelSet) entry[1];
        if (labels == null) {
          labels = without
              ? new LabelBuilder(metric).del(groupBy).del(LabelSet.METRIC_NAME).build()
              : new LabelBuilder(metric).keep(groupBy).build();
          entry[1] = labels;
        }
        g = new Group(labels, s.value());
        groups.put(key, g);
        ordered.add(g);
        switch (op) {
          case STDDEV, STDVAR -> g.value = 0;
          case GROUP -> g.value = 1;
          case TOPK -> {
            g.heap = new PriorityQueue<>(Aggregations::topkOrder);
            g.heap.add(s);
          }
          case BOTTOMK -> {
            g.heap = new PriorityQueue<>(Aggregations::bottomkOrder);
            g.heap.add(s);
          }
          case QUANTILE -> {
            g.all = new ArrayList<>();
            g.all.add(s);
          }
          default -> { }
        }
        continue;
      }
      double v = s.value();
      switch (op) {
        case SUM -> g.value += v;
        case AVG -> {
          g.count++;
          if (Double.isInfinite(g.mean)) {
            if (Double.isInfinite(v) && (g.mean > 0) == (v > 0)) {
              break; // Inf of the same sign: the mean is already right
            }
            if (!Double.isInfinite(v) && !Double.isNaN(v)) {
              break; // a finite value does not move an infinite mean
            }
          }
          g.mean += v / g.count - g.mean / g.count;
        }
        case MAX -> {
          if (g.value < v || Double.isNaN(g.value)) {
            g.value = v;
          }
        }
        case MIN -> {
          if (g.value > v || Double.isNaN(g.value)) {
            g.value = v;
          }
        }
        case COUNT, COUNT_VALUES -> g.count++;
        case STDDEV, STDVAR -> {
          g.count++;
          double delta = v - g.mean;
          g.mean += delta / g.count;
          g.value += delta * (v - g.mean);
        }
        case TOPK, BOTTOMK -> {
          Sample top = g.heap.peek();
          boolean better = op == AggregationOp.TOPK
              ? top.value() < v || Double.isNaN(top.value())
              : top.value() > v || Double.isNaN(top.value());
          if (g.heap.size() < k || better) {
            if (g.heap.size() == k) {
              g.heap.poll();
            }
            g.heap.add(s);
          }
        }
        case QUANTILE -> g.all.add(s);
        default -> { }
      }
    }
    List<Sample> out = new ArrayList<>(ordered.size());
    for (Group g : ordered) {
      double value = g.value;
      switch (op) {
        case AVG -> value = g.mean;
        case COUNT, COUNT_VALUES -> value = g.count;
        case STDVAR -> value = g.value / g.count;
        case STDDEV -> value = Math.sqrt(g.value / g.count);
        case QUANTILE -> {
          double[] values = new double[g.all.size()];
          for (int i = 0; i < values.length; i++) {
            values[i] = g.all.get(i).value();
          }
          value = quantile(param, values);
        }
        case TOPK, BOTTOMK -> {
          List<Sample> kept = new ArrayList<>(g.heap);
          Comparator<Sample> order = op == AggregationOp.TOPK
              ? Aggregations::topkOrder : Aggregations::bottomkOrder;
          kept.sort(order.reversed());
          for (Sample s : kept) {
            out.add(new Sample(s.labels(), ts, s.value()));
          }
          continue;
        }
        default -> { }
      }
      out.add(new Sample(g.labels, ts, value));
    }
    return out;
  }

  /** Heap order of topk: the smallest on top, NaN smallest of all (Go vectorByValueHeap). */
  private static int topkOrder(Sample a, Sample b) {
    return lessByValue(a.value(), b.value()) ? -1 : lessByValue(b.value(), a.value()) ? 1 : 0;
  }

  /** Heap order of bottomk: the greatest on top, NaN on top of all (vectorByReverseValueHeap). */
  private static int bottomkOrder(Sample a, Sample b) {
    return lessByReverse(a.value(), b.value()) ? -1 : lessByReverse(b.value(), a.value()) ? 1 : 0;
  }

  private static boolean lessByValue(double a, double b) {
    if (Double.isNaN(a)) {
      return !Double.isNaN(b);
    }
    return a < b;
  }

  private static boolean lessByReverse(double a, double b) {
    if (Double.isNaN(a)) {
      return !Double.isNaN(b);
    }
    return a > b;
  }

  /**
   * Prometheus's {@code quantile} ({@code promql/quantile.go}): rank {@code q (n - 1)} between
   * the sorted values, linearly interpolated; -Inf for q &lt; 0, +Inf for q &gt; 1, NaN for no
   * values. NaN values sort first.
   *
   * @param q the quantile
   * @param values the values; sorted in place
   * @return the quantile
   */
  static double quantile(double q, double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    if (q < 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (q > 1) {
      return Double.POSITIVE_INFINITY;
    }
    if (Double.isNaN(q)) {
      return Double.NaN;
    }
    sortNaNFirst(values);
    double n = values.length;
    double rank = q * (n - 1);
    double lower = Math.max(0, Math.floor(rank));
    double upper = Math.min(n - 1, lower + 1);
    double weight = rank - Math.floor(rank);
    return values[(int) lower] * (1 - weight) + values[(int) upper] * weight;
  }

  /** Sorts ascending with NaN first, as Go's sort with {@code isNaN(a) || a < b}. */
  static void sortNaNFirst(double[] values) {
    java.util.Arrays.sort(values); // Java puts NaN last
    int nans = 0;
    for (int i = values.length - 1; i >= 0 && Double.isNaN(values[i]); i--) {
      nans++;
    }
    if (nans > 0 && nans < values.length) {
      System.arraycopy(values, 0, values, nans, values.length - nans);
      java.util.Arrays.fill(values, 0, nans, Double.NaN);
    }
  }
}
