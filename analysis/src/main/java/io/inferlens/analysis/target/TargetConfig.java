package io.inferlens.analysis.target;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How engine series group into {@link Target}s and how GPU and upstream-queue series join them.
 *
 * <p>Joining (see {@link SignalResolver}): engine and gateway series match the target's grouping
 * labels. GPU series (dcgm-exporter) belong to the target whose host — the {@link #hostLabel()}
 * value without {@code :port} — equals one of the {@link #gpuHostLabels()} of the series
 * ({@code Hostname} on released dcgm-exporter 4.x, {@code hostname} after its PR #655), or else the
 * host of the series' own {@link #hostLabel()} (dcgm-exporter scraped on the engine's host).
 * Upstream series (kafka_exporter) belong to a target through {@link #consumerGroupTargets()}
 * when it names the target, or else by the host of their {@link #hostLabel()}.
 *
 * @param groupingLabels labels whose value tuple defines a target, in order, not empty; default
 *     {@code job}, {@code instance}, {@code model_name}
 * @param hostLabel the label holding {@code host[:port]}; default {@code instance}
 * @param modelLabel the grouping label naming the served model, used by
 *     {@link TargetDiscovery#versionHistory}; default {@code model_name}
 * @param versionLabel an engine label naming a model version (Triton's {@code version}), reported
 *     by {@link TargetDiscovery#versionHistory} next to the model; default {@code version}
 * @param gpuHostLabels labels of GPU series compared with the target host, tried in order;
 *     default {@code Hostname}, {@code hostname}
 * @param consumerGroupLabel the Kafka consumer-group label; default {@code consumergroup}
 * @param consumerGroupTargets consumer group → the target it feeds, given as a {@link Target#id()}
 *     or as the target's host; empty by default (join by host)
 */
public record TargetConfig(
    List<String> groupingLabels,
    String hostLabel,
    String modelLabel,
    String versionLabel,
    List<String> gpuHostLabels,
    String consumerGroupLabel,
    Map<String, String> consumerGroupTargets) {

  /** Copies the collections and checks them. */
  public TargetConfig {
    groupingLabels = List.copyOf(groupingLabels);
    gpuHostLabels = List.copyOf(gpuHostLabels);
    consumerGroupTargets = Map.copyOf(consumerGroupTargets);
    Objects.requireNonNull(hostLabel, "hostLabel");
    Objects.requireNonNull(modelLabel, "modelLabel");
    Objects.requireNonNull(versionLabel, "versionLabel");
    Objects.requireNonNull(consumerGroupLabel, "consumerGroupLabel");
    if (groupingLabels.isEmpty()) {
      throw new IllegalArgumentException("at least one grouping label is needed");
    }
    if (groupingLabels.stream().anyMatch(String::isEmpty) || hostLabel.isEmpty()
        || consumerGroupLabel.isEmpty()) {
      throw new IllegalArgumentException("empty label name in " + groupingLabels + ", hostLabel \""
          + hostLabel + "\" or consumerGroupLabel \"" + consumerGroupLabel + "\"");
    }
    if (groupingLabels.stream().distinct().count() != groupingLabels.size()) {
      throw new IllegalArgumentException("duplicate grouping label in " + groupingLabels);
    }
  }

  /** @return job/instance/model_name grouping, host from {@code instance}, DCGM {@code Hostname}/{@code hostname}, no consumer-group mapping */
  public static TargetConfig defaults() {
    return new TargetConfig(List.of("job", "instance", "model_name"), "instance", "model_name",
        "version", List.of("Hostname", "hostname"), "consumergroup", Map.of());
  }

  /**
   * @param mapping consumer group → target id or host
   * @return a copy with that mapping
   */
  public TargetConfig withConsumerGroupTargets(Map<String, String> mapping) {
    return new TargetConfig(groupingLabels, hostLabel, modelLabel, versionLabel, gpuHostLabels,
        consumerGroupLabel, mapping);
  }

  /**
   * @param labels the grouping labels, in order
   * @return a copy with those grouping labels
   */
  public TargetConfig withGroupingLabels(List<String> labels) {
    return new TargetConfig(labels, hostLabel, modelLabel, versionLabel, gpuHostLabels,
        consumerGroupLabel, consumerGroupTargets);
  }

  /**
   * @param labels GPU series labels compared with the target host, in order
   * @return a copy with those labels
   */
  public TargetConfig withGpuHostLabels(List<String> labels) {
    return new TargetConfig(groupingLabels, hostLabel, modelLabel, versionLabel, labels,
        consumerGroupLabel, consumerGroupTargets);
  }

  /**
   * The host part of an {@code instance} value: {@code vllm-a:8000 → vllm-a},
   * {@code [fd00::1]:8000 → fd00::1}, {@code 10.0.0.7 → 10.0.0.7}; a value without a port is
   * returned as is (an unbracketed IPv6 address too).
   *
   * @param instance a {@code host[:port]} value, may be empty
   * @return the host, empty for an empty value
   */
  public static String hostOf(String instance) {
    if (instance.startsWith("[")) {
      int close = instance.indexOf(']');
      return close < 0 ? instance : instance.substring(1, close);
    }
    int colon = instance.lastIndexOf(':');
    if (colon < 0 || instance.indexOf(':') != colon) {
      return instance; // no port, or an unbracketed IPv6 address
    }
    String port = instance.substring(colon + 1);
    return !port.isEmpty() && port.chars().allMatch(Character::isDigit)
        ? instance.substring(0, colon) : instance;
  }
}
