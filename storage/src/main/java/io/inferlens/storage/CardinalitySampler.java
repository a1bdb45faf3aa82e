package io.inferlens.storage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Computes {@link MetricCardinality} per metric name: the per-metric counters of
 * {@link ActiveSeries} (one map copy under the append lock) choose the metrics, then one pass over
 * the series slots ({@link SeriesIndex#slice}, the read lock held per slice of 8,192 only, never
 * the append lock) counts, per chosen metric, its active series, distinct target-label
 * combinations and distinct values per label. Cost: one hash-set insertion per label of each
 * active series (about 40 ms for 100,000 series of 6 to 7 labels, docs/BENCHMARKS.md); memory while
 * it runs: one set entry per distinct (metric, label, value), freed when it returns. Series that
 * become active or inactive during the pass may or may not be counted: a sample, not a snapshot.
 */
final class CardinalitySampler {

  private static final int SLICE = 8_192;
  /** Marks a job whose series come from several instances. */
  private static final String MANY = new String("many");

  private final StoreCore core;

  CardinalitySampler(StoreCore core) {
    this.core = core;
  }

  /** One label's distinct values and the value last added, which consecutive series repeat. */
  private static final class Values {
    final Set<String> set = new HashSet<>();
    String last;

    void add(String v) {
      if (!v.equals(last)) {
        set.add(v);
        last = v;
      }
    }
  }

  /** One metric's counts while the pass runs. */
  private static final class Acc {
    long series;
    final Map<String, Values> values = new HashMap<>();
    final Map<List<String>, long[]> perTarget = new HashMap<>();
    /** The target of the previous series and its counter: series of a target are adjacent. */
    List<String> lastTarget;
    long[] lastTargetCount;
    /** Job value → its one instance value, or {@link #MANY}. */
    final Map<String, String> instanceOfJob = new HashMap<>();
  }

  /**
   * @param targetLabels the label names whose value combination is a target (job, instance,
   *     model_name by default), at least one
   * @param maxMetrics most metric names reported, ≥ 1: those with the most active series (ties:
   *     the smaller name)
   * @return one entry per reported metric with active series, most series first, then by name
   * @throws IllegalArgumentException if {@code targetLabels} is empty or {@code maxMetrics} &lt; 1
   */
  List<MetricCardinality> sample(List<String> targetLabels, int maxMetrics) {
    if (targetLabels.isEmpty() || maxMetrics < 1) {
      throw new IllegalArgumentException("targetLabels must not be empty (" + targetLabels
          + ") and maxMetrics must be at least 1 (" + maxMetrics + ")");
    }
    Map<String, long[]> counts = core.active.metricCounts();
    List<Map.Entry<String, long[]>> ranked = new ArrayList<>(counts.entrySet());
    ranked.removeIf(e -> e.getValue()[0] <= 0);
    ranked.sort(Comparator.<Map.Entry<String, long[]>>comparingLong(e -> -e.getValue()[0])
        .thenComparing(Map.Entry::getKey, LabelSet.UTF8_ORDER));
    Map<String, Acc> accs = new HashMap<>();
    for (int i = 0; i < Math.min(maxMetrics, ranked.size()); i++) {
      accs.put(ranked.get(i).getKey(), new Acc());
    }
    String[] names = targetLabels.toArray(new String[0]);
    SeriesRef[] slice = new SeriesRef[SLICE];
    for (int from = 0, n; (n = core.index.slice(from, slice)) > 0; from += n) {
      for (int i = 0; i < n; i++) {
        SeriesRef ref = slice[i];
        if (ref == null || !ref.active) {
          continue;
        }
        LabelSet labels = ref.labels;
        String metric = labels.metricName();
        Acc acc = accs.get(metric == null ? "" : metric);
        if (acc == null) {
          continue;
        }
        acc.series++;
        for (int l = 0; l < labels.size(); l++) {
          String name = labels.name(l);
          if (!LabelSet.METRIC_NAME.equals(name)) {
            acc.values.computeIfAbsent(name, k -> new Values()).add(labels.value(l));
          }
        }
        if (acc.lastTarget != null && sameTarget(labels, names, acc.lastTarget)) {
          acc.lastTargetCount[0]++;
          continue;
        }
        String[] key = new String[names.length];
        for (int t = 0; t < names.length; t++) {
          String v = labels.get(names[t]);
          key[t] = v == null ? "" : v;
        }
        acc.lastTarget = Arrays.asList(key);
        acc.lastTargetCount = acc.perTarget.computeIfAbsent(acc.lastTarget, k -> new long[1]);
        acc.lastTargetCount[0]++;
        if (names.length >= 2) {
          acc.instanceOfJob.merge(key[0], key[1], (a, b) -> a.equals(b) ? a : MANY);
        }
      }
    }
    List<MetricCardinality> out = new ArrayList<>(accs.size());
    for (Map.Entry<String, long[]> e : ranked) {
      Acc acc = accs.get(e.getKey());
      if (acc == null || acc.series == 0) {
        continue;
      }
      out.add(result(e.getKey(), acc, e.getValue()[1], names));
    }
    out.sort(Comparator.comparingLong((MetricCardinality m) -> -m.series())
        .thenComparing(MetricCardinality::metric, LabelSet.UTF8_ORDER));
    return out;
  }

  private static MetricCardinality result(String metric, Acc acc, long refused, String[] names) {
    Map<String, Integer> values = new HashMap<>();
    acc.values.forEach((k, v) -> values.put(k, v.set.size()));
    List<String> top = null;
    long topSeries = 0;
    for (Map.Entry<List<String>, long[]> t : acc.perTarget.entrySet()) {
      long s = t.getValue()[0];
      if (s > topSeries || s == topSeries && compare(t.getKey(), top) < 0) {
        top = t.getKey();
        topSeries = s;
      }
    }
    Map<String, String> topTarget = new LinkedHashMap<>();
    for (int t = 0; t < names.length; t++) {
      if (!top.get(t).isEmpty()) {
        topTarget.put(names[t], top.get(t));
      }
    }
    String single = null;
    if (names.length >= 2) {
      String inst = acc.instanceOfJob.get(top.get(0));
      single = inst == null || inst == MANY || inst.isEmpty() ? null : inst;
    }
    return new MetricCardinality(metric, acc.series, acc.perTarget.size(), values, refused,
        topTarget, topSeries, single);
  }

  private static boolean sameTarget(LabelSet labels, String[] names, List<String> target) {
    for (int t = 0; t < names.length; t++) {
      String v = labels.get(names[t]);
      if (!(v == null ? "" : v).equals(target.get(t))) {
        return false;
      }
    }
    return true;
  }

  private static int compare(List<String> a, List<String> b) {
    for (int i = 0; i < a.size(); i++) {
      int c = LabelSet.compareUtf8(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}
