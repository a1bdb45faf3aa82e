package io.inferlens.analysis.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A model change on one instance shows as two spans, in time order. */
class VersionHistoryTest {

  private static final SignalCatalog CATALOG = SignalCatalog.load();
  private static final long TEN_MINUTES_MS = 600_000;

  @TempDir Path dir;

  @Test
  void modelChangeOnTheSameInstanceGivesTwoOrderedSpans() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      long t1 = FixtureStore.T0_MS + TEN_MINUTES_MS;
      // the newer model is ingested first, so ordering cannot come from insertion order
      FixtureStore.ingest(store, "vllm-0.13-v1.prom", "vllm", "vllm-a:8000", t1,
          l -> with(l, "model_name", "Qwen/Qwen3-32B-FP8-v2"));
      FixtureStore.ingest(store, "vllm-0.13-v1.prom", "vllm", "vllm-a:8000");
      FixtureStore.ingest(store, "vllm-0.13-v1.prom", "vllm", "vllm-b:8000");
      TargetConfig config = TargetConfig.defaults();
      TargetDiscovery discovery = new TargetDiscovery(CATALOG);

      assertThat(discovery.discover(store, config, FixtureStore.T0_MS, FixtureStore.END_MS))
          .extracting(t -> t.get("instance") + " " + t.get("model_name"))
          .containsExactly("vllm-a:8000 Qwen/Qwen3-32B-FP8", "vllm-a:8000 Qwen/Qwen3-32B-FP8-v2",
              "vllm-b:8000 Qwen/Qwen3-32B-FP8");

      List<VersionSpan> history = discovery.versionHistory(store, config,
          Target.of("job", "vllm", "instance", "vllm-a:8000"), FixtureStore.T0_MS, FixtureStore.END_MS);
      long lastScrape = (FixtureStore.SCRAPES - 1) * FixtureStore.SCRAPE_INTERVAL_MS;
      assertThat(history).containsExactly(
          new VersionSpan("Qwen/Qwen3-32B-FP8", "", FixtureStore.T0_MS, FixtureStore.T0_MS + lastScrape),
          new VersionSpan("Qwen/Qwen3-32B-FP8-v2", "", t1, t1 + lastScrape));
      assertThat(history.get(0).lastMs()).isLessThan(history.get(1).firstMs());

      // a full target (with model_name) asks the same question: the model label is ignored
      assertThat(discovery.versionHistory(store, config, Target.of("job", "vllm",
          "instance", "vllm-a:8000", "model_name", "x"), FixtureStore.T0_MS, FixtureStore.END_MS))
          .isEqualTo(history);
    }
  }

  @Test
  void tritonReportsModelAndVersionLabels() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      FixtureStore.ingest(store, "triton.prom", "triton", "trt-a:8002");
      FixtureStore.ingest(store, "triton.prom", "triton", "trt-a:8002",
          FixtureStore.T0_MS + TEN_MINUTES_MS, l -> l.containsKey("version") ? with(l, "version", "2") : l);
      List<VersionSpan> history = new TargetDiscovery(CATALOG).versionHistory(store,
          TargetConfig.defaults(), Target.of("job", "triton", "instance", "trt-a:8002"),
          FixtureStore.T0_MS, FixtureStore.END_MS);
      assertThat(history).extracting(v -> v.model() + "@" + v.version())
          .containsExactly("tensorrt_llm@1", "tensorrt_llm@2");
    }
  }

  private static Map<String, String> with(Map<String, String> labels, String name, String value) {
    Map<String, String> m = new LinkedHashMap<>(labels);
    m.put(name, value);
    return m;
  }
}
