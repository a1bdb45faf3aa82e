package io.inferlens.simulator;

/**
 * Renders a {@link SimulationModel} as SGLang (~0.5, {@code --enable-metrics}) serves
 * {@code /metrics}, in the exact shape of {@code fixtures/sglang.prom}: the families, HELP texts
 * and buckets of sgl-project/sglang python/sglang/srt/metrics/collector.py, always in
 * prometheus_client multiprocess rendering (no {@code _created}, {@code _sum} first).
 * Tokenizer-manager series carry {@code model_name} only; scheduler series
 * {@code engine_type="unified"}, {@code model_name}, {@code pp_rank="0"}, {@code tp_rank="0"}, and
 * the two gauges declared without a multiprocess mode also the scheduler's {@code pid}.
 * {@code token_usage} is the KV-cache (token pool) usage, {@code num_retracted_reqs} the requests
 * retracted (SGLang's preemption) in the last step, {@code cache_hit_rate} the last admitted
 * batch's prefix hit ratio; the inter-token histogram counts one observation per new token, as
 * the collector does. Callers hold the model's lock.
 */
final class SglangExposition {

  /** The scheduler's process id, as the fixture's {@code pid} label. */
  static final String SCHEDULER_PID = "2381";

  private SglangExposition() {}

  /** See {@link Stack#render}; the model has one engine. */
  static String render(SimulationModel m, String modelName, double created) {
    SimulationModel.Engine e = m.engines().get(0);
    PyText p = new PyText(true, created);
    Labels[] tok = {Labels.of("model_name", modelName)};
    Labels[] sched = {Labels.of("engine_type", "unified", "model_name", modelName, "pp_rank", "0",
        "tp_rank", "0")};
    Labels[] schedPid = {Labels.of("engine_type", "unified", "model_name", modelName, "pid",
        SCHEDULER_PID, "pp_rank", "0", "tp_rank", "0")};
    long requests = java.util.Arrays.stream(e.finished).sum();
    p.counter("sglang:prompt_tokens", "Number of prefill tokens processed.", tok,
        i -> e.promptTokens);
    p.counter("sglang:generation_tokens", "Number of generation tokens processed.", tok,
        i -> e.generationTokens);
    p.counter("sglang:cached_tokens", "Number of cached prompt tokens.", tok, i -> e.prefixHits);
    p.counter("sglang:num_requests", "Number of requests processed.", tok, i -> requests);
    p.counter("sglang:num_aborted_requests", "Number of requests aborted.", tok,
        i -> e.finished[2]);
    p.histogram("sglang:time_to_first_token_seconds",
        "Histogram of time to first token in seconds.", tok, Buckets.SGLANG_TTFT, i -> e.ttft);
    p.histogram("sglang:inter_token_latency_seconds",
        "Histogram of inter-token latency in seconds.", tok, Buckets.SGLANG_ITL, i -> e.itl);
    p.histogram("sglang:e2e_request_latency_seconds",
        "Histogram of End-to-end request latency in seconds", tok, Buckets.SGLANG_E2E,
        i -> e.e2e);
    p.gauge("sglang:num_running_reqs", "The number of running requests.", sched,
        i -> e.running());
    p.gauge("sglang:num_used_tokens", "The number of used tokens.", sched, i -> e.kvUsed);
    p.gauge("sglang:token_usage", "The token usage.", sched, i -> e.kvUsage());
    p.gauge("sglang:pending_prealloc_token_usage",
        "The token usage for pending preallocated tokens (not preallocated yet).", sched, i -> 0);
    p.gauge("sglang:swa_token_usage", "The token usage for SWA layers.", sched, i -> 0);
    p.gauge("sglang:gen_throughput", "The generation throughput (token/s).", sched,
        i -> e.generationThroughput);
    p.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", sched,
        i -> e.waiting());
    p.gauge("sglang:num_grammar_queue_reqs",
        "The number of requests in the grammar waiting queue.", sched, i -> 0);
    p.gauge("sglang:num_running_reqs_offline_batch",
        "The number of running low-priority offline batch requests(label is 'batch').", sched,
        i -> 0);
    p.gauge("sglang:cache_hit_rate", "The prefix cache hit rate.", sched, i -> e.lastHitRate);
    p.gauge("sglang:spec_accept_length",
        "The average acceptance length of speculative decoding.", sched, i -> 0);
    p.gauge("sglang:spec_accept_rate", "The average acceptance rate of speculative decoding "
        + "(`accepted tokens / total draft tokens` in batch).", sched, i -> 0);
    p.gauge("sglang:num_prefill_prealloc_queue_reqs",
        "The number of requests in the prefill prealloc queue.", sched, i -> 0);
    p.gauge("sglang:num_prefill_inflight_queue_reqs",
        "The number of requests in the prefill inflight queue.", sched, i -> 0);
    p.gauge("sglang:num_decode_prealloc_queue_reqs",
        "The number of requests in the decode prealloc queue.", sched, i -> 0);
    p.gauge("sglang:num_decode_transfer_queue_reqs",
        "The number of requests in the decode transfer queue.", sched, i -> 0);
    p.gauge("sglang:kv_transfer_speed_gb_s", "The transfer speed of the KV cache in GB/s.", sched,
        i -> 0);
    p.gauge("sglang:kv_transfer_latency_ms", "The transfer latency of the KV cache in ms.", sched,
        i -> 0);
    p.gauge("sglang:utilization", "The utilization.", sched, i -> 0);
    p.gauge("sglang:engine_startup_time", "The time taken for the engine to start up.", sched,
        i -> 87.31406211853027);
    p.gauge("sglang:engine_load_weights_time", "The time taken for the engine to load weights.",
        sched, i -> 21.93822479248047);
    p.gauge("sglang:is_cuda_graph", "Whether the batch is using CUDA graph.", sched, i -> 1);
    p.gauge("sglang:num_retracted_reqs", "The number of retracted requests.", schedPid,
        i -> e.lastPreempted);
    p.gauge("sglang:num_paused_reqs", "The number of paused requests by async weight sync.",
        schedPid, i -> 0);
    p.histogram("sglang:queue_time_seconds", "Histogram of queueing time in seconds.", sched,
        Buckets.SGLANG_QUEUE, i -> e.scheduledQueueTime);
    return p.text();
  }
}
