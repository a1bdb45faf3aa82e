package io.inferlens.analysis.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every stack fixture, scraped five times into a real store: discovery finds its target and each
 * signal resolves to the exact metric name the catalog should pick — the new vLLM name where an
 * alias exists too — while signals the stack lacks stay absent.
 */
class FixtureResolutionTest {

  private static final SignalCatalog CATALOG = SignalCatalog.load();
  private static final TargetConfig CONFIG = TargetConfig.defaults();

  @TempDir Path dir;

  static Stream<Arguments> engines() {
    Map<Signal, String> v06 = new EnumMap<>(Signal.class);
    v06.put(Signal.TTFT, "vllm:time_to_first_token_seconds");
    v06.put(Signal.TPOT, "vllm:time_per_output_token_seconds");
    v06.put(Signal.E2E, "vllm:e2e_request_latency_seconds");
    v06.put(Signal.QUEUE_TIME, "vllm:request_queue_time_seconds");
    v06.put(Signal.WAITING, "vllm:num_requests_waiting");
    v06.put(Signal.RUNNING, "vllm:num_requests_running");
    v06.put(Signal.KV_CACHE_USAGE, "vllm:gpu_cache_usage_perc");
    v06.put(Signal.PREEMPTIONS, "vllm:num_preemptions_total");
    v06.put(Signal.REQUEST_RATE, "vllm:request_success_total");
    v06.put(Signal.PROMPT_TOKENS, "vllm:request_prompt_tokens");
    v06.put(Signal.GENERATION_TOKENS, "vllm:request_generation_tokens");

    Map<Signal, String> v010 = new EnumMap<>(v06);
    v010.put(Signal.TPOT, "vllm:inter_token_latency_seconds");
    v010.put(Signal.KV_CACHE_USAGE, "vllm:kv_cache_usage_perc");

    Map<Signal, String> v013 = new EnumMap<>(v010);
    v013.put(Signal.PROMPT_TOKENS, "vllm:prompt_tokens_total");
    v013.put(Signal.GENERATION_TOKENS, "vllm:generation_tokens_total");

    Map<Signal, String> sglang = new EnumMap<>(Signal.class);
    sglang.put(Signal.TTFT, "sglang:time_to_first_token_seconds");
    sglang.put(Signal.TPOT, "sglang:inter_token_latency_seconds");
    sglang.put(Signal.E2E, "sglang:e2e_request_latency_seconds");
    sglang.put(Signal.QUEUE_TIME, "sglang:queue_time_seconds");
    sglang.put(Signal.WAITING, "sglang:num_queue_reqs");
    sglang.put(Signal.RUNNING, "sglang:num_running_reqs");
    sglang.put(Signal.KV_CACHE_USAGE, "sglang:token_usage");
    sglang.put(Signal.REQUEST_RATE, "sglang:num_requests_total");
    sglang.put(Signal.PROMPT_TOKENS, "sglang:prompt_tokens_total");
    sglang.put(Signal.GENERATION_TOKENS, "sglang:generation_tokens_total");

    Map<Signal, String> tgi = new EnumMap<>(Signal.class);
    tgi.put(Signal.TPOT, "tgi_request_mean_time_per_token_duration");
    tgi.put(Signal.E2E, "tgi_request_duration");
    tgi.put(Signal.QUEUE_TIME, "tgi_request_queue_duration");
    tgi.put(Signal.WAITING, "tgi_queue_size");
    tgi.put(Signal.RUNNING, "tgi_batch_current_size");
    tgi.put(Signal.REQUEST_RATE, "tgi_request_success");
    tgi.put(Signal.PROMPT_TOKENS, "tgi_request_input_length");
    tgi.put(Signal.GENERATION_TOKENS, "tgi_request_generated_tokens");

    Map<Signal, String> triton = new EnumMap<>(Signal.class);
    triton.put(Signal.E2E, "nv_inference_request_duration_us");
    triton.put(Signal.QUEUE_TIME, "nv_inference_queue_duration_us");
    triton.put(Signal.WAITING, "nv_trt_llm_request_metrics");
    triton.put(Signal.RUNNING, "nv_trt_llm_request_metrics");
    triton.put(Signal.KV_CACHE_USAGE, "nv_trt_llm_kv_cache_block_metrics");
    triton.put(Signal.REQUEST_RATE, "nv_inference_request_success");

    Map<Signal, String> llamacpp = new EnumMap<>(Signal.class);
    llamacpp.put(Signal.TPOT, "llamacpp:tokens_predicted_seconds_total");
    llamacpp.put(Signal.WAITING, "llamacpp:requests_deferred");
    llamacpp.put(Signal.RUNNING, "llamacpp:requests_processing");

    return Stream.of(
        Arguments.of("vllm-0.6-v0.prom", "Qwen/Qwen2.5-32B-Instruct", v06),
        Arguments.of("vllm-0.10-v1.prom", "Qwen/Qwen3-32B-FP8", v010),
        Arguments.of("vllm-0.13-v1.prom", "Qwen/Qwen3-32B-FP8", v013),
        Arguments.of("sglang.prom", "Qwen/Qwen3-8B", sglang),
        Arguments.of("tgi.prom", "", tgi),
        Arguments.of("triton.prom", "tensorrt_llm", triton),
        Arguments.of("llamacpp.prom", "", llamacpp));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void engineFixtureFormsOneTargetAndResolvesExactlyItsSignals(
      String file, String model, Map<Signal, String> expected) throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, file, "llm", "vllm-a:8000");
      List<Target> targets = new TargetDiscovery(CATALOG)
          .discover(store, CONFIG, FixtureStore.T0_MS, FixtureStore.END_MS);
      Target expectedTarget = Target.of("job", "llm", "instance", "vllm-a:8000", "model_name", model);
      assertThat(targets).containsExactly(expectedTarget);

