package io.inferlens.analysis.cardinality;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.analysis.incident.MutableClock;
import io.inferlens.analysis.target.FixtureStore;
import io.inferlens.storage.AppendResult;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesLimits;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CardinalityWatch} on a real store (RocksDB in a temporary directory): a user_id bomb
 * raises one finding naming the metric, the job and instance, and the label, with its numbers;
 * a growing fleet (new targets, a new model) and fixture scrapes with their histogram buckets
 * stay silent; the per-metric limit's refusals are evidence; a journal's open finding is held or
 * resolved after a restart.
 */
class CardinalityWatchTest {

  static final long MINUTE = 60_000L;
  static final List<String> TARGET_LABELS = List.of("job", "instance", "model_name");

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(FixtureStore.T0_MS + 3_600_000L);
  TimeSeriesStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private CardinalityWatch open(SeriesLimits limits) throws Exception {
    store = TimeSeriesStore.open(StoreOptions.defaults(dir).withSeriesLimits(limits), clock);
    return new CardinalityWatch(store, TARGET_LABELS, CardinalityRule.DEFAULTS);
  }

  /** Writes one sample of each series {@code first..last} of a user_id label. */
  private AppendResult users(String metric, int first, int last) throws Exception {
    List<SeriesWrite> w = new ArrayList<>();
    for (int u = first; u < last; u++) {
      w.add(write(clock.ms - 1_000, "__name__", metric, "job", "chat-api", "instance",
          "api-1:8080", "route", "/v1/chat", "user_id", String.format("u%05d", u)));
    }
    return store.append(w);
  }

  /** Writes {@code buckets} bucket series of one histogram for a vLLM target. */
  private void histogram(String instance, String model, int buckets) throws Exception {
    List<SeriesWrite> w = new ArrayList<>();
    for (int b = 0; b < buckets; b++) {
      w.add(write(clock.ms - 1_000, "__name__", "vllm:e2e_request_latency_seconds_bucket",
          "job", "vllm", "instance", instance, "model_name", model, "le", Integer.toString(b)));
    }
    store.append(w);
  }

  private static SeriesWrite write(long t, String... kv) {
    return new SeriesWrite(LabelSet.of(kv), new long[] {t},
        new long[] {Double.doubleToRawLongBits(1)}, 1);
  }

  private List<Diagnosis> after(CardinalityWatch watch, long ms) throws Exception {
    clock.ms += ms;
    return watch.findings(clock.ms);
  }

  private static Evidence evidence(Diagnosis d, String signal) {
    return d.chain().get(0).evidence().stream().filter(e -> e.signal().equals(signal))
        .findFirst().orElseThrow(() -> new AssertionError("no evidence " + signal + " in " + d));
  }

  @Test
  void aUserIdBombNamesTheMetricTheSenderAndTheLabel() throws Exception {
    CardinalityWatch watch = open(SeriesLimits.DEFAULTS);
    users("chat_requests_total", 0, 10);
    for (int i = 0; i < 3; i++) {
      histogram("gpu-" + i + ":8000", "llama", 30);
    }
    assertThat(watch.findings(clock.ms)).isEmpty();
    long sampledAt = clock.ms;
    clock.ms += 1_000;
    users("chat_requests_total", 10, 5_010);
    histogram("gpu-0:8000", "llama", 30);
    // Less than a sample interval after the last sample: no new sample, nothing yet.
    assertThat(after(watch, MINUTE - 1_001)).isEmpty();
    List<Diagnosis> found = after(watch, 1);
    assertThat(found).hasSize(1);
    Diagnosis d = found.get(0);
    assertThat(d.cause()).isEqualTo(Cause.CARDINALITY_EXPLOSION);
    assertThat(d.severity()).isEqualTo("warning");
    assertThat(d.target()).containsExactly(Map.entry("job", "chat-api"),
        Map.entry("instance", "api-1:8080"), Map.entry("metric", "chat_requests_total"));
    assertThat(d.startMs()).isEqualTo(sampledAt + MINUTE);
    assertThat(d.endMs()).isNull();
    assertThat(d.id()).isEqualTo("chat-api~api-1%3A8080~chat_requests_total/cardinality_explosion/"
        + d.startMs());
    assertThat(evidence(d, "series").value()).isEqualTo(5_010);
    assertThat(evidence(d, "series").baseline()).isEqualTo(10.0);
    assertThat(evidence(d, "series").promql()).isEqualTo("count({__name__=\"chat_requests_total\"})");
    assertThat(evidence(d, "targets").value()).isEqualTo(1);
    assertThat(evidence(d, "targets").baseline()).isEqualTo(1.0);
    assertThat(evidence(d, "series_per_target").threshold()).isEqualTo(30.0);
    assertThat(evidence(d, "growth").value()).isEqualTo(501.0);
    Evidence users = evidence(d, "label_values:user_id");
    assertThat(users.value()).isEqualTo(5_010);
    assertThat(users.baseline()).isEqualTo(10.0);
    assertThat(users.promql())
        .isEqualTo("count(count by (user_id) ({__name__=\"chat_requests_total\"}))");
    assertThat(evidence(d, "refused_series").value()).isEqualTo(0);
    assertThat(d.summary()).contains("chat_requests_total grew from 10 to 5,010 active series",
        "label user_id went from 10 to 5,010 values", "drop or relabel user_id");
    assertThat(d.recommendations().get(0)).contains("metric_relabel_configs:",
        "- action: labeldrop", "regex: user_id");
    assertThat(d.recommendations().get(1)).contains("write_relabel_configs:",
        "regex: 'chat_requests_total'", "action: drop");

    // It holds, with the same id and start, while the series stay.
    users("chat_requests_total", 0, 5_010);
    List<Diagnosis> later = after(watch, MINUTE);
    assertThat(later).extracting(Diagnosis::id).containsExactly(d.id());
    assertThat(later.get(0).endMs()).isNull();
  }

