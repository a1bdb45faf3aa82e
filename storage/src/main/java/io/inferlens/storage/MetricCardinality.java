package io.inferlens.storage;

import java.util.Map;

/**
 * The cardinality of one metric name's active series at one moment, as sampled by
 * {@link StoreStats#metricCardinality}: what a cardinality watch compares between two moments to
 * tell a label explosion (series growing faster than targets) from a growing fleet.
 *
 * @param metric the metric name ({@code __name__}); "" for series without one
 * @param series active series of the metric, ≥ 1
 * @param targets distinct combinations of the target labels' values among those series (a
 *     missing label counts as ""), 1 ≤ targets ≤ series
 * @param labelValues label name → distinct values among those series, {@code __name__}
 *     excluded; names in UTF-8 order; each value 1..series
 * @param refusedPerMetric how many times {@code --limits.max-series-per-metric} refused a new
 *     series of this metric since its counter started (once per refused series per append call:
 *     a series refused in three writes counts three times); a counter lives while the metric has
 *     active series, so a smaller value than an earlier sample's means it restarted
 * @param topTarget the target label values (as named by the sample's target labels, absent ones
 *     left out) of the target holding the most series of this metric (ties: the smaller
 *     combination in UTF-8 order)
 * @param topTargetSeries that target's series, 1..series
 * @param topJobSingleInstance the one instance label value among the series of
 *     {@code topTarget}'s job (its first target label), or null when that job's series come from
 *     several instances or the sample has fewer than two target labels
 */
public record MetricCardinality(String metric, long series, long targets,
    Map<String, Integer> labelValues, long refusedPerMetric, Map<String, String> topTarget,
    long topTargetSeries, String topJobSingleInstance) {

  /** Copies the maps. */
  public MetricCardinality {
    java.util.TreeMap<String, Integer> sorted = new java.util.TreeMap<>(LabelSet.UTF8_ORDER);
    sorted.putAll(labelValues);
    labelValues = java.util.Collections.unmodifiableMap(sorted);
    topTarget = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(topTarget));
  }
}
