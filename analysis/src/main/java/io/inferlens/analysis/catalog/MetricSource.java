package io.inferlens.analysis.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One concrete way to read a {@link Signal}: a metric family of one stack and how to turn it into
 * the signal's unit.
 *
 * @param name the metric name; for {@link SourceKind#HISTOGRAM} the base name without
 *     {@code _bucket}/{@code _sum}/{@code _count}; for {@link SourceKind#GAUGE_RATIO} and a
 *     {@link SourceKind#COUNTER} with denominators, the numerator
 * @param kind how the series are read
 * @param stack the {@link Stack#name()} it belongs to
 * @param matchers extra equality matchers, label → value, e.g. Triton
 *     {@code request_type="waiting"}; sorted, unmodifiable, may be empty
 * @param denominators metric names summed as the denominator: required for
 *     {@link SourceKind#GAUGE_RATIO}, optional for {@link SourceKind#COUNTER} (rate ratio), empty
 *     otherwise; the same extra matchers and target scope apply to them
 * @param scale factor applied to the value (or ratio) to reach the signal's unit, e.g. {@code 1e-6}
 *     for Triton's µs counters; finite and &gt; 0
 * @param aggregation how several selected series combine
 * @param ignoredValues sample values to drop before aggregating, e.g. Kafka lag {@code -1}
 *     ("no committed offset"); unmodifiable, may be empty
 * @param deprecated whether the name is an old spelling kept for older versions
 * @param replacedBy for a deprecated source, the name of the source that replaces it (in the same
 *     signal); the resolver never picks a deprecated source while its replacement has series.
 *     Empty when not deprecated or when nothing replaces it.
 */
public record MetricSource(
    String name,
    SourceKind kind,
    String stack,
    Map<String, String> matchers,
    List<String> denominators,
    double scale,
    Aggregation aggregation,
    List<Double> ignoredValues,
    boolean deprecated,
    String replacedBy) {

  /** Copies the collections and checks the invariants the catalog loader also checks. */
  public MetricSource {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(stack, "stack");
    Objects.requireNonNull(aggregation, "aggregation");
    Objects.requireNonNull(replacedBy, "replacedBy");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("source with an empty name");
    }
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("source " + name + ": scale must be finite and > 0, got " + scale);
    }
    if (kind == SourceKind.GAUGE_RATIO && denominators.isEmpty()) {
      throw new IllegalArgumentException("source " + name + ": GAUGE_RATIO needs denominators");
    }
    if ((kind == SourceKind.HISTOGRAM || kind == SourceKind.GAUGE) && !denominators.isEmpty()) {
      throw new IllegalArgumentException("source " + name + ": " + kind + " takes no denominators");
    }
    if (!replacedBy.isEmpty() && !deprecated) {
      throw new IllegalArgumentException("source " + name + ": replacedBy without deprecated");
    }
    matchers = java.util.Collections.unmodifiableMap(new TreeMap<>(matchers));
    denominators = List.copyOf(denominators);
    ignoredValues = List.copyOf(ignoredValues);
  }

  /**
   * A plain source: no extra matchers, no denominators, scale 1, {@link Aggregation#SUM}, not
   * deprecated.
   *
   * @param name metric (base) name
   * @param kind how it is read
   * @param stack stack name
   * @return the source
   */
  public static MetricSource of(String name, SourceKind kind, String stack) {
    return new MetricSource(name, kind, stack, Map.of(), List.of(), 1.0, Aggregation.SUM,
        List.of(), false, "");
  }

  /** @return {@code <name>_bucket}, meaningful for {@link SourceKind#HISTOGRAM} */
  public String bucketName() {
    return name + "_bucket";
  }

  /** @return {@code <name>_sum}, meaningful for {@link SourceKind#HISTOGRAM} */
  public String sumName() {
    return name + "_sum";
  }

  /** @return {@code <name>_count}, meaningful for {@link SourceKind#HISTOGRAM} */
  public String countName() {
    return name + "_count";
  }

  /**
   * The concrete series names this source reads: the three histogram series, or the name and the
   * denominators (without duplicates), in that order.
   *
   * @return fresh list, not empty
   */
  public List<String> seriesNames() {
    List<String> out = new ArrayList<>();
    if (kind == SourceKind.HISTOGRAM) {
      out.add(bucketName());
      out.add(sumName());
      out.add(countName());
    } else {
      out.add(name);
      for (String d : denominators) {
        if (!out.contains(d)) {
          out.add(d);
        }
      }
    }
    return out;
  }

  /**
   * Whether two sources read the same series: same name, kind, stack and extra matchers. A user
   * catalog entry that is the same source as a built-in one replaces it.
   *
   * @param other another source
   * @return whether they select the same series
   */
  public boolean sameSeriesAs(MetricSource other) {
    return name.equals(other.name) && kind == other.kind && stack.equals(other.stack)
        && matchers.equals(other.matchers);
  }
}
