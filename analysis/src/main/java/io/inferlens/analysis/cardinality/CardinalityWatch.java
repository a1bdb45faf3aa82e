package io.inferlens.analysis.cardinality;

import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnoser;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.MetricCardinality;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.StoreStats;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Watches the store's per-metric cardinality and raises {@link Cause#CARDINALITY_EXPLOSION}
 * findings by the {@link CardinalityRule}: the always-on evaluator calls {@link #findings} every
 * evaluation, and the watch takes a sample ({@link StoreStats#metricCardinality}) when the last
 * one is a sample interval old. It keeps the samples of the last window only (11 at the
 * defaults, each one entry per sampled metric, at most {@link CardinalityRule#maxMetrics}), and
 * one small record per open finding.
 *
 * <p>A finding is a store-level diagnosis: its target is the job (and the instance, when that
 * job's series of the metric all come from one) of the target holding most of the metric's
 * series, plus the label {@value #METRIC_LABEL} naming the metric, so that two metrics of one
 * job are two incidents and two alerts. Its one chain layer, {@code cardinality}, has the
 * evidence: series, targets, series per target and on the busiest target before and now, the
 * growth, the distinct
 * values of the label responsible (the non-target label whose distinct value count grew most)
 * and the series the per-metric limit refused within the window. Its id is stable for the
 * target and start; it is {@code critical} while the per-metric limit refuses series of the
 * metric within the window, else {@code warning}.
 *
 * <p>The samples live in memory: after a restart the open findings of the journal are handed
 * back ({@link #restore}) and held by their recorded "before" values, while new explosions are
 * seen once the window has samples again. Thread safe (synchronized).
 */
public final class CardinalityWatch {

  /** The target label naming the exploding metric. */
  public static final String METRIC_LABEL = "metric";
  /** The evidence signal of series per target; its baseline is the value before the finding. */
  static final String PER_TARGET = "series_per_target";
  /** The evidence signal of the busiest target's series; its baseline is the value before. */
  static final String BUSIEST = "busiest_target_series";
  /** The prefix of the evidence signal of the label responsible: {@code label_values:NAME}. */
  static final String LABEL_VALUES = "label_values:";

  private final StoreStats store;
  private final List<String> targetLabels;
  private final Set<String> targetLabelSet;
  private final CardinalityRule rule;
  private final Deque<Sample> ring = new ArrayDeque<>();
  private final Map<String, Open> open = new LinkedHashMap<>();
  private List<Diagnosis> resolvedLast = List.of();
  private long lastSampleMs = Long.MIN_VALUE;

  private record Sample(long timeMs, Map<String, MetricCardinality> byMetric) {}

  /** An open finding: what the metric was before it, and its latest diagnosis. */
  private static final class Open {
    Map<String, String> target;
    long startMs;
    long beforeMs;
    long seriesBefore;
    long targetsBefore;
    double perTargetBefore;
    /** Series of the busiest target before; NaN when restored from a record without it. */
    double busiestBefore = Double.NaN;
    String label;
    long labelValuesBefore;
    Diagnosis current;
  }

  /**
   * @param store the store sampled
   * @param targetLabels the grouping labels of a target (job, instance, model_name by default),
   *     the first one the job label and the second the instance label
   * @param rule the thresholds
   */
  public CardinalityWatch(StoreStats store, List<String> targetLabels, CardinalityRule rule) {
    this.store = store;
    this.targetLabels = List.copyOf(targetLabels);
    this.targetLabelSet = new HashSet<>(targetLabels);
    this.rule = rule;
  }

  /** @return the thresholds in force */
  public CardinalityRule rule() {
    return rule;
  }

  /**
   * Samples the store when the last sample is {@link CardinalityRule#sampleIntervalMs} old (or
   * none was taken), applies the rule, and answers the findings.
   *
   * @param nowMs the evaluation's clock, ms
   * @return the open findings (end null), then those the latest sample resolved (end = its time)
   * @throws StorageException if the store fails or is closed
   */
  public synchronized List<Diagnosis> findings(long nowMs) throws StorageException {
    if (lastSampleMs == Long.MIN_VALUE || nowMs - lastSampleMs >= rule.sampleIntervalMs()) {
      sample(nowMs);
    }
    List<Diagnosis> out = new ArrayList<>();
    for (Open o : open.values()) {
      out.add(o.current);
    }
    out.addAll(resolvedLast);
    return out;
  }

  /**
   * Takes the open {@link Cause#CARDINALITY_EXPLOSION} incidents of the journal back after a
   * restart: each holds, by the "before" values its evidence recorded, until a sample shows its
   * metric's series per target below the factor. Others (another cause, or evidence that does
   * not name the metric and its baseline) are ignored.
   *
   * @param journalOpen open incidents' diagnoses
   */
  public synchronized void restore(List<Diagnosis> journalOpen) {
    for (Diagnosis d : journalOpen) {
      String metric = d.target().get(METRIC_LABEL);
      if (d.cause() != Cause.CARDINALITY_EXPLOSION || d.endMs() != null || metric == null
          || open.containsKey(metric)) {
        continue;
      }
      Open o = new Open();
      o.target = d.target();
      o.startMs = d.startMs();
      o.beforeMs = d.startMs();
      o.current = d;
      for (ChainLayer layer : d.chain()) {
        for (Evidence e : layer.evidence()) {
          double before = e.baseline() == null ? Double.NaN : e.baseline();
          if (e.signal().equals(PER_TARGET)) {
            o.perTargetBefore = before;
          } else if (e.signal().equals(BUSIEST)) {
            o.busiestBefore = before;
          } else if (e.signal().equals("series")) {
            o.seriesBefore = (long) before;
          } else if (e.signal().equals("targets")) {
            o.targetsBefore = (long) before;
          } else if (e.signal().startsWith(LABEL_VALUES)) {
            o.label = e.signal().substring(LABEL_VALUES.length());
            o.labelValuesBefore = (long) before;
          }
        }
      }
      if (o.perTargetBefore > 0) {
        open.put(metric, o);
      }
    }
  }

  /** One sample: the open findings held or resolved, new ones opened. */
  private void sample(long nowMs) throws StorageException {
    Map<String, MetricCardinality> cur = new HashMap<>();
    for (MetricCardinality m : store.metricCardinality(targetLabels, rule.maxMetrics())) {
      cur.put(m.metric(), m);
    }
    lastSampleMs = nowMs;
    while (!ring.isEmpty() && ring.peekFirst().timeMs() < nowMs - rule.windowMs()) {
      ring.removeFirst();
    }
    Sample first = ring.peekFirst();
    long limit = store.seriesLimits().maxSeriesPerMetric();
    List<Diagnosis> resolved = new ArrayList<>();
    for (java.util.Iterator<Map.Entry<String, Open>> it = open.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, Open> e = it.next();
      Open o = e.getValue();
      MetricCardinality m = cur.get(e.getKey());
      if (m == null || !rule.holds(o.perTargetBefore, o.busiestBefore, m.series(), m.targets(),
          m.topTargetSeries())) {
        Diagnosis last = o.current;
        resolved.add(m == null ? last.withSpan(last.id(), last.startMs(), nowMs)
            : diagnosis(e.getKey(), o, m, first, nowMs, limit, nowMs));
        it.remove();
      } else {
        o.current = diagnosis(e.getKey(), o, m, first, nowMs, limit, null);
      }
    }
    if (first != null) {
      for (MetricCardinality m : cur.values()) {
        if (open.containsKey(m.metric())) {
          continue;
        }
        MetricCardinality then = first.byMetric().get(m.metric());
        long sThen = then == null ? 0 : then.series();
        long tThen = then == null ? 0 : then.targets();
        long bThen = then == null ? 0 : then.topTargetSeries();
        if (rule.exploding(sThen, tThen, bThen, m.series(), m.targets(), m.topTargetSeries(),
            limit) && labelExplodes(m, then, limit)) {
          open.put(m.metric(), opened(m, then, first, nowMs, limit));
        }
      }
    }
    resolvedLast = resolved;
    ring.addLast(new Sample(nowMs, cur));
  }

  private Open opened(MetricCardinality m, MetricCardinality then, Sample first, long nowMs,
      long limit) {
    Open o = new Open();
    o.beforeMs = first.timeMs();
    o.seriesBefore = then == null ? 0 : then.series();
    o.targetsBefore = then == null ? 0 : then.targets();
    o.perTargetBefore = rule.perTargetThen(o.seriesBefore, o.targetsBefore,
        rule.minNewSeries(limit));
    o.busiestBefore = rule.busiestThen(then == null ? 0 : then.topTargetSeries(),
        rule.minNewSeries(limit));
    // The growth began after the first kept sample that still had the window's start count.
    o.startMs = nowMs;
    for (Sample s : ring) {
      MetricCardinality x = s.byMetric().get(m.metric());
      if (s != first && x != null && x.series() > o.seriesBefore) {
        o.startMs = s.timeMs();
        break;
      }
    }
    o.label = responsible(m, then);
    o.labelValuesBefore = then == null || o.label == null ? 0
        : then.labelValues().getOrDefault(o.label, 0);
    Map<String, String> target = new LinkedHashMap<>();
    String job = m.topTarget().get(targetLabels.get(0));
    if (job != null) {
      target.put(targetLabels.get(0), job);
    }
    if (targetLabels.size() >= 2 && m.topJobSingleInstance() != null) {
      target.put(targetLabels.get(1), m.topJobSingleInstance());
    }
    target.put(METRIC_LABEL, m.metric());
    o.target = target;
    o.current = diagnosis(m.metric(), o, m, first, nowMs, limit, null);
    return o;
  }

  /**
   * @return whether the label responsible gained {@link CardinalityRule#labelExplodes} values
   *     since {@code then}; true when the metric has no label but target labels
   */
  private boolean labelExplodes(MetricCardinality now, MetricCardinality then, long limit) {
    String label = responsible(now, then);
    if (label == null) {
      return true;
    }
    long before = then == null ? 0 : then.labelValues().getOrDefault(label, 0);
    return rule.labelExplodes(before, now.labelValues().getOrDefault(label, 0), limit);
  }

  /**
   * The label responsible: of the labels that are not target labels, the one whose distinct
   * value count grew most since {@code then} (ties: more values now, then the smaller name); null
   * when the metric has no such label.
   */
  private String responsible(MetricCardinality now, MetricCardinality then) {
    String best = null;
    long bestGrowth = Long.MIN_VALUE;
    long bestNow = 0;
    for (Map.Entry<String, Integer> e : now.labelValues().entrySet()) {
      if (targetLabelSet.contains(e.getKey())) {
        continue;
      }
      long before = then == null ? 0 : then.labelValues().getOrDefault(e.getKey(), 0);
      long growth = e.getValue() - before;
      if (growth > bestGrowth || growth == bestGrowth && e.getValue() > bestNow) {
        best = e.getKey();
        bestGrowth = growth;
        bestNow = e.getValue();
      }
    }
    return best;
  }

  private Diagnosis diagnosis(String metric, Open o, MetricCardinality m, Sample first,
      long nowMs, long limit, Long endMs) {
    String sel = "{__name__=\"" + escape(metric) + "\"}";
    String window = window(Math.max(0, nowMs - o.beforeMs));
    double perNow = (double) m.series() / m.targets();
    double growth = perNow / o.perTargetBefore;
    long refused = refusedInWindow(m, first);
    List<Evidence> ev = new ArrayList<>();
    ev.add(new Evidence("series", m.series(), null, (double) o.seriesBefore, "series", window,
        o.seriesBefore, m.series(), "count(" + sel + ")", null));
    ev.add(new Evidence("targets", m.targets(), null, (double) o.targetsBefore, "targets",
        window, o.targetsBefore, m.targets(),
        "count(count by (" + String.join(", ", targetLabels) + ") (" + sel + "))", null));
    ev.add(new Evidence(PER_TARGET, perNow, rule.growthFactor() * o.perTargetBefore,
        o.perTargetBefore, "series", window, o.perTargetBefore, perNow, null, "ratio"));
    ev.add(new Evidence("growth", growth, rule.growthFactor(), 1.0, "x", window, 1.0, growth,
        null, "ratio"));
    if (!Double.isNaN(o.busiestBefore)) {
      ev.add(new Evidence(BUSIEST, m.topTargetSeries(), rule.growthFactor() * o.busiestBefore,
          o.busiestBefore, "series", window, o.busiestBefore, m.topTargetSeries(), null,
          "ratio"));
    }
    long labelNow = o.label == null ? 0 : m.labelValues().getOrDefault(o.label, 0);
    if (o.label != null) {
      ev.add(new Evidence(LABEL_VALUES + o.label, labelNow, null, (double) o.labelValuesBefore,
          "values", window, o.labelValuesBefore, labelNow,
          "count(count by (" + o.label + ") (" + sel + "))", null));
    }
    ev.add(new Evidence("refused_series", refused, limit > 0 ? (double) limit : null, null,
        "series", window, 0, refused, null, null));
    // A new metric's "before" per target is the rule's stand-in (minNewSeries / factor): not
    // a figure to show a person.
    StringBuilder summary = new StringBuilder(o.seriesBefore == 0
        ? String.format(Locale.ROOT, "%s is new with %,d active series on %,d target%s within %s"
            + " (%s per target)", metric, m.series(), m.targets(), m.targets() == 1 ? "" : "s",
            window, number(perNow))
        : String.format(Locale.ROOT,
            "%s grew from %,d to %,d active series in %s while its targets went from %,d to %,d"
                + " (%s to %s series per target, x%s)", metric, o.seriesBefore, m.series(),
            window, o.targetsBefore, m.targets(), number(o.perTargetBefore), number(perNow),
            number(growth)));
    if (o.seriesBefore > 0 && !Double.isNaN(o.busiestBefore)) {
      summary.append(String.format(Locale.ROOT, "; its busiest target (%s) went from %s to %,d",
          labelsText(m.topTarget()), number(o.busiestBefore), m.topTargetSeries()));
    }
    if (o.label != null) {
      summary.append(String.format(Locale.ROOT, "; label %s went from %,d to %,d values",
          o.label, o.labelValuesBefore, labelNow));
    }
    if (refused > 0) {
      summary.append(String.format(Locale.ROOT,
          "; %,d new series refused by --limits.max-series-per-metric=%d", refused, limit));
    }
    summary.append(o.label != null
        ? "; drop or relabel " + o.label + " at the sender (metric_relabel_configs, labeldrop)."
        : "; drop the metric at the sender (metric_relabel_configs, action: drop).");
    String id = new Target(o.target).id() + "/cardinality_explosion/" + o.startMs;
    return new Diagnosis(id, Cause.CARDINALITY_EXPLOSION, refused > 0 ? "critical" : "warning",
        o.target, o.startMs, endMs, summary.toString(),
        List.of(new ChainLayer("cardinality", endMs == null ? "exploding" : "normal", ev)),
        recommendations(metric, o.label), false);
  }

  /** @return a span for people: whole minutes from a minute on, else whole seconds */
  static String window(long ms) {
    return ms >= 60_000 ? Diagnoser.duration(Math.round(ms / 60_000.0) * 60_000)
        : Diagnoser.duration(Math.round(ms / 1000.0) * 1000);
  }

  /** Refusals of the metric's new series since the window's first sample (a reset: all). */
  private static long refusedInWindow(MetricCardinality m, Sample first) {
    MetricCardinality then = first == null ? null : first.byMetric().get(m.metric());
    long before = then == null ? 0 : then.refusedPerMetric();
    return m.refusedPerMetric() >= before ? m.refusedPerMetric() - before : m.refusedPerMetric();
  }

  /**
   * @return the finding's recommendations with Prometheus configuration to paste: labeldrop in
   *     the scrape job's {@code metric_relabel_configs}, or the metric dropped from
   *     {@code remote_write} only, and why labeldrop may not be enough
   */
  static List<String> recommendations(String metric, String label) {
    String re = regexQuote(metric);
    List<String> out = new ArrayList<>();
    if (label != null) {
      out.add("drop the label " + label + " at the sender, in the scrape job that exposes "
          + metric + ":\nmetric_relabel_configs:\n  - action: labeldrop\n    regex: "
          + regexQuote(label));
    }
    out.add("or stop sending " + metric + " to InferLens only, in Prometheus's remote_write"
        + " section:\nwrite_relabel_configs:\n  - source_labels: [__name__]\n    regex: '" + re
        + "'\n    action: drop");
    out.add("labeldrop merges series that differed only by that label (duplicate samples if"
        + " nothing else tells them apart): a per-user or per-request label belongs in logs or"
        + " traces, so remove it from the instrumentation, or aggregate it away with a recording"
        + " rule and send that");
    return out;
  }

  private static String labelsText(Map<String, String> labels) {
    StringBuilder sb = new StringBuilder();
    labels.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append('=')
        .append(v));
    return sb.toString();
  }

  private static String regexQuote(String s) {
    return s.replaceAll("([\\\\.^$|?*+()\\[\\]{}])", "\\\\$1").replace("'", "''");
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return String.format(Locale.ROOT, "%,d", (long) v);
    }
    return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : "%.1f", v);
  }
}
