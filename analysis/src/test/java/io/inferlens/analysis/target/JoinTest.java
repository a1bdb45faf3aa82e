package io.inferlens.analysis.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GPU (dcgm-exporter) and Kafka (kafka_exporter) series join the vLLM target of their host only. */
class JoinTest {

  private static final SignalCatalog CATALOG = SignalCatalog.load();
  private static final long START = FixtureStore.T0_MS;
  private static final long END = FixtureStore.END_MS;
  private static final String MODEL = "Qwen/Qwen3-32B-FP8";
  private static final Target A = Target.of("job", "vllm", "instance", "vllm-a:8000", "model_name", MODEL);
  private static final Target B = Target.of("job", "vllm", "instance", "vllm-b:8000", "model_name", MODEL);

  @TempDir Path dir;

  @Test
  void dcgmSeriesJoinByInstanceHost() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      twoServers(store);
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "vllm-a:9400");
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "vllm-b:9400");
      SignalResolver r = new SignalResolver(CATALOG, TargetConfig.defaults());

      assertThat(new TargetDiscovery(CATALOG).discover(store, TargetConfig.defaults(), START, END))
          .containsExactly(A, B);
      ResolvedSignal util = r.resolve(store, A, Signal.GPU_UTIL, START, END).orElseThrow();
      assertThat(util.metricName()).isEqualTo("DCGM_FI_DEV_GPU_UTIL");
      List<Series> gpus = store.select(util.matchers(), START, END);
      assertThat(gpus).hasSize(2)
          .allSatisfy(s -> assertThat(s.labels().get("instance")).isEqualTo("vllm-a:9400"));

      ResolvedSignal mem = r.resolve(store, B, Signal.GPU_MEM, START, END).orElseThrow();
      assertThat(mem.metricName()).isEqualTo("DCGM_FI_DEV_FB_USED");
      for (List<Matcher> sel : mem.denominatorSelectors()) {
        assertThat(store.select(sel, START, END)).hasSize(2)
            .allSatisfy(s -> assertThat(s.labels().get("instance")).isEqualTo("vllm-b:9400"));
      }
    }
  }

  @Test
  void dcgmSeriesJoinByHostnameLabelWhenTheExporterRunsElsewhere() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      twoServers(store);
      // released 4.x: Hostname; HEAD after dcgm-exporter PR #655: hostname
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "10.0.0.5:9400", FixtureStore.T0_MS,
          l -> relabel(l, "Hostname", "vllm-a"));
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "10.0.0.6:9400", FixtureStore.T0_MS,
          l -> {
            Map<String, String> m = relabel(l, "Hostname", null);
            return relabel(m, "hostname", "vllm-b");
          });
      SignalResolver r = new SignalResolver(CATALOG, TargetConfig.defaults());
      ResolvedSignal a = r.resolve(store, A, Signal.GPU_UTIL, START, END).orElseThrow();
      assertThat(a.scopeMatchers()).containsExactly(Matcher.eq("Hostname", "vllm-a"));
      assertThat(store.select(a.matchers(), START, END))
          .allSatisfy(s -> assertThat(s.labels().get("instance")).isEqualTo("10.0.0.5:9400"));
      ResolvedSignal b = r.resolve(store, B, Signal.GPU_UTIL, START, END).orElseThrow();
      assertThat(b.scopeMatchers()).containsExactly(Matcher.eq("hostname", "vllm-b"));
      assertThat(store.select(b.matchers(), START, END)).hasSize(2)
          .allSatisfy(s -> assertThat(s.labels().get("instance")).isEqualTo("10.0.0.6:9400"));
    }
  }

  @Test
  void targetWithoutGpuSeriesOnItsHostHasNoGpuSignals() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      twoServers(store);
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "vllm-a:9400");
      SignalResolver r = new SignalResolver(CATALOG, TargetConfig.defaults());
      assertThat(r.resolveAll(store, B, START, END))
          .doesNotContainKeys(Signal.GPU_UTIL, Signal.GPU_MEM)
          .containsKeys(Signal.TTFT, Signal.KV_CACHE_USAGE);
      assertThat(r.resolveAll(store, A, START, END)).containsKeys(Signal.GPU_UTIL, Signal.GPU_MEM);
    }
  }

  @Test
  void kafkaSeriesJoinByInstanceHost() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      twoServers(store);
      FixtureStore.ingest(store, "kafka-exporter.prom", "kafka", "vllm-a:9308");
      SignalResolver r = new SignalResolver(CATALOG, TargetConfig.defaults());
      ResolvedSignal lag = r.resolve(store, A, Signal.UPSTREAM_BACKLOG, START, END).orElseThrow();
      assertThat(lag.metricName()).isEqualTo("kafka_consumergroup_lag");
      assertThat(lag.source().ignoredValues()).containsExactly(-1.0);
      assertThat(store.select(lag.matchers(), START, END)).hasSize(18); // 12 + 6 partitions
      assertThat(r.resolve(store, B, Signal.UPSTREAM_BACKLOG, START, END)).isEmpty();
    }
  }

  @Test
  void kafkaSeriesJoinByConsumerGroupMapping() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir)) {
      twoServers(store);
      FixtureStore.ingest(store, "kafka-exporter.prom", "kafka", "kafka-exporter:9308");
      SignalResolver byHost = new SignalResolver(CATALOG, TargetConfig.defaults());
      assertThat(byHost.resolve(store, A, Signal.UPSTREAM_BACKLOG, START, END)).isEmpty();

      TargetConfig mapped = TargetConfig.defaults().withConsumerGroupTargets(Map.of(
          "inference-dispatcher", A.id(), "response-writer", "vllm-b"));
      SignalResolver r = new SignalResolver(CATALOG, mapped);
      ResolvedSignal a = r.resolve(store, A, Signal.UPSTREAM_BACKLOG, START, END).orElseThrow();
      assertThat(store.select(a.matchers(), START, END)).hasSize(12)
          .allSatisfy(s -> assertThat(s.labels().get("consumergroup")).isEqualTo("inference-dispatcher"));
      ResolvedSignal b = r.resolve(store, B, Signal.UPSTREAM_BACKLOG, START, END).orElseThrow();
      assertThat(store.select(b.matchers(), START, END)).hasSize(6)
          .allSatisfy(s -> assertThat(s.labels().get("consumergroup")).isEqualTo("response-writer"));
    }
  }

  private static void twoServers(TimeSeriesStore store) throws Exception {
    FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-a:8000");
    FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-b:8000");
  }

  private static Map<String, String> relabel(Map<String, String> labels, String name, String value) {
    Map<String, String> m = new java.util.LinkedHashMap<>(labels);
    if (value == null) {
      m.remove(name);
    } else {
      m.put(name, value);
    }
    return m;
  }
}
