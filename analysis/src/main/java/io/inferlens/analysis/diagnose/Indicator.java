package io.inferlens.analysis.diagnose;

/**
 * A derived, per-step quantity of one target that detectors read: a latency quantile computed
 * from a histogram, a gauge summed over engines, a counter's rate. Each has a stable name used in
 * the REST contract ({@code evidence[].signal}) and a unit.
 *
 * <p>Aggregation across the series of a target follows what an operator would chart: latency
 * quantiles from {@code sum by (le)} over engines; waiting/running summed; KV-cache usage and GPU
 * utilisation the maximum over engines/GPUs (one saturated GPU stalls a tensor-parallel group);
 * Kafka lag summed over partitions, ignoring {@code -1} (kafka_exporter's "no committed offset").
 */
public enum Indicator {
  /** End-to-end request latency P50, seconds. */
  E2E_P50("e2e_p50", "s"),
  /** End-to-end request latency P95, seconds. */
  E2E_P95("e2e_p95", "s"),
  /** End-to-end request latency P99, seconds. */
  E2E_P99("e2e_p99", "s"),
  /** Time to first token P50, seconds. */
  TTFT_P50("ttft_p50", "s"),
  /** Time to first token P95, seconds. */
  TTFT_P95("ttft_p95", "s"),
  /** Time to first token P99, seconds. */
  TTFT_P99("ttft_p99", "s"),
  /** Time per output token / inter-token latency P50, seconds. */
  TPOT_P50("tpot_p50", "s"),
  /** Time per output token / inter-token latency P95, seconds. */
  TPOT_P95("tpot_p95", "s"),
  /** Time per output token / inter-token latency P99, seconds. */
  TPOT_P99("tpot_p99", "s"),
  /** Queue time P95, seconds. */
  QUEUE_TIME_P95("queue_time_p95", "s"),
  /** Requests waiting in the engine's queue, summed over engines. */
  WAITING("waiting", "requests"),
  /** Requests in the running batch, summed over engines. */
  RUNNING("running", "requests"),
  /** KV-cache usage, maximum over engines, ratio 0–1. */
  KV_CACHE_USAGE("kv_cache_usage", "ratio"),
  /** Preemptions per second, summed over engines. */
  PREEMPTIONS("preemptions", "1/s"),
  /** GPU utilisation, maximum over the target's GPUs, percent 0–100. */
  GPU_UTIL("gpu_util", "%"),
  /** GPU framebuffer used / total, maximum over GPUs, ratio 0–1. */
  GPU_MEM("gpu_mem", "ratio"),
  /** Upstream (Kafka consumer) lag, messages, summed over partitions. */
  UPSTREAM_BACKLOG("upstream_backlog", "messages"),
  /** Finished requests per second. */
  REQUEST_RATE("request_rate", "1/s"),
  /** Mean prompt length per request, tokens. */
  PROMPT_TOKENS("prompt_tokens", "tokens"),
  /** Mean generated length per request, tokens. */
  GENERATION_TOKENS("generation_tokens", "tokens");

  private final String key;
  private final String unit;

  Indicator(String key, String unit) {
    this.key = key;
    this.unit = unit;
  }

  /** @return the stable name used in REST evidence, e.g. {@code e2e_p95} */
  public String key() {
    return key;
  }

  /** @return the unit: {@code s}, {@code requests}, {@code ratio}, {@code %}, … */
  public String unit() {
    return unit;
  }

  /** @return whether this is a latency quantile (thresholds come from SLOs or baselines) */
  public boolean isLatency() {
    return unit.equals("s");
  }

  /**
   * @param key a name such as {@code e2e_p95}
   * @return the indicator
   * @throws IllegalArgumentException naming the key and the valid ones if unknown
   */
  public static Indicator fromKey(String key) {
    for (Indicator i : values()) {
      if (i.key.equals(key)) {
        return i;
      }
    }
    StringBuilder valid = new StringBuilder();
    for (Indicator i : values()) {
      valid.append(valid.length() == 0 ? "" : ", ").append(i.key);
    }
    throw new IllegalArgumentException("unknown signal \"" + key + "\"; valid: " + valid);
  }
}