      Map<Signal, ResolvedSignal> resolved = new SignalResolver(CATALOG, CONFIG)
          .resolveAll(store, targets.get(0), FixtureStore.T0_MS, FixtureStore.END_MS);
      Map<Signal, String> names = new EnumMap<>(Signal.class);
      resolved.forEach((s, r) -> names.put(s, r.metricName()));
      assertThat(names).isEqualTo(expected);
      for (ResolvedSignal r : resolved.values()) {
        assertThat(store.series(r.matchers(), FixtureStore.T0_MS, FixtureStore.END_MS))
            .as("%s selects series", r.signal()).isNotEmpty();
      }
    }
  }

  @Test
  void vllmSelectorsCarryTheTargetLabelsAndHistogramNames() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-a:8000");
      Target t = Target.of("job", "vllm", "instance", "vllm-a:8000", "model_name", "Qwen/Qwen3-32B-FP8");
      ResolvedSignal e2e = new SignalResolver(CATALOG, CONFIG)
          .resolve(store, t, Signal.E2E, FixtureStore.T0_MS, FixtureStore.END_MS).orElseThrow();
      assertThat(e2e.matchers()).containsExactly(
          Matcher.eq("__name__", "vllm:e2e_request_latency_seconds_bucket"),
          Matcher.eq("job", "vllm"), Matcher.eq("instance", "vllm-a:8000"),
          Matcher.eq("model_name", "Qwen/Qwen3-32B-FP8"));
      ResolvedSignal.HistogramSeries h = e2e.histogram().orElseThrow();
      assertThat(h.bucketName()).isEqualTo("vllm:e2e_request_latency_seconds_bucket");
      assertThat(h.sumName()).isEqualTo("vllm:e2e_request_latency_seconds_sum");
      assertThat(h.countName()).isEqualTo("vllm:e2e_request_latency_seconds_count");
      // one _count series in the 0.10 fixture (engine "0"), five samples
      assertThat(store.select(e2e.selector(h.countName()), FixtureStore.T0_MS, FixtureStore.END_MS))
          .singleElement().satisfies(s -> assertThat(s.size()).isEqualTo(FixtureStore.SCRAPES));
      ResolvedSignal rate = new SignalResolver(CATALOG, CONFIG)
          .resolve(store, t, Signal.REQUEST_RATE, FixtureStore.T0_MS, FixtureStore.END_MS).orElseThrow();
      assertThat(rate.histogram()).isEmpty();
    }
  }

  @Test
  void tritonSourcesApplyTheirExtraMatchersAndTheModelAlias() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, "triton.prom", "triton", "trt-a:8002");
      Target t = Target.of("job", "triton", "instance", "trt-a:8002", "model_name", "tensorrt_llm");
      SignalResolver r = new SignalResolver(CATALOG, CONFIG);
      ResolvedSignal waiting =
          r.resolve(store, t, Signal.WAITING, FixtureStore.T0_MS, FixtureStore.END_MS).orElseThrow();
      assertThat(waiting.scopeMatchers()).contains(
          Matcher.eq("model", "tensorrt_llm"), Matcher.eq("request_type", "waiting"));
      assertThat(store.select(waiting.matchers(), FixtureStore.T0_MS, FixtureStore.END_MS))
          .singleElement().satisfies(s -> assertThat(s.value(0)).isEqualTo(19.0));
      ResolvedSignal e2e =
          r.resolve(store, t, Signal.E2E, FixtureStore.T0_MS, FixtureStore.END_MS).orElseThrow();
      assertThat(e2e.source().scale()).isEqualTo(1e-6);
      assertThat(e2e.denominatorSelectors()).containsExactly(List.of(
          Matcher.eq("__name__", "nv_inference_request_success"), Matcher.eq("job", "triton"),
          Matcher.eq("instance", "trt-a:8002"), Matcher.eq("model", "tensorrt_llm")));
    }
  }

  @Test
  void gpuAndKafkaFixturesAloneFormNoTarget() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "vllm-a:9400");
      FixtureStore.ingest(store, "kafka-exporter.prom", "kafka", "vllm-a:9308");
      FixtureStore.ingest(store, "node-exporter.prom", "node", "vllm-a:9100");
      assertThat(new TargetDiscovery(CATALOG)
          .discover(store, CONFIG, FixtureStore.T0_MS, FixtureStore.END_MS)).isEmpty();
    }
  }

  @Test
  void nothingResolvesOutsideTheRange() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, "vllm-0.13-v1.prom", "vllm", "vllm-a:8000");
      long after = FixtureStore.T0_MS + FixtureStore.SCRAPES * FixtureStore.SCRAPE_INTERVAL_MS;
      Target t = Target.of("job", "vllm", "instance", "vllm-a:8000", "model_name", "Qwen/Qwen3-32B-FP8");
      assertThat(new SignalResolver(CATALOG, CONFIG).resolveAll(store, t, after, FixtureStore.END_MS))
          .isEmpty();
      assertThat(new TargetDiscovery(CATALOG).discover(store, CONFIG, after, FixtureStore.END_MS))
          .isEmpty();
    }
  }

  @Test
  void newerSglangsRetractionCounterIsItsPreemptionSignal() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, "sglang.prom", "sglang", "sglang-a:30000");
      Target t = Target.of("job", "sglang", "instance", "sglang-a:30000",
          "model_name", "Qwen/Qwen3-8B");
      SignalResolver r = new SignalResolver(CATALOG, CONFIG);
      // the ~0.5 fixture has only the gauge, which is not a rate
      assertThat(r.resolve(store, t, Signal.PREEMPTIONS, FixtureStore.T0_MS, FixtureStore.END_MS))
          .isEmpty();
      long[] ts = new long[FixtureStore.SCRAPES];
      long[] bits = new long[FixtureStore.SCRAPES];
      for (int k = 0; k < ts.length; k++) {
        ts[k] = FixtureStore.T0_MS + k * FixtureStore.SCRAPE_INTERVAL_MS;
        bits[k] = Double.doubleToRawLongBits(40.0 + 3 * k);
      }
      store.append(List.of(new io.inferlens.storage.SeriesWrite(io.inferlens.storage.LabelSet.of(
          "__name__", "sglang:num_retracted_requests_total", "engine_type", "unified",
          "instance", "sglang-a:30000", "job", "sglang", "model_name", "Qwen/Qwen3-8B",
          "pp_rank", "0", "tp_rank", "0"), ts, bits, ts.length)));
      ResolvedSignal p = r.resolve(store, t, Signal.PREEMPTIONS, FixtureStore.T0_MS,
          FixtureStore.END_MS).orElseThrow();
      assertThat(p.metricName()).isEqualTo("sglang:num_retracted_requests_total");
      assertThat(store.select(p.matchers(), FixtureStore.T0_MS, FixtureStore.END_MS)).hasSize(1);
    }
  }
}
