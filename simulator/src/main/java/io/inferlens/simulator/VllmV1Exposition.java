package io.inferlens.simulator;

import java.util.List;

/**
 * Renders a {@link SimulationModel} as vLLM V1's {@code /metrics}, in the exact shape of
 * {@code fixtures/vllm-0.10-v1.prom} or {@code fixtures/vllm-0.13-v1.prom}: the
 * {@code PrometheusStatLogger} registration order and HELP texts of vllm/v1/metrics/loggers.py,
 * labels {@code engine} and {@code model_name} (with {@code le} and {@code finished_reason}
 * sorted in), V1 bucket bounds, the default prometheus_client registry ({@code _created} gauges
 * after each counter and histogram). 0.10 also writes the deprecated aliases
 * ({@code gpu_cache_usage_perc}, {@code gpu_prefix_cache_*}, {@code time_per_output_token_seconds}:
 * the same values as their replacements), the token and phase histograms, the
 * {@code python_}/{@code process_} collectors and prometheus-fastapi-instrumentator's
 * {@code http_} series; 0.13 the families added by then (sleep state, external prefix and
 * multi-modal caches, per-request TPOT, {@code finished_reason="error"}). Families the fixtures
 * leave out (listed in their headers) are left out here too. Callers hold the model's lock.
 */
final class VllmV1Exposition {

  private static final String SLEEP_HELP = "Engine sleep state; awake = 0 means engine is "
      + "sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; "
      + "discard_all = 1 means sleep level 2.";
  /** Seconds of one {@code /v1/models} health probe, and the probe period, simulated seconds. */
  private static final double PROBE_S = 0.0021;
  private static final double PROBE_PERIOD_S = 10;
  /** Seconds of a refused (4xx) chat request, and the share of requests refused (synthetic). */
  private static final double BAD_REQUEST_S = 0.004;
  private static final double BAD_REQUEST_SHARE = 0.009;

  private VllmV1Exposition() {}

  /** vLLM 0.10.2 ({@code vllm-0.10-v1.prom}); see {@link Stack#render}. */
  static String render010(SimulationModel m, String modelName, double created) {
    return render(m, modelName, created, false);
  }

  /** vLLM 0.13 ({@code vllm-0.13-v1.prom}); see {@link Stack#render}. */
  static String render013(SimulationModel m, String modelName, double created) {
    return render(m, modelName, created, true);
  }

