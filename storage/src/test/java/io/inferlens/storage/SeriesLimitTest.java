package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The active-series limits ({@link SeriesLimits}) at their boundary and one past it, on a real
 * store: only series that would become active are refused, samples of active series always
 * stored, the other series of the same call stored, idle series released by the sweep.
 */
class SeriesLimitTest extends StoreTestBase {

  private static final long T = NOW_MS - 60_000;

  private static LabelSet series(String metric, String label, int i) {
    return LabelSet.of("__name__", metric, label, "v" + i);
  }

  private TimeSeriesStore open(long maxSeries, long maxPerMetric) throws StorageException {
    return open(StoreOptions.defaults(dir)
        .withSeriesLimits(new SeriesLimits(maxSeries, maxPerMetric)));
  }

  private static long stored(TimeSeriesStore store, String metric) throws StorageException {
    long n = 0;
    for (Series s : store.select(List.of(Matcher.eq("__name__", metric)), 0, Long.MAX_VALUE)) {
      n += s.timestampsMs().length;
    }
    return n;
  }

  @Test
  void globalLimitAdmitsUpToItsValueAndRefusesTheNextNewSeriesOnly() throws Exception {
    try (TimeSeriesStore store = open(3, 0)) {
      // At the boundary: 3 new series under a limit of 3.
      AppendResult atLimit = store.append(List.of(write(series("m", "i", 1), T, 1),
          write(series("m", "i", 2), T, 1), write(series("other", "i", 3), T, 1)));
      assertThat(atLimit.seriesCreated()).isEqualTo(3);
      assertThat(atLimit.limitRefusals()).isEmpty();
      assertThat(store.activeSeriesCount()).isEqualTo(3);

      // One past it: the 4th and 5th new series are refused, existing series keep their samples.
      clock.set(NOW_MS + 1_000);
      AppendResult past = store.append(List.of(
          write(series("m", "i", 1), T + 1000, 2),
          write(series("m", "i", 4), T + 1000, 4, T + 2000, 5),
          write(series("m", "i", 2), T + 1000, 2),
          write(series("m", "i", 5), T + 1000, 5)));
      assertThat(past.samplesAppended()).isEqualTo(2);
      assertThat(past.seriesCreated()).isZero();
      assertThat(past.rejectedCount()).isZero();
      assertThat(past.limitRefusals()).hasSize(1);
      AppendResult.LimitRefusal r = past.limitRefusals().get(0);
      assertThat(r.limit()).isEqualTo(SeriesLimits.Kind.MAX_SERIES);
      assertThat(r.limitValue()).isEqualTo(3);
      assertThat(r.activeCount()).isEqualTo(3);
      assertThat(r.firstSeries()).isEqualTo(series("m", "i", 4));
      assertThat(r.series()).isEqualTo(2);
      assertThat(r.samples()).isEqualTo(3);
      assertThat(past.samplesLimited()).isEqualTo(3);
      assertThat(r.message()).contains("--limits.max-series=3", "metric \"m\"",
          "2 new series (3 samples)", "i=\"v4\"");
      assertThat(stored(store, "m")).isEqualTo(4);
      assertThat(store.seriesCount()).isEqualTo(3);
      assertThat(store.activeSeriesCount()).isEqualTo(3);
    }
  }

