package io.inferlens.analysis.catalog;

/**
 * The logical signals InferLens diagnoses from, independent of the serving stack that exposes them
 * (docs/DESIGN.md §3). Each maps, through the {@link SignalCatalog}, to an ordered list of concrete
 * {@link MetricSource}s. The unit is that of the value the analysis engine derives from a source
 * after applying its {@link MetricSource#scale() scale}.
 */
public enum Signal {
  /** Time to first token, seconds; a histogram (quantiles) on vLLM and SGLang. */
  TTFT("s", "time to first token"),
  /** Time per output token / inter-token latency, seconds; a histogram, or a mean from counters. */
  TPOT("s", "time per output token (inter-token latency)"),
  /** End-to-end request latency, seconds; a histogram, or a mean from counters (Triton). */
  E2E("s", "end-to-end request latency"),
  /** Time a request waited in the engine queue, seconds; a histogram, or a mean from counters. */
  QUEUE_TIME("s", "time spent queued in the engine"),
  /** Requests waiting in the engine queue, a gauge in requests, ≥ 0. */
  WAITING("requests", "requests waiting in the engine queue"),
  /** Requests being decoded (in the running batch), a gauge in requests, ≥ 0. */
  RUNNING("requests", "requests in the running batch"),
  /** KV-cache usage as a ratio 0–1 (vLLM's {@code _perc} names are ratios too). */
  KV_CACHE_USAGE("ratio", "KV-cache usage, 0-1"),
  /** Preemptions per second: the rate of a preemption counter. */
  PREEMPTIONS("1/s", "preemptions per second"),
  /** GPU compute utilisation in percent, 0–100 (DCGM_FI_DEV_GPU_UTIL). */
  GPU_UTIL("%", "GPU utilisation, 0-100"),
  /** GPU framebuffer use as a ratio 0–1: FB_USED / (FB_USED + FB_FREE). */
  GPU_MEM("ratio", "GPU framebuffer used / (used + free)"),
  /** Messages behind in the upstream queue: the sum of Kafka consumer-group lag, -1 ignored. */
  UPSTREAM_BACKLOG("messages", "upstream Kafka consumer-group lag"),
  /** Finished requests per second: the rate of a request counter. */
  REQUEST_RATE("1/s", "finished requests per second"),
  /** Mean prompt tokens per request, from histogram _sum/_count rates or token/request counters. */
  PROMPT_TOKENS("tokens", "prompt tokens per request"),
  /** Mean generated tokens per request, as {@link #PROMPT_TOKENS}. */
  GENERATION_TOKENS("tokens", "generated tokens per request");

  private final String unit;
  private final String description;

  Signal(String unit, String description) {
    this.unit = unit;
    this.description = description;
  }

  /** @return the unit of the derived value: {@code s}, {@code requests}, {@code ratio}, {@code %}, {@code 1/s}, {@code messages} or {@code tokens} */
  public String unit() {
    return unit;
  }

  /** @return a short human description, lower case, no trailing period */
  public String description() {
    return description;
  }
}
