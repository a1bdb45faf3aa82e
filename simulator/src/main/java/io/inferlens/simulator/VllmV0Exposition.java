package io.inferlens.simulator;

/**
 * Renders a {@link SimulationModel} as vLLM 0.6's V0 engine serves {@code /metrics}, in the exact
 * shape of {@code fixtures/vllm-0.6-v0.prom}: the V0 {@code Metrics} families of
 * vllm/engine/metrics.py (0.6.4 era) in their order and HELP texts, the V0 spellings
 * ({@code gpu_cache_usage_perc}, {@code time_per_output_token_seconds}, {@code
 * time_in_queue_requests}, {@code num_requests_swapped}, the {@code avg_*_throughput_toks_per_s}
 * gauges), the {@code model_name} label only (no {@code engine}: one engine per server), V0 bucket
 * bounds, and prometheus_client multiprocess rendering (the OpenAI server runs the engine in its
 * own process, vllm PR #7279): no {@code _created}, histogram {@code _sum} before the buckets.
 * The simulated engine never swaps (V1-style recompute preemption), so swap and CPU-cache gauges
 * stay 0. Callers hold the model's lock.
 */
final class VllmV0Exposition {

  private VllmV0Exposition() {}

  /** See {@link Stack#render}; the model has one engine. */
  static String render(SimulationModel m, String modelName, double created) {
    SimulationModel.Engine e = m.engines().get(0);
    PyText p = new PyText(true, created);
    Labels[] row = {Labels.of("model_name", modelName)};
    p.gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
        new Labels[] {Labels.of("block_size", Integer.toString(SimulationModel.BLOCK_SIZE),
            "cache_dtype", "auto", "cpu_offload_gb", "0", "enable_prefix_caching", "True",
            "gpu_memory_utilization", "0.9", "is_attention_free", "False", "num_cpu_blocks",
            "2048", "num_gpu_blocks", Integer.toString(SimulationModel.NUM_GPU_BLOCKS),
            "num_gpu_blocks_override", "None", "sliding_window", "None", "swap_space_bytes",
            "4294967296")}, i -> 1);
    p.gauge("vllm:num_requests_running", "Number of requests currently running on GPU.", row,
        i -> e.running());
    p.gauge("vllm:num_requests_swapped", "Number of requests swapped to CPU.", row, i -> 0);
    p.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", row,
        i -> e.waiting());
    p.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", row,
        i -> e.kvUsage());
    p.gauge("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", row,
        i -> 0);
    p.gauge("vllm:cpu_prefix_cache_hit_rate", "CPU prefix cache block hit rate.", row, i -> 0);
    p.gauge("vllm:gpu_prefix_cache_hit_rate", "GPU prefix cache block hit rate.", row,
        i -> e.prefixQueries == 0 ? 0 : (double) e.prefixHits / e.prefixQueries);
    p.gauge("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.",
        row, i -> e.promptThroughput);
    p.gauge("vllm:avg_generation_throughput_toks_per_s",
        "Average generation throughput in tokens/s.", row, i -> e.generationThroughput);
    // Set to the time of the last stats log; no model_name (vllm/engine/metrics.py).
    p.gauge("vllm:lora_requests_info", "Running stats on lora requests.",
        new Labels[] {Labels.of("max_lora", "0", "running_lora_adapters", "",
            "waiting_lora_adapters", "")}, i -> Math.floor(created + m.nowSeconds()));
    p.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", row,
        i -> e.preemptions);
    p.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", row,
        i -> e.promptTokens);
    p.counter("vllm:generation_tokens", "Number of generation tokens processed.", row,
        i -> e.generationTokens);
    // Multiprocess files hold only the children observed: the engine never aborts here.
    p.counter("vllm:request_success", "Count of successfully processed requests.",
        new Labels[] {Labels.of("finished_reason", "stop", "model_name", modelName),
            Labels.of("finished_reason", "length", "model_name", modelName)},
        i -> e.finished[i]);
    p.histogram("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
        row, Buckets.V0_ITERATION, i -> e.iterationTokens);
    p.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        row, Buckets.V0_TTFT, i -> e.ttft);
    p.histogram("vllm:time_per_output_token_seconds",
        "Histogram of time per output token in seconds.", row, Buckets.V0_TPOT, i -> e.itl);
    p.histogram("vllm:time_in_queue_requests",
        "Histogram of time the request spent in the queue in seconds.", row, Buckets.V0_LATENCY,
        i -> e.scheduledQueueTime);
    p.histogram("vllm:e2e_request_latency_seconds",
        "Histogram of end to end request latency in seconds.", row, Buckets.V0_LATENCY,
        i -> e.e2e);
    p.histogram("vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", row, Buckets.V0_LATENCY,
        i -> e.queueTime);
    p.histogram("vllm:request_inference_time_seconds",
        "Histogram of time spent in RUNNING phase for request.", row, Buckets.V0_LATENCY,
        i -> e.inferencePhase);
    p.histogram("vllm:request_prefill_time_seconds",
        "Histogram of time spent in PREFILL phase for request.", row, Buckets.V0_LATENCY,
        i -> e.prefillPhase);
    p.histogram("vllm:request_decode_time_seconds",
        "Histogram of time spent in DECODE phase for request.", row, Buckets.V0_LATENCY,
        i -> e.decodePhase);
    p.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", row,
        Buckets.VLLM_TOKENS, i -> e.promptLength);
    p.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", row,
        Buckets.VLLM_TOKENS, i -> e.generationLength);
    p.histogram("vllm:request_max_num_generation_tokens",
        "Histogram of maximum number of requested generation tokens.", row, Buckets.VLLM_TOKENS,
        i -> e.maxTokensRequested);
    p.histogram("vllm:request_params_n", "Histogram of the n request parameter.", row,
        Buckets.VLLM_PARAMS_N, i -> e.paramsN);
    p.histogram("vllm:request_params_max_tokens",
        "Histogram of the max_tokens request parameter.", row, Buckets.VLLM_TOKENS,
        i -> e.maxTokensRequested);
    return p.text();
  }
}
