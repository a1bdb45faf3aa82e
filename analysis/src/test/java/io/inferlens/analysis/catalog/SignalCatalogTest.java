package io.inferlens.analysis.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SignalCatalogTest {

  @TempDir Path dir;

  @Test
  void builtInCatalogCoversEverySignal() {
    SignalCatalog c = SignalCatalog.load();
    for (Signal s : Signal.values()) {
      assertThat(c.sources(s)).as(s.name()).isNotEmpty();
      assertThat(s.unit()).isNotEmpty();
      assertThat(s.description()).isNotEmpty();
    }
    assertThat(c.stacks()).containsKeys("vllm", "sglang", "tgi", "triton", "llamacpp", "dcgm", "kafka");
    assertThat(c.stack("triton").labelFor("model_name")).isEqualTo("model");
    assertThat(c.stack("vllm").labelFor("model_name")).isEqualTo("model_name");
  }

  @Test
  void builtInListsTheNewVllmNameBeforeItsDeprecatedAlias() {
    SignalCatalog c = SignalCatalog.load();
    assertThat(names(c, Signal.KV_CACHE_USAGE))
        .containsSubsequence("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc");
    assertThat(names(c, Signal.TPOT)).containsSubsequence(
        "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds",
        "vllm:request_time_per_output_token_seconds");
    MetricSource old = c.sources(Signal.KV_CACHE_USAGE).get(1);
    assertThat(old.deprecated()).isTrue();
    assertThat(old.replacedBy()).isEqualTo("vllm:kv_cache_usage_perc");
  }

  @Test
  void builtInSourcesCarryMatchersScalesRatiosAndIgnoredValues() {
    SignalCatalog c = SignalCatalog.load();
    MetricSource waiting = find(c, Signal.WAITING, "nv_trt_llm_request_metrics");
    assertThat(waiting.matchers()).containsExactly(Map.entry("request_type", "waiting"));
    MetricSource e2e = find(c, Signal.E2E, "nv_inference_request_duration_us");
    assertThat(e2e.scale()).isEqualTo(1e-6);
    assertThat(e2e.denominators()).containsExactly("nv_inference_request_success");
    MetricSource mem = find(c, Signal.GPU_MEM, "DCGM_FI_DEV_FB_USED");
    assertThat(mem.kind()).isEqualTo(SourceKind.GAUGE_RATIO);
    assertThat(mem.denominators()).containsExactly("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE");
    assertThat(mem.seriesNames()).containsExactly("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE");
    MetricSource lag = find(c, Signal.UPSTREAM_BACKLOG, "kafka_consumergroup_lag");
    assertThat(lag.ignoredValues()).containsExactly(-1.0);
    assertThat(lag.aggregation()).isEqualTo(Aggregation.SUM);
    MetricSource ttft = c.sources(Signal.TTFT).get(0);
    assertThat(ttft.seriesNames()).containsExactly("vllm:time_to_first_token_seconds_bucket",
        "vllm:time_to_first_token_seconds_sum", "vllm:time_to_first_token_seconds_count");
  }

  @Test
  void engineSeriesNamesExcludeGpuAndKafka() {
    Map<String, Stack> names = SignalCatalog.load().engineSeriesNames();
    assertThat(names).containsKeys("vllm:num_requests_waiting", "tgi_queue_size",
        "vllm:e2e_request_latency_seconds_count", "nv_inference_request_success");
    assertThat(names).doesNotContainKeys("DCGM_FI_DEV_GPU_UTIL", "kafka_consumergroup_lag");
  }

  @Test
  void userArrayPrependsSourcesAndKeepsTheBuiltIns() throws IOException {
    Path f = write("""
        { "stacks": { "gateway": { "role": "GATEWAY", "labelAliases": { "model_name": "model" },
                                   "joinOn": ["model_name"] } },
          "signals": { "E2E": [ { "name": "gateway_request_duration_seconds", "kind": "HISTOGRAM",
                                  "stack": "gateway", "comment": "Envoy AI gateway" } ] } }
        """);
    SignalCatalog c = SignalCatalog.load(f);
    assertThat(names(c, Signal.E2E)).first().isEqualTo("gateway_request_duration_seconds");
    assertThat(names(c, Signal.E2E)).contains("vllm:e2e_request_latency_seconds");
    assertThat(c.sources(Signal.TTFT)).isEqualTo(SignalCatalog.load().sources(Signal.TTFT));
    assertThat(c.stack("gateway").role()).isEqualTo(StackRole.GATEWAY);
    assertThat(c.stack("gateway").joinOn()).containsExactly("model_name");
  }

  @Test
  void userSourceReadingTheSameSeriesReplacesTheBuiltInOne() throws IOException {
    Path f = write("""
        { "signals": { "GPU_UTIL": [ { "name": "DCGM_FI_DEV_GPU_UTIL", "kind": "GAUGE",
                                       "stack": "dcgm", "aggregation": "MAX" } ] } }
        """);
    List<MetricSource> gpu = SignalCatalog.load(f).sources(Signal.GPU_UTIL);
    assertThat(gpu).hasSize(1);
    assertThat(gpu.get(0).aggregation()).isEqualTo(Aggregation.MAX);
  }

  @Test
  void userReplaceMakesTheUserSourcesTheOnlyOnes() throws IOException {
    Path f = write("""
        { "signals": { "WAITING": { "merge": "REPLACE", "sources": [
              { "name": "vllm:num_requests_waiting", "kind": "GAUGE", "stack": "vllm" } ] },
                       "PREEMPTIONS": { "merge": "REPLACE", "sources": [] } } }
        """);
    SignalCatalog c = SignalCatalog.load(f);
    assertThat(names(c, Signal.WAITING)).containsExactly("vllm:num_requests_waiting");
    assertThat(c.sources(Signal.PREEMPTIONS)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "not JSON           | { \"signals\": [ }                                                  | not valid JSON at line 1",
      "unknown signal     | { \"signals\": { \"TTFB\": [] } }                                   | signals.TTFB: unknown value \"TTFB\"",
      "unknown kind       | { \"signals\": { \"E2E\": [ { \"name\": \"x\", \"kind\": \"SUMMARY\", \"stack\": \"vllm\" } ] } } | signals.E2E[0] (\"x\").kind: unknown value \"SUMMARY\"",
      "missing stack      | { \"signals\": { \"E2E\": [ { \"name\": \"x\", \"kind\": \"GAUGE\" } ] } } | signals.E2E[0] (\"x\").stack: is required",
      "unknown stack      | { \"signals\": { \"E2E\": [ { \"name\": \"x\", \"kind\": \"GAUGE\", \"stack\": \"nope\" } ] } } | signals.E2E source \"x\": unknown stack \"nope\"",
      "typo key           | { \"signals\": { \"E2E\": [ { \"name\": \"x\", \"kind\": \"GAUGE\", \"stack\": \"vllm\", \"scael\": 2 } ] } } | unknown key \"scael\"",
      "ratio without den. | { \"signals\": { \"GPU_MEM\": [ { \"name\": \"x\", \"kind\": \"GAUGE_RATIO\", \"stack\": \"dcgm\" } ] } } | GAUGE_RATIO needs denominators",
      "bad scale          | { \"signals\": { \"E2E\": [ { \"name\": \"x\", \"kind\": \"GAUGE\", \"stack\": \"vllm\", \"scale\": 0 } ] } } | scale must be finite and > 0",
      "dangling replaced  | { \"signals\": { \"E2E\": [ { \"name\": \"x\", \"kind\": \"GAUGE\", \"stack\": \"vllm\", \"deprecated\": true, \"replacedBy\": \"y\" } ] } } | replacedBy \"y\" is not a source of the same signal",
      "bad version        | { \"version\": 2 }                                                 | version: must be 1",
      "duplicate key      | { \"signals\": {}, \"signals\": {} }                              | not valid JSON",
  })
  void malformedUserFileIsRejectedNamingFileAndEntry(String what, String json, String message)
      throws IOException {
    Path f = write(json);
    assertThatThrownBy(() -> SignalCatalog.load(f))
        .as(what)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("signal catalog " + f)
        .hasMessageContaining(message);
  }

  @Test
  void missingUserFileIsRejectedNamingIt() {
    Path f = dir.resolve("absent.json");
    assertThatThrownBy(() -> SignalCatalog.load(f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(f.toString());
  }

  private Path write(String json) throws IOException {
    Path f = dir.resolve("user-signals.json");
    Files.writeString(f, json);
    return f;
  }

  private static List<String> names(SignalCatalog c, Signal s) {
    return c.sources(s).stream().map(MetricSource::name).toList();
  }

  private static MetricSource find(SignalCatalog c, Signal s, String name) {
    return c.sources(s).stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
  }
}
