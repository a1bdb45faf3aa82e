package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TimeSeriesStore#metricCardinality}: exact counts of series, targets, distinct label
 * values and per-metric refusals; the busiest target and its job's single instance; only active
 * series; the metric cap; bad arguments named.
 */
class CardinalitySamplerTest extends StoreTestBase {

  static final List<String> TARGETS = List.of("job", "instance", "model_name");

  private static SeriesWrite one(long t, String... kv) {
    return write(LabelSet.of(kv), t, 1);
  }

  @Test
  void countsSeriesTargetsValuesAndRefusals() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir)
        .withSeriesLimits(new SeriesLimits(0, 50)))) {
      long t = NOW_MS - 1_000;
      List<SeriesWrite> w = new ArrayList<>();
      for (int u = 0; u < 60; u++) {
        w.add(one(t, "__name__", "chat_requests_total", "job", "chat", "instance", "a:1",
            "user_id", "u" + u, "route", u % 2 == 0 ? "/a" : "/b"));
      }
      for (int i = 0; i < 3; i++) {
        for (int m = 0; m < 2; m++) {
          for (int le = 0; le < 4; le++) {
            w.add(one(t, "__name__", "lat_bucket", "job", "vllm", "instance", "g" + i,
                "model_name", "m" + m, "le", Integer.toString(le)));
          }
        }
      }
      w.add(one(t, "__name__", "lat_bucket", "job", "vllm", "instance", "g0", "model_name",
          "m0", "le", "+Inf"));
      AppendResult r = store.append(w);
      assertThat(r.limitRefusals()).hasSize(1);

      List<MetricCardinality> all = store.metricCardinality(TARGETS, 10);
      assertThat(all).extracting(MetricCardinality::metric)
          .containsExactly("chat_requests_total", "lat_bucket");
      MetricCardinality chat = all.get(0);
      assertThat(chat.series()).isEqualTo(50);
      assertThat(chat.targets()).isEqualTo(1);
      assertThat(chat.labelValues()).containsExactly(Map.entry("instance", 1),
          Map.entry("job", 1), Map.entry("route", 2), Map.entry("user_id", 50));
      assertThat(chat.refusedPerMetric()).isEqualTo(10);
      assertThat(chat.topTarget()).containsExactly(Map.entry("job", "chat"),
          Map.entry("instance", "a:1"));
      assertThat(chat.topTargetSeries()).isEqualTo(50);
      assertThat(chat.topJobSingleInstance()).isEqualTo("a:1");

      MetricCardinality lat = all.get(1);
      assertThat(lat.series()).isEqualTo(25);
      assertThat(lat.targets()).isEqualTo(6);
      assertThat(lat.labelValues()).containsEntry("le", 5).containsEntry("instance", 3)
          .containsEntry("model_name", 2);
      assertThat(lat.refusedPerMetric()).isZero();
      // g0/m0 has the +Inf bucket too: 5 series, the busiest target; vllm has 3 instances.
      assertThat(lat.topTarget()).containsExactly(Map.entry("job", "vllm"),
          Map.entry("instance", "g0"), Map.entry("model_name", "m0"));
      assertThat(lat.topTargetSeries()).isEqualTo(5);
      assertThat(lat.topJobSingleInstance()).isNull();

      // The cap keeps the largest metrics.
      assertThat(store.metricCardinality(TARGETS, 1)).extracting(MetricCardinality::metric)
          .containsExactly("chat_requests_total");
    }
  }

  @Test
  void inactiveSeriesAreNotCounted() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(List.of(one(NOW_MS - 1_000, "__name__", "up", "job", "a", "instance", "1"),
          one(NOW_MS - 1_000, "__name__", "up", "job", "a", "instance", "2")));
      clock.set(NOW_MS + 30 * 60_000L);
      store.append(List.of(one(NOW_MS + 29 * 60_000L, "__name__", "up", "job", "a",
          "instance", "2")));
      clock.set(NOW_MS + SeriesLimits.ACTIVE_WINDOW_MS + 1_000);
      store.background.backgroundTick();
      MetricCardinality up = store.metricCardinality(TARGETS, 10).get(0);
      assertThat(up.series()).isEqualTo(1);
      assertThat(up.labelValues()).containsEntry("instance", 1);
      assertThat(up.topJobSingleInstance()).isEqualTo("2");
    }
  }

  @Test
  void badArgumentsAreNamed() throws Exception {
    try (TimeSeriesStore store = open()) {
      assertThatThrownBy(() -> store.metricCardinality(List.of(), 10))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetLabels");
      assertThatThrownBy(() -> store.metricCardinality(TARGETS, 0))
          .hasMessageContaining("maxMetrics must be at least 1 (0)");
    }
  }
}
