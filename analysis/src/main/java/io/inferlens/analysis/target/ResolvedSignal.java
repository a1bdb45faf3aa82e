package io.inferlens.analysis.target;

import io.inferlens.analysis.catalog.MetricSource;
import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SourceKind;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Signal} bound to the concrete series that provide it for one {@link Target}: the chosen
 * catalog source and the matchers that scope any of its series names to the target.
 *
 * @param signal the signal
 * @param source the catalog source chosen by {@link SignalResolver}
 * @param scopeMatchers the matchers, without {@code __name__}, that select this target's series of
 *     any of the source's names: the target's grouping labels (engines), the host or consumer-group
 *     join (GPU, Kafka), then the source's extra matchers. Unmodifiable.
 * @param fallback the signal bound to the deprecated source that {@code source} replaces, when
 *     the target has series of it from before its first series of {@code source} (an engine
 *     upgraded in place across the rename, e.g. vLLM 0.6's {@code vllm:gpu_cache_usage_perc}
 *     before 0.10's {@code vllm:kv_cache_usage_perc}): its value is read at the steps where
 *     {@code source} has none. Null otherwise, and always null on the fallback itself.
 */
public record ResolvedSignal(Signal signal, MetricSource source, List<Matcher> scopeMatchers,
    ResolvedSignal fallback) {

  /**
   * The three series names of a histogram source.
   *
   * @param bucketName {@code <name>_bucket}, with the {@code le} label
   * @param sumName {@code <name>_sum}
   * @param countName {@code <name>_count}
   */
  public record HistogramSeries(String bucketName, String sumName, String countName) {}

  /**
   * Copies the matcher list.
   *
   * @throws IllegalArgumentException if the fallback is of another signal or has a fallback
   */
  public ResolvedSignal {
    Objects.requireNonNull(signal, "signal");
    Objects.requireNonNull(source, "source");
    scopeMatchers = List.copyOf(scopeMatchers);
    if (fallback != null && (fallback.signal != signal || fallback.fallback != null)) {
      throw new IllegalArgumentException("fallback of " + signal + " must be a " + signal
          + " signal without a fallback of its own");
    }
  }

  /**
   * A signal without a fallback.
   *
   * @param signal the signal
   * @param source the chosen source
   * @param scopeMatchers see the record components
   */
  public ResolvedSignal(Signal signal, MetricSource source, List<Matcher> scopeMatchers) {
    this(signal, source, scopeMatchers, null);
  }

  /**
   * The selector of the source's main series: {@code <name>_bucket} for a histogram, the name (the
   * numerator) otherwise, e.g. {@code __name__="vllm:e2e_request_latency_seconds_bucket",
   * job="vllm", instance="vllm-a:8000", model_name="Qwen/Qwen3-32B-FP8"}.
   *
   * @return {@code __name__} equality first, then {@link #scopeMatchers()}; fresh list
   */
  public List<Matcher> matchers() {
    return selector(source.kind() == SourceKind.HISTOGRAM ? source.bucketName() : source.name());
  }

  /**
   * @param metricName any series name, e.g. {@link HistogramSeries#countName()}
   * @return {@code __name__="metricName"} followed by {@link #scopeMatchers()}; fresh list
   */
  public List<Matcher> selector(String metricName) {
    List<Matcher> out = new ArrayList<>(scopeMatchers.size() + 1);
    out.add(Matcher.eq(LabelSet.METRIC_NAME, metricName));
    out.addAll(scopeMatchers);
    return out;
  }

  /** @return the bucket, sum and count names for a {@link SourceKind#HISTOGRAM} source, else empty */
  public Optional<HistogramSeries> histogram() {
    if (source.kind() != SourceKind.HISTOGRAM) {
      return Optional.empty();
    }
    return Optional.of(new HistogramSeries(source.bucketName(), source.sumName(), source.countName()));
  }

  /**
   * @return one selector per {@link MetricSource#denominators()} name, in order; empty for sources
   *     without denominators
   */
  public List<List<Matcher>> denominatorSelectors() {
    List<List<Matcher>> out = new ArrayList<>();
    for (String d : source.denominators()) {
      out.add(selector(d));
    }
    return out;
  }

  /** @return the metric name the source was chosen by, e.g. {@code vllm:kv_cache_usage_perc} */
  public String metricName() {
    return source.name();
  }
}
