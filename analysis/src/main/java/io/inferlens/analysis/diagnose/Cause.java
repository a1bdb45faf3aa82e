package io.inferlens.analysis.diagnose;

import java.util.List;

/**
 * The stable cause codes of docs/DESIGN.md section 3, each with the recommendations an operator of
 * vLLM/SGLang/TGI can act on (vLLM engine arguments such as {@code --max-num-seqs},
 * {@code --max-model-len}, {@code --kv-cache-dtype fp8}, {@code --enable-prefix-caching},
 * {@code --enable-chunked-prefill}).
 */
public enum Cause {
  /** Latency breached + engine queue backlog + GPU or KV cache saturated. */
  CAPACITY_EXHAUSTED(List.of(
      "lower --max-num-seqs so each request gets its share of the GPU",
      "cap the queue and shed load with fast 429s instead of queueing",
      "add a replica or more tensor parallelism")),
  /** TTFT breached + backlog + no resource saturated. */
  CONCURRENCY_LIMIT(List.of(
      "raise --max-num-seqs / --max-num-batched-tokens: the GPU has headroom",
      "rate-limit bursts at the gateway")),
  /** KV cache ≥ 90 % with preemptions rising and TPOT/ITL or TTFT breached. */
  KV_CACHE_PRESSURE(List.of(
      "lower --max-num-seqs or --max-model-len",
      "use an FP8 KV cache (--kv-cache-dtype fp8)",
      "enable prefix caching (--enable-prefix-caching)",
      "give the KV cache more GPU memory (--gpu-memory-utilization) or more GPUs")),
  /** GPU utilisation saturated, queue normal, latency breached. */
  GPU_COMPUTE_BOUND(List.of(
      "use faster kernels or quantization (FP8/INT4 weights)",
      "add GPUs or tensor parallelism")),
  /** Latency breached, queue empty, no resource saturated. */
  PER_REQUEST_SLOWDOWN(List.of(
      "check the model, kernels and quantization (dequantization overhead)",
      "check the GPU driver, clocks and thermal throttling",
      "compare with the previous deployment")),
  /** As PER_REQUEST_SLOWDOWN, and prompt or generation length rose vs the baseline. */
  WORKLOAD_SHIFT(List.of(
      "separate long-prompt traffic onto its own replicas",
      "enable chunked prefill (--enable-chunked-prefill) so long prompts do not stall decoding",
      "cap max_tokens / prompt length at the gateway")),
  /** Kafka lag or backlog delay rising while engine latency is within threshold. */
  UPSTREAM_BACKLOG(List.of(
      "add consumers (partitions permitting)",
      "tune batch fetch (max.poll.records, fetch.min.bytes)",
      "inference is not the bottleneck: do not scale the engine for this")),
  /** Expected samples missing for more than 2 scrape intervals. */
  MONITORING_GAP(List.of(
      "fix scraping first (target down, scrape timeout, compression negotiation)",
      "do not trust other diagnoses inside the gap")),
  /**
   * Every target of a sender went quiet at once: the remote write stopped (the sender restarted,
   * its queue lags or the network failed), not N monitoring gaps.
   */
  REMOTE_WRITE_STOPPED(List.of(
      "check the sender: is Prometheus (or vmagent, Alloy) running, and its remote-write queue"
          + " (prometheus_remote_storage_samples_pending, _failed_samples_total)?",
      "check the network path and InferLens's /-/ready from the sender",
      "no engine fault is implied: diagnoses resume when samples arrive")),
  /** A new model/version label is slower than the previous one at comparable load. */
  VERSION_REGRESSION(List.of(
      "roll back to the previous model version",
      "profile the new version at the same load before rolling it out")),
  /**
   * A metric's active series grew much faster than its targets (a per-user or per-request label):
   * a store-level finding of {@code analysis.cardinality.CardinalityWatch}, not of a target's
   * stream. Its diagnoses carry recommendations naming the metric and the label.
   */
  CARDINALITY_EXPLOSION(List.of(
      "drop the label at the sender: metric_relabel_configs with action: labeldrop and the"
          + " label's name as regex in the scrape job",
      "or stop sending the metric to InferLens: write_relabel_configs with action: drop on"
          + " __name__ in the remote_write section",
      "labeldrop merges series that differed only by that label: if the label is per user or"
          + " per request, remove it from the instrumentation (it belongs in logs or traces)"));

  private final List<String> recommendations;

  Cause(List<String> recommendations) {
    this.recommendations = recommendations;
  }

  /** @return recommendations, most effective first */
  public List<String> recommendations() {
    return recommendations;
  }
}