  private static String render(SimulationModel m, String modelName, double created,
      boolean v013) {
    List<SimulationModel.Engine> es = m.engines();
    PyText p = new PyText(false, created);
    if (!v013) {
      pythonAndProcess(p, m, created);
    }
    Labels[] rows = new Labels[es.size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = Labels.of("engine", es.get(i).label, "model_name", modelName);
    }
    p.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", rows,
        i -> es.get(i).running());
    p.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", rows,
        i -> es.get(i).waiting());
    if (v013) {
      String[] states = {"awake", "weights_offloaded", "discard_all"};
      Labels[] sleep = new Labels[states.length * es.size()];
      for (int s = 0; s < states.length; s++) {
        for (int i = 0; i < es.size(); i++) {
          sleep[s * es.size() + i] = Labels.of("engine", es.get(i).label, "model_name", modelName,
              "sleep_state", states[s]);
        }
      }
      p.gauge("vllm:engine_sleep_state", SLEEP_HELP, sleep, i -> i < es.size() ? 1 : 0);
    } else {
      p.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage."
          + "DEPRECATED: Use vllm:kv_cache_usage_perc instead.", rows, i -> es.get(i).kvUsage());
      p.counter("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of "
          + "queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", rows,
          i -> es.get(i).prefixQueries);
      p.counter("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached "
          + "tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", rows,
          i -> es.get(i).prefixHits);
    }
    p.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", rows,
        i -> es.get(i).kvUsage());
    p.counter("vllm:prefix_cache_queries",
        "Prefix cache queries, in terms of number of queried tokens.", rows,
        i -> es.get(i).prefixQueries);
    p.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
        rows, i -> es.get(i).prefixHits);
    if (v013) {
      p.counter("vllm:external_prefix_cache_queries", "External prefix cache queries from KV "
          + "connector cross-instance cache sharing, in terms of number of queried tokens.", rows,
          i -> 0);
      p.counter("vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector "
          + "cross-instance cache sharing, in terms of number of cached tokens.", rows, i -> 0);
      p.counter("vllm:mm_cache_queries",
          "Multi-modal cache queries, in terms of number of queried items.", rows, i -> 0);
      p.counter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.",
          rows, i -> 0);
    }
    p.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", rows,
        i -> es.get(i).preemptions);
    p.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", rows,
        i -> es.get(i).promptTokens);
    p.counter("vllm:generation_tokens", "Number of generation tokens processed.", rows,
        i -> es.get(i).generationTokens);

    int reasons = v013 ? SimulationModel.FINISH_REASONS.length : 3; // "error" came with 0.11
    Labels[] success = new Labels[reasons * es.size()];
    for (int r = 0; r < reasons; r++) {
      for (int i = 0; i < es.size(); i++) {
        success[r * es.size() + i] = Labels.of("engine", es.get(i).label, "finished_reason",
            SimulationModel.FINISH_REASONS[r], "model_name", modelName);
      }
    }
    p.counter("vllm:request_success", "Count of successfully processed requests.", success,
        k -> es.get(k % es.size()).finished[k / es.size()]);

    if (!v013) {
      p.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", rows,
          Buckets.VLLM_TOKENS, i -> es.get(i).promptLength);
      p.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.",
          rows, Buckets.VLLM_TOKENS, i -> es.get(i).generationLength);
      p.histogram("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
          rows, Buckets.V1_ITERATION, i -> es.get(i).iterationTokens);
    }
    p.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        rows, Buckets.V1_TTFT, i -> es.get(i).ttft);
    if (!v013) {
      p.histogram("vllm:time_per_output_token_seconds", "Histogram of time per output token in "
          + "seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead.", rows,
          Buckets.V1_ITL, i -> es.get(i).itl);
    }
    p.histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
        rows, Buckets.V1_ITL, i -> es.get(i).itl);
    if (v013) {
      p.histogram("vllm:request_time_per_output_token_seconds",
          "Histogram of time_per_output_token_seconds per request.", rows, Buckets.V1_ITL,
          i -> es.get(i).requestTpot);
    }
    p.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
        rows, Buckets.V1_LATENCY, i -> es.get(i).e2e);
    p.histogram("vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", rows, Buckets.V1_LATENCY,
        i -> es.get(i).queueTime);
    if (!v013) {
      p.histogram("vllm:request_prefill_time_seconds",
          "Histogram of time spent in PREFILL phase for request.", rows, Buckets.V1_LATENCY,
          i -> es.get(i).prefillPhase);
      p.histogram("vllm:request_decode_time_seconds",
          "Histogram of time spent in DECODE phase for request.", rows, Buckets.V1_LATENCY,
          i -> es.get(i).decodePhase);
    }

    Labels[] cache = new Labels[es.size()];
    for (int i = 0; i < es.size(); i++) {
      String blocks = Integer.toString(SimulationModel.NUM_GPU_BLOCKS);
      String bs = Integer.toString(SimulationModel.BLOCK_SIZE);
      cache[i] = v013
          ? Labels.of("block_size", bs, "cache_dtype", "auto", "enable_prefix_caching", "True",
              "engine", es.get(i).label, "gpu_memory_utilization", "0.9", "is_attention_free",
              "False", "num_gpu_blocks", blocks, "num_gpu_blocks_override", "None",
              "sliding_window", "None")
          : Labels.of("block_size", bs, "cache_dtype", "auto", "calculate_kv_scales", "False",
              "cpu_offload_gb", "0", "enable_prefix_caching", "True", "engine", es.get(i).label,
              "gpu_memory_utilization", "0.9", "is_attention_free", "False", "num_cpu_blocks",
              "0", "num_gpu_blocks", blocks, "num_gpu_blocks_override", "None", "sliding_window",
              "None", "swap_space", "4");
    }
    p.gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", cache, i -> 1);
    if (!v013) {
      http(p, m);
    }
    return p.text();
  }

  /**
   * prometheus_client's default GC, platform and process collectors, registration order. Values
   * are synthetic; the counters grow with simulated time.
   */
  private static void pythonAndProcess(PyText p, SimulationModel m, double created) {
    double t = m.nowSeconds();
    Labels[] gens = {Labels.of("generation", "0"), Labels.of("generation", "1"),
        Labels.of("generation", "2")};
    double[] collectedPerS = {520, 93, 22};
    double[] collectionsPerS = {9.2, 0.84, 0.031};
    p.head("python_gc_objects_collected_total", "Objects collected during gc", "counter");
    for (int g = 0; g < 3; g++) {
      p.line("python_gc_objects_collected_total", gens[g].text(),
          Math.floor(40_000 + collectedPerS[g] * t));
    }
    p.head("python_gc_objects_uncollectable_total", "Uncollectable objects found during GC",
        "counter");
    for (int g = 0; g < 3; g++) {
      p.line("python_gc_objects_uncollectable_total", gens[g].text(), 0);
    }
    p.head("python_gc_collections_total", "Number of times this generation was collected",
        "counter");
    for (int g = 0; g < 3; g++) {
      p.line("python_gc_collections_total", gens[g].text(), Math.floor(300 + collectionsPerS[g] * t));
    }
    p.head("python_info", "Python platform information", "gauge");
    p.line("python_info", Labels.of("implementation", "CPython", "major", "3", "minor", "12",
        "patchlevel", "11", "version", "3.12.11").text(), 1);
    p.head("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge");
    p.line("process_virtual_memory_bytes", "", 4.1237590784e10);
    p.head("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge");
    p.line("process_resident_memory_bytes", "", 3.617726464e9);
    p.head("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
        "gauge");
    p.line("process_start_time_seconds", "", Math.floor(created * 100) / 100);
    p.head("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
        "counter");
    p.line("process_cpu_seconds_total", "", Math.round((14 + 1.1 * t) * 100) / 100.0);
    p.head("process_open_fds", "Number of open file descriptors.", "gauge");
    p.line("process_open_fds", "", 217);
    p.head("process_max_fds", "Maximum number of open file descriptors.", "gauge");
    p.line("process_max_fds", "", 1_048_576);
  }

  /**
   * prometheus-fastapi-instrumentator's {@code metrics.default()} as vLLM mounts it (vllm PR
   * #15657; the two size summaries are left out like the fixture): chat requests are the
   * finished requests (their duration is the e2e latency), plus a synthetic {@value
   * #BAD_REQUEST_SHARE} share of fast 4xx refusals and a {@code /v1/models} probe every
   * {@value #PROBE_PERIOD_S} simulated seconds.
   */
  private static void http(PyText p, SimulationModel m) {
    long probes = (long) (m.nowSeconds() / PROBE_PERIOD_S) + 1;
    long chat = 0;
    double chatSum = 0;
    long[] highr = new long[Buckets.HTTP_HIGHR.length + 1];
    long[] lowr = new long[Buckets.HTTP_LOWR.length + 1];
    for (SimulationModel.Engine e : m.engines()) {
      for (long f : e.finished) {
        chat += f;
      }
      chatSum += e.e2e.sum();
      add(highr, e.e2e.cumulativeAt(Buckets.HTTP_HIGHR));
      add(lowr, e.e2e.cumulativeAt(Buckets.HTTP_LOWR));
    }
    long bad = (long) (chat * BAD_REQUEST_SHARE);
    Labels models = Labels.of("handler", "/v1/models", "method", "GET", "status", "2xx");
    Labels ok = Labels.of("handler", "/v1/chat/completions", "method", "POST", "status", "2xx");
    Labels refused = Labels.of("handler", "/v1/chat/completions", "method", "POST", "status",
        "4xx");
    long[] counts = {probes, chat, bad};
    p.counter("http_requests", "Total number of requests by method, status and handler.",
        new Labels[] {models, ok, refused}, i -> counts[i]);

    String highrHelp = "Latency with many buckets but no API specific labels. Made for more "
        + "accurate percentile calculations. ";
    p.head("http_request_duration_highr_seconds", highrHelp, "histogram");
    for (int k = 0; k < highr.length; k++) {
      // probes and refusals are faster than the first bound (0.01 s)
      p.line("http_request_duration_highr_seconds_bucket", Labels.NONE.textWith("le",
          k < Buckets.HTTP_HIGHR.length ? PromFormat.pyFloat(Buckets.HTTP_HIGHR[k]) : "+Inf"),
          highr[k] + probes + bad);
    }
    p.line("http_request_duration_highr_seconds_count", "", highr[highr.length - 1] + probes + bad);
    p.line("http_request_duration_highr_seconds_sum", "",
        chatSum + probes * PROBE_S + bad * BAD_REQUEST_S);
    p.head("http_request_duration_highr_seconds_created", highrHelp, "gauge");
    p.line("http_request_duration_highr_seconds_created", "", p.nextCreated());

    String lowrHelp = "Latency with only few buckets by handler. Made to be only used if "
        + "aggregation by handler is important. ";
    Labels[] handlers = {Labels.of("handler", "/v1/models", "method", "GET"),
        Labels.of("handler", "/v1/chat/completions", "method", "POST")};
    p.head("http_request_duration_seconds", lowrHelp, "histogram");
    for (int h = 0; h < 2; h++) {
      for (int k = 0; k < lowr.length; k++) {
        p.line("http_request_duration_seconds_bucket", handlers[h].textWith("le",
            k < Buckets.HTTP_LOWR.length ? PromFormat.pyFloat(Buckets.HTTP_LOWR[k]) : "+Inf"),
            h == 0 ? probes : lowr[k] + bad);
      }
      p.line("http_request_duration_seconds_count", handlers[h].text(),
          h == 0 ? probes : lowr[lowr.length - 1] + bad);
      p.line("http_request_duration_seconds_sum", handlers[h].text(),
          h == 0 ? probes * PROBE_S : chatSum + bad * BAD_REQUEST_S);
    }
    p.head("http_request_duration_seconds_created", lowrHelp, "gauge");
    for (Labels h : handlers) {
      p.line("http_request_duration_seconds_created", h.text(), p.nextCreated());
    }
  }

  private static void add(long[] acc, long[] v) {
    for (int i = 0; i < acc.length; i++) {
      acc[i] += v[i];
    }
  }
}
