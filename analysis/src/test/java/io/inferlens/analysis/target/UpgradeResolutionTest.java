package io.inferlens.analysis.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.diagnose.IndicatorQueries;
import io.inferlens.analysis.promql.engine.Engine;
import io.inferlens.analysis.promql.engine.EngineOptions;
import io.inferlens.analysis.promql.engine.PointSeries;
import io.inferlens.analysis.promql.engine.QueryResult;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine upgraded in place across a metric rename (vLLM 0.6 V0, then 0.10 V1, same instance
 * and model): the new names are resolved, and the old ones kept as fallbacks for the part of the
 * range before the upgrade, so KV-cache usage and inter-token latency do not vanish there.
 */
class UpgradeResolutionTest {

  private static final long START = FixtureStore.T0_MS;
  private static final long END = FixtureStore.END_MS;
  private static final long UPGRADE = START + 30 * 60_000L;
  private static final String MODEL = "Qwen/Qwen3-32B-FP8";
  private static final Target A = Target.of("job", "vllm", "instance", "vllm-a:8000",
      "model_name", MODEL);
  private static final SignalResolver RESOLVER =
      new SignalResolver(SignalCatalog.load(), TargetConfig.defaults());

  @TempDir Path dir;

  private TimeSeriesStore upgradedStore() throws Exception {
    TimeSeriesStore store = FixtureStore.open(dir.resolve("db"));
    FixtureStore.ingest(store, "vllm-0.6-v0.prom", "vllm", "vllm-a:8000", START, labels -> {
      if (labels.containsKey("model_name")) {
        labels.put("model_name", MODEL);
      }
      return labels;
    });
    FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-a:8000", UPGRADE, l -> l);
    return store;
  }

  @Test
  void renamedSignalsKeepTheOldNameAsFallbackBeforeTheUpgrade() throws Exception {
    try (TimeSeriesStore store = upgradedStore()) {
      ResolvedSignal kv = RESOLVER.resolve(store, A, Signal.KV_CACHE_USAGE, START, END)
          .orElseThrow();
      assertThat(kv.metricName()).isEqualTo("vllm:kv_cache_usage_perc");
      assertThat(kv.fallback()).isNotNull();
      assertThat(kv.fallback().metricName()).isEqualTo("vllm:gpu_cache_usage_perc");
      assertThat(kv.fallback().scopeMatchers()).containsExactly(Matcher.eq("job", "vllm"),
          Matcher.eq("instance", "vllm-a:8000"), Matcher.eq("model_name", MODEL));
      ResolvedSignal tpot = RESOLVER.resolve(store, A, Signal.TPOT, START, END).orElseThrow();
      assertThat(tpot.metricName()).isEqualTo("vllm:inter_token_latency_seconds");
      assertThat(tpot.fallback().metricName()).isEqualTo("vllm:time_per_output_token_seconds");
      // Names that did not change have no fallback.
      assertThat(RESOLVER.resolve(store, A, Signal.PREEMPTIONS, START, END).orElseThrow()
          .fallback()).isNull();
      // After the upgrade the old name is 0.10's alias, as new as its replacement: no fallback.
      Map<Signal, ResolvedSignal> after = RESOLVER.resolveAll(store, A, UPGRADE, END);
      assertThat(after.values()).allSatisfy(r -> assertThat(r.fallback()).isNull());
      assertThat(after.get(Signal.KV_CACHE_USAGE).metricName())
          .isEqualTo("vllm:kv_cache_usage_perc");
    }
  }

  @Test
  void theIndicatorReadsTheOldNameBeforeAndTheNewOneAfter() throws Exception {
    try (TimeSeriesStore store = upgradedStore()) {
      ResolvedSignal kv = RESOLVER.resolve(store, A, Signal.KV_CACHE_USAGE, START, END)
          .orElseThrow();
      String text = IndicatorQueries.text(kv, Indicator.KV_CACHE_USAGE, 300_000);
      assertThat(text).startsWith("avg(vllm:kv_cache_usage_perc{")
          .contains(" or avg(vllm:gpu_cache_usage_perc{");
      QueryResult r = new Engine(store, EngineOptions.DEFAULTS).range(
          IndicatorQueries.of(kv, Indicator.KV_CACHE_USAGE, 300_000), START + 30_000,
          UPGRADE + 30_000, UPGRADE - START);
      assertThat(r.matrix()).hasSize(1);
      PointSeries p = r.matrix().get(0);
      assertThat(p.size()).isEqualTo(2);
      // the fixtures' values: V0 gpu_cache_usage_perc 0.78, 0.10 kv_cache_usage_perc 0.954
      // (gauges dip by up to 4 % per scrape in FixtureStore)
      assertThat(p.value(0)).isBetween(0.74, 0.79);
      assertThat(p.value(1)).isBetween(0.91, 0.96);
    }
  }

  @Test
  void anEngineThatAlwaysHadBothNamesGetsNoFallback() throws Exception {
    try (TimeSeriesStore store = FixtureStore.open(dir.resolve("db"))) {
      FixtureStore.ingest(store, "vllm-0.10-v1.prom", "vllm", "vllm-a:8000");
      List<ResolvedSignal> all = List.copyOf(RESOLVER.resolveAll(store, A, START, END).values());
      assertThat(all).isNotEmpty().allSatisfy(r -> assertThat(r.fallback()).isNull());
    }
  }
}
