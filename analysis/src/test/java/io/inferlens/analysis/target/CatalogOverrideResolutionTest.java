package io.inferlens.analysis.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user catalog changes which series a signal resolves to. */
class CatalogOverrideResolutionTest {

  private static final long START = FixtureStore.T0_MS;
  private static final long END = FixtureStore.END_MS;
  private static final Target A = Target.of(
      "job", "vllm", "instance", "vllm-a:8000", "model_name", "Qwen/Qwen3-32B-FP8");

  @TempDir Path dir;

  @Test
  void userGatewayHistogramIsUsedForE2eAndDoesNotFormATarget() throws Exception {
    Path file = dir.resolve("signals.json");
    Files.writeString(file, """
        { "stacks": { "gateway": { "role": "GATEWAY", "labelAliases": { "model_name": "model" },
                                   "joinOn": ["model_name"] } },
          "signals": { "E2E": [ { "name": "gateway_request_duration_seconds", "kind": "HISTOGRAM",
                                  "stack": "gateway" } ] } }
        """);
    SignalCatalog catalog = SignalCatalog.load(file);
    try (TimeSeriesStore store = FixtureStore.open(dir.resolve("db"))) {
      FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-a:8000");
      store.append(gatewayHistogram("Qwen/Qwen3-32B-FP8"));
      store.append(gatewayHistogram("other-model"));

      assertThat(new TargetDiscovery(catalog).discover(store, TargetConfig.defaults(), START, END))
          .containsExactly(A);
      SignalResolver r = new SignalResolver(catalog, TargetConfig.defaults());
      ResolvedSignal e2e = r.resolve(store, A, Signal.E2E, START, END).orElseThrow();
      assertThat(e2e.metricName()).isEqualTo("gateway_request_duration_seconds");
      assertThat(e2e.scopeMatchers()).containsExactly(Matcher.eq("model", "Qwen/Qwen3-32B-FP8"));
      assertThat(store.select(e2e.matchers(), START, END)).hasSize(3); // three le buckets
      // a model the gateway does not serve keeps its engine's histogram
      FixtureStore.ingest(store, "sglang.prom", "sglang", "sglang-a:30000");
      Target sglang = Target.of("job", "sglang", "instance", "sglang-a:30000", "model_name", "Qwen/Qwen3-8B");
      assertThat(r.resolve(store, sglang, Signal.E2E, START, END).orElseThrow().metricName())
          .isEqualTo("sglang:e2e_request_latency_seconds");
    }
  }

  @Test
  void deprecatedNamePrependedByTheUserStillLosesToItsReplacement() throws Exception {
    Path file = dir.resolve("signals.json");
    Files.writeString(file, """
        { "signals": { "KV_CACHE_USAGE": { "merge": "REPLACE", "sources": [
            { "name": "vllm:gpu_cache_usage_perc", "kind": "GAUGE", "stack": "vllm",
              "deprecated": true, "replacedBy": "vllm:kv_cache_usage_perc" },
            { "name": "vllm:kv_cache_usage_perc", "kind": "GAUGE", "stack": "vllm" } ] } } }
        """);
    SignalResolver r = new SignalResolver(SignalCatalog.load(file), TargetConfig.defaults());
    try (TimeSeriesStore store = FixtureStore.open(dir.resolve("db"))) {
      FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-a:8000");
      FixtureStore.ingest(store, "vllm-0.6-v0.prom", "vllm", "vllm-old:8000");
      assertThat(r.resolve(store, A, Signal.KV_CACHE_USAGE, START, END).orElseThrow().metricName())
          .isEqualTo("vllm:kv_cache_usage_perc");
      Target old = Target.of("job", "vllm", "instance", "vllm-old:8000",
          "model_name", "Qwen/Qwen2.5-32B-Instruct");
      assertThat(r.resolve(store, old, Signal.KV_CACHE_USAGE, START, END).orElseThrow().metricName())
          .isEqualTo("vllm:gpu_cache_usage_perc");
    }
  }

  /** A three-bucket histogram of a gateway in front of the engines, with Triton-style {@code model}. */
  private static List<SeriesWrite> gatewayHistogram(String model) {
    List<SeriesWrite> out = new ArrayList<>();
    String[][] series = {
        {"gateway_request_duration_seconds_bucket", "1"}, {"gateway_request_duration_seconds_bucket", "10"},
        {"gateway_request_duration_seconds_bucket", "+Inf"}, {"gateway_request_duration_seconds_sum", ""},
        {"gateway_request_duration_seconds_count", ""}};
    for (int i = 0; i < series.length; i++) {
      LabelSet ls = LabelSet.of("__name__", series[i][0], "job", "gateway", "instance", "gw-0:8080",
          "model", model, "le", series[i][1]);
      long[] ts = new long[FixtureStore.SCRAPES];
      long[] bits = new long[FixtureStore.SCRAPES];
      for (int k = 0; k < ts.length; k++) {
        ts[k] = START + k * FixtureStore.SCRAPE_INTERVAL_MS;
        bits[k] = Double.doubleToRawLongBits(10.0 * (i + 1) * (k + 1));
      }
      out.add(new SeriesWrite(ls, ts, bits, ts.length));
    }
    return out;
  }
}