  @Test
  void aCallOverTheLimitStoresItsFirstSeriesUpToTheLimit() throws Exception {
    try (TimeSeriesStore store = open(5, 0)) {
      List<SeriesWrite> writes = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        writes.add(write(series("m", "i", i), T, i));
      }
      AppendResult r = store.append(writes);
      assertThat(r.seriesCreated()).isEqualTo(5);
      assertThat(r.limitRefusals().get(0).series()).isEqualTo(3);
      assertThat(r.limitRefusals().get(0).activeCount()).isEqualTo(5);
      assertThat(r.limitRefusals().get(0).firstSeries()).isEqualTo(series("m", "i", 5));
      assertThat(store.activeSeriesCount()).isEqualTo(5);
    }
  }

  @Test
  void perMetricLimitRefusesOnlyThatMetricsNewSeries() throws Exception {
    try (TimeSeriesStore store = open(0, 2)) {
      AppendResult first = store.append(List.of(write(series("bomb", "user", 1), T, 1),
          write(series("bomb", "user", 2), T, 1), write(series("ok", "pod", 1), T, 1)));
      assertThat(first.limitRefusals()).isEmpty();

      AppendResult second = store.append(List.of(write(series("bomb", "user", 3), T, 1),
          write(series("ok", "pod", 2), T, 1), write(series("ok", "pod", 3), T, 1),
          write(series("bomb", "user", 1), T + 1000, 2), write(series("bomb", "user", 4), T, 1)));
      assertThat(second.limitRefusals()).hasSize(1);
      AppendResult.LimitRefusal r = second.limitRefusals().get(0);
      assertThat(r.limit()).isEqualTo(SeriesLimits.Kind.MAX_SERIES_PER_METRIC);
      assertThat(r.firstMetric()).isEqualTo("bomb");
      assertThat(r.activeCount()).isEqualTo(2);
      // bomb's user 3 and 4, and ok's pod 3: ok had 1 active series, pod 2 brings it to its own
      // limit of 2, so pod 3 is refused under the same limit; bomb's user 1 is active and kept.
      assertThat(r.series()).isEqualTo(3);
      assertThat(r.message()).contains("--limits.max-series-per-metric=2", "metric \"bomb\"");
      assertThat(second.seriesCreated()).isEqualTo(1);
      assertThat(stored(store, "ok")).isEqualTo(2);
      assertThat(stored(store, "bomb")).isEqualTo(3);
    }
  }

  @Test
  void otherMetricsAreNotAffectedByAFullMetric() throws Exception {
    try (TimeSeriesStore store = open(0, 3)) {
      List<SeriesWrite> writes = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        writes.add(write(series("bomb", "user", i), T, i));
      }
      for (int i = 0; i < 3; i++) {
        writes.add(write(series("vllm_waiting", "pod", i), T, i));
      }
      AppendResult r = store.append(writes);
      assertThat(r.seriesCreated()).isEqualTo(6);
      assertThat(r.limitRefusals()).hasSize(1);
      assertThat(r.limitRefusals().get(0).series()).isEqualTo(7);
      assertThat(stored(store, "vllm_waiting")).isEqualTo(3);
      assertThat(stored(store, "bomb")).isEqualTo(3);
    }
  }

  @Test
  void bothLimitsAreReportedInTheOrderTheyFirstRefused() throws Exception {
    try (TimeSeriesStore store = open(4, 2)) {
      AppendResult r = store.append(List.of(write(series("a", "x", 1), T, 1),
          write(series("a", "x", 2), T, 1), write(series("a", "x", 3), T, 1),
          write(series("b", "x", 1), T, 1), write(series("c", "x", 1), T, 1),
          write(series("d", "x", 1), T, 1)));
      assertThat(r.seriesCreated()).isEqualTo(4);
      assertThat(r.limitRefusals()).extracting(AppendResult.LimitRefusal::limit)
          .containsExactly(SeriesLimits.Kind.MAX_SERIES_PER_METRIC, SeriesLimits.Kind.MAX_SERIES);
      assertThat(r.limitRefusals().get(1).firstSeries()).isEqualTo(series("d", "x", 1));
    }
  }

  @Test
  void idleSeriesBecomeInactiveAfterAnHourAndFreeTheirPlace() throws Exception {
    try (TimeSeriesStore store = open(2, 0)) {
      store.append(List.of(write(series("m", "i", 1), T, 1), write(series("m", "i", 2), T, 1)));
      clock.set(NOW_MS + 30 * 60_000L);
      store.append(List.of(write(series("m", "i", 2), T + 30 * 60_000L, 2)));
      store.background.backgroundTick();
      assertThat(store.activeSeriesCount()).isEqualTo(2);
      assertThat(store.append(List.of(write(series("m", "i", 3), T + 30 * 60_000L, 3)))
          .limitRefusals()).hasSize(1);

      // Series 1 last appended at NOW_MS: an hour and a second later it is idle.
      clock.set(NOW_MS + SeriesLimits.ACTIVE_WINDOW_MS + 1_000);
      store.background.backgroundTick();
      assertThat(store.activeSeriesCount()).isEqualTo(1);
      long t = NOW_MS + SeriesLimits.ACTIVE_WINDOW_MS;
      AppendResult r = store.append(List.of(write(series("m", "i", 3), t, 3)));
      assertThat(r.seriesCreated()).isEqualTo(1);
      assertThat(r.limitRefusals()).isEmpty();

      // Now full again: series 1 coming back is a new active series for the limit (Mimir's
      // head drops idle series the same way), so it is refused; its stored samples stay.
      AppendResult back = store.append(List.of(write(series("m", "i", 1), t, 9)));
      assertThat(back.limitRefusals()).hasSize(1);
      assertThat(back.limitRefusals().get(0).firstSeries()).isEqualTo(series("m", "i", 1));
      // A re-sent sample it already holds is a duplicate, not a refusal, and activates nothing.
      AppendResult resent = store.append(List.of(write(series("m", "i", 1), T, 1)));
      assertThat(resent.samplesDuplicate()).isEqualTo(1);
      assertThat(resent.limitRefusals()).isEmpty();
      assertThat(store.activeSeriesCount()).isEqualTo(2);
    }
  }

  @Test
  void afterARestartTheReplayedHeadsSeriesAreActive() throws Exception {
    StoreOptions options = StoreOptions.defaults(dir).withSeriesLimits(new SeriesLimits(3, 0));
    try (TimeSeriesStore store = open(options)) {
      store.append(List.of(write(series("m", "i", 1), T, 1), write(series("m", "i", 2), T, 1),
          write(series("m", "i", 3), T, 1)));
    }
    try (TimeSeriesStore store = open(options)) {
      assertThat(store.activeSeriesCount()).isEqualTo(3);
      AppendResult r = store.append(List.of(write(series("m", "i", 1), T + 1000, 2),
          write(series("m", "i", 4), T + 1000, 1)));
      assertThat(r.samplesAppended()).isEqualTo(1);
      assertThat(r.limitRefusals()).hasSize(1);
    }
  }

  @Test
  void aFailedWriteLeavesNoReservationBehind() throws Exception {
    FaultInjectionTest.FailingFacade[] facade = new FaultInjectionTest.FailingFacade[1];
    try (TimeSeriesStore store = TimeSeriesStore.open(StoreOptions.defaults(dir)
        .withSeriesLimits(new SeriesLimits(2, 0)), clock, real -> {
          facade[0] = new FaultInjectionTest.FailingFacade(real);
          return facade[0];
        })) {
      store.append(List.of(write(series("m", "i", 1), T, 1)));
      facade[0].failWrites = true;
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.append(List.of(
          write(series("m", "i", 2), T, 1)))).isInstanceOf(StorageException.class);
      facade[0].failWrites = false;
      assertThat(store.activeSeriesCount()).isEqualTo(1);
      // The failed call's reservation is gone: the second series still fits, a third does not.
      AppendResult r = store.append(List.of(write(series("m", "i", 2), T, 1),
          write(series("m", "i", 3), T, 1)));
      assertThat(r.seriesCreated()).isEqualTo(1);
      assertThat(r.limitRefusals()).hasSize(1);
      assertThat(r.limitRefusals().get(0).firstSeries()).isEqualTo(series("m", "i", 3));
      assertThat(store.activeSeriesCount()).isEqualTo(2);
    }
  }

  @Test
  void zeroTurnsTheLimitsOff() throws Exception {
    try (TimeSeriesStore store = open(0, 0)) {
      List<SeriesWrite> writes = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        writes.add(write(series("m", "i", i), T, i));
      }
      assertThat(store.append(writes).seriesCreated()).isEqualTo(2_000);
      assertThat(store.activeSeriesCount()).isEqualTo(2_000);
    }
  }

  @Test
  void negativeLimitsAreRefusedNamingTheFlag() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SeriesLimits(-1, 0))
        .hasMessageContaining("--limits.max-series");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SeriesLimits(0, -1))
        .hasMessageContaining("--limits.max-series-per-metric");
  }
}