  @Test
  void aGrowingFleetAndANewModelAreSilent() throws Exception {
    CardinalityWatch watch = open(SeriesLimits.DEFAULTS);
    for (int i = 0; i < 10; i++) {
      histogram("gpu-" + i + ":8000", "llama", 300);
    }
    assertThat(watch.findings(clock.ms)).isEmpty();
    // 40 new replicas with their series: 12,000 new series, 300 per target as before.
    for (int i = 10; i < 50; i++) {
      histogram("gpu-" + i + ":8000", "llama", 300);
    }
    assertThat(after(watch, MINUTE)).isEmpty();
    // Every replica also serves a second model: targets and series double together.
    for (int i = 0; i < 50; i++) {
      histogram("gpu-" + i + ":8000", "qwen", 300);
    }
    assertThat(after(watch, MINUTE)).isEmpty();
    assertThat(after(watch, 10 * MINUTE)).isEmpty();
  }

  @Test
  void aBombOnOneReplicaOfAFleetIsNamedWithItsLabel() throws Exception {
    CardinalityWatch watch = open(SeriesLimits.DEFAULTS);
    for (int i = 0; i < 100; i++) {
      histogram("gpu-" + i + ":8000", "llama", 30);
    }
    assertThat(watch.findings(clock.ms)).isEmpty();
    clock.ms += 1_000;
    // One replica's new build adds a request_id label to its buckets: 2,000 more series.
    List<SeriesWrite> w = new ArrayList<>();
    for (int r = 0; r < 2_000; r++) {
      w.add(write(clock.ms - 1_000, "__name__", "vllm:e2e_request_latency_seconds_bucket",
          "job", "vllm", "instance", "gpu-7:8000", "model_name", "llama", "le", "1",
          "request_id", "r" + r));
    }
    store.append(w);
    List<Diagnosis> found = after(watch, MINUTE);
    assertThat(found).hasSize(1);
    Diagnosis d = found.get(0);
    // The job spans 100 instances: the target names the job, the summary the busiest target.
    assertThat(d.target()).containsExactly(Map.entry("job", "vllm"),
        Map.entry("metric", "vllm:e2e_request_latency_seconds_bucket"));
    assertThat(evidence(d, "series_per_target").value()).isEqualTo(50.0);
    assertThat(evidence(d, "busiest_target_series").value()).isEqualTo(2_030);
    assertThat(evidence(d, "busiest_target_series").baseline()).isEqualTo(30.0);
    assertThat(evidence(d, "label_values:request_id").value()).isEqualTo(2_000);
    assertThat(d.summary()).contains(
        "its busiest target (job=vllm, instance=gpu-7:8000, model_name=llama) went from 30 to"
            + " 2,030", "label request_id went from 0 to 2,000 values");
  }

  @Test
  void fixtureScrapesOfAWholeFleetWithTheirBucketsAreSilent() throws Exception {
    CardinalityWatch watch = open(SeriesLimits.DEFAULTS);
    long t0 = clock.ms - 120_000;
    FixtureStore.ingest(store, "vllm-0.13-v1.prom", "vllm", "gpu-0:8000", t0,
        UnaryOperator.identity());
    assertThat(watch.findings(clock.ms)).isEmpty();
    // 60 replicas, and the GPUs' exporters, appear within a minute.
    for (int i = 1; i <= 60; i++) {
      FixtureStore.ingest(store, "vllm-0.13-v1.prom", "vllm", "gpu-" + i + ":8000", t0,
          UnaryOperator.identity());
      FixtureStore.ingest(store, "dcgm-exporter.prom", "dcgm", "gpu-" + i + ":9400", t0,
          UnaryOperator.identity());
    }
    assertThat(store.activeSeriesCount()).isGreaterThan(10_000);
    assertThat(after(watch, MINUTE)).isEmpty();
  }

  @Test
  void aNewMetricArrivingWithTheMinimumPerTargetIsAnExplosion() throws Exception {
    CardinalityWatch watch = open(SeriesLimits.DEFAULTS);
    histogram("gpu-0:8000", "llama", 30);
    assertThat(watch.findings(clock.ms)).isEmpty();
    clock.ms += 1_000;
    users("chat_requests_total", 0, 999);
    assertThat(after(watch, 89_000)).isEmpty();
    users("chat_requests_total", 999, 1_000);
    List<Diagnosis> found = after(watch, MINUTE);
    assertThat(found).hasSize(1);
    assertThat(found.get(0).summary()).startsWith(
        "chat_requests_total is new with 1,000 active series on 1 target within 3m (1,000 per"
            + " target); label user_id went from 0 to 1,000 values");
    assertThat(CardinalityWatch.window(61_363)).isEqualTo("1m");
    assertThat(CardinalityWatch.window(29_600)).isEqualTo("30s");
  }

  @Test
  void aNewReplicaWith64DataParallelEnginesIsSilentAndAHundredNewValuesAreNot() throws Exception {
    CardinalityWatch watch = open(SeriesLimits.DEFAULTS);
    histogram("gpu-0:8000", "llama", 30);
    assertThat(watch.findings(clock.ms)).isEmpty();
    // vLLM 0.13 with 64 engines: 64 engine values x 23 buckets = 1,472 series on one target.
    List<SeriesWrite> w = new ArrayList<>();
    for (int e = 0; e < 64; e++) {
      for (int b = 0; b < 23; b++) {
        w.add(write(clock.ms - 1_000, "__name__", "vllm:time_to_first_token_seconds_bucket",
            "job", "vllm", "instance", "dp-0:8000", "model_name", "llama", "engine",
            Integer.toString(e), "le", Integer.toString(b)));
      }
    }
    store.append(w);
    assertThat(after(watch, MINUTE)).isEmpty();
    assertThat(after(watch, MINUTE)).isEmpty();
    // The label's boundary: 99 new values are bounded, 100 are not (half the new series when a
    // per-metric limit of 100 lowers the minimum to 50).
    CardinalityRule rule = CardinalityRule.DEFAULTS;
    assertThat(rule.labelExplodes(0, 99, 0)).isFalse();
    assertThat(rule.labelExplodes(0, 100, 0)).isTrue();
    assertThat(rule.labelExplodes(0, 49, 100)).isFalse();
    assertThat(rule.labelExplodes(0, 50, 100)).isTrue();
  }

  @Test
  void perMetricLimitRefusalsAreEvidenceAndMakeItCritical() throws Exception {
    CardinalityWatch watch = open(new SeriesLimits(SeriesLimits.DEFAULT_MAX_SERIES, 1_000));
    users("chat_requests_total", 0, 10);
    users("other_total", 0, 10);
    assertThat(watch.findings(clock.ms)).isEmpty();
    clock.ms += 1_000;
    AppendResult r = users("chat_requests_total", 10, 5_010);
    assertThat(r.limitRefusals()).hasSize(1);
    List<Diagnosis> found = after(watch, MINUTE);
    assertThat(found).hasSize(1);
    Diagnosis d = found.get(0);
    assertThat(d.target().get("metric")).isEqualTo("chat_requests_total");
    assertThat(d.severity()).isEqualTo("critical");
    assertThat(evidence(d, "series").value()).isEqualTo(1_000);
    assertThat(evidence(d, "refused_series").value()).isEqualTo(4_010);
    assertThat(evidence(d, "refused_series").threshold()).isEqualTo(1_000.0);
    assertThat(d.summary()).contains(
        "4,010 new series refused by --limits.max-series-per-metric=1000");
  }

  @Test
  void aRestoredFindingIsHeldWhileItsMetricStaysAndResolvedOnceItIsBack() throws Exception {
    CardinalityWatch first = open(SeriesLimits.DEFAULTS);
    users("chat_requests_total", 0, 10);
    first.findings(clock.ms);
    clock.ms += 1_000;
    users("chat_requests_total", 10, 2_010);
    Diagnosis d = after(first, MINUTE).get(0);

    // A new watch (a restart) holds it by the recorded baseline: 10 per target, x3 is 30.
    CardinalityWatch second = new CardinalityWatch(store, TARGET_LABELS,
        CardinalityRule.DEFAULTS);
    second.restore(List.of(d));
    List<Diagnosis> held = after(second, MINUTE);
    assertThat(held).extracting(Diagnosis::id).containsExactly(d.id());
    assertThat(held.get(0).startMs()).isEqualTo(d.startMs());
    assertThat(held.get(0).endMs()).isNull();

    // A baseline the metric is no longer 3x above: resolved at the sample, once.
    Diagnosis big = new Diagnosis(d.id(), d.cause(), d.severity(), d.target(), d.startMs(),
        null, d.summary(), List.of(new io.inferlens.analysis.diagnose.ChainLayer("cardinality",
            "exploding", List.of(new Evidence("series_per_target", 2_010, 2_100.0, 700.0,
                "series", "1m", 700, 2_010, null, "ratio")))), d.recommendations(), false);
    CardinalityWatch third = new CardinalityWatch(store, TARGET_LABELS, CardinalityRule.DEFAULTS);
    third.restore(List.of(big));
    List<Diagnosis> resolved = after(third, MINUTE);
    assertThat(resolved).hasSize(1);
    assertThat(resolved.get(0).id()).isEqualTo(d.id());
    assertThat(resolved.get(0).endMs()).isEqualTo(clock.ms);
    assertThat(after(third, MINUTE)).isEmpty();
  }
}
