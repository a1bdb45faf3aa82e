package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TimeSeriesStore#tsdbStatus}: every count of Prometheus's TSDB status computed by hand
 * for a known set of series, the top-k cut with its tie order, and inactive series left out.
 */
class TsdbStatusTest extends StoreTestBase {

  private static final long T = NOW_MS - 60_000;

  private static TsdbStatus.Stat stat(String name, long value) {
    return new TsdbStatus.Stat(name, value);
  }

  /** a: 3 series (job x, instance i1..i3), b: 2 (job x, i1, i2), c: 1 (job y, i1). */
  private static void writeThreeMetrics(TimeSeriesStore store) throws StorageException {
    store.append(List.of(
        write(LabelSet.of("__name__", "a", "job", "x", "instance", "i1"), T, 1, T + 15_000, 2),
        write(LabelSet.of("__name__", "a", "job", "x", "instance", "i2"), T, 1),
        write(LabelSet.of("__name__", "a", "job", "x", "instance", "i3"), T, 1),
        write(LabelSet.of("__name__", "b", "job", "x", "instance", "i1"), T, 1),
        write(LabelSet.of("__name__", "b", "job", "x", "instance", "i2"), T - 5_000, 1),
        write(LabelSet.of("__name__", "c", "job", "y", "instance", "i1"), T, 1)));
  }

  @Test
  void countsMatchWhatWasWritten() throws Exception {
    try (TimeSeriesStore store = open()) {
      writeThreeMetrics(store);
      TsdbStatus s = store.tsdbStatus(10);

      // __name__ {a, b, c} + job {x, y} + instance {i1, i2, i3}.
      assertThat(s.headStats()).isEqualTo(
          new TsdbStatus.HeadStats(6, 8, 6, T - 5_000, T + 15_000));
      assertThat(s.seriesCountByMetricName())
          .containsExactly(stat("a", 3), stat("b", 2), stat("c", 1));
      assertThat(s.labelValueCountByLabelName())
          .containsExactly(stat("__name__", 3), stat("instance", 3), stat("job", 2));
      // Bytes of the distinct values (Prometheus 2.42): instance 2 + 2 + 2, __name__ 1 + 1 + 1,
      // job 1 + 1.
      assertThat(s.memoryInBytesByLabelName())
          .containsExactly(stat("instance", 6), stat("__name__", 3), stat("job", 2));
      assertThat(s.seriesCountByLabelValuePair()).containsExactly(stat("job=x", 5),
          stat("__name__=a", 3), stat("instance=i1", 3), stat("__name__=b", 2),
          stat("instance=i2", 2), stat("__name__=c", 1), stat("instance=i3", 1),
          stat("job=y", 1));
    }
  }

  @Test
  void limitCutsEachListToTheLargest() throws Exception {
    try (TimeSeriesStore store = open()) {
      writeThreeMetrics(store);
      TsdbStatus s = store.tsdbStatus(2);
      assertThat(s.seriesCountByMetricName()).containsExactly(stat("a", 3), stat("b", 2));
      assertThat(s.labelValueCountByLabelName())
          .containsExactly(stat("__name__", 3), stat("instance", 3));
      assertThat(s.memoryInBytesByLabelName())
          .containsExactly(stat("instance", 6), stat("__name__", 3));
      assertThat(s.seriesCountByLabelValuePair())
          .containsExactly(stat("job=x", 5), stat("__name__=a", 3));
      // The totals do not depend on the limit.
      assertThat(s.headStats().numSeries()).isEqualTo(6);
      assertThat(s.headStats().numLabelPairs()).isEqualTo(8);
      assertThatThrownBy(() -> store.tsdbStatus(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("limit must be a positive number");
    }
  }

  @Test
  void multiByteValuesCountTheirUtf8Bytes() throws Exception {
    try (TimeSeriesStore store = open()) {
      // "é" is 2 bytes, "日本" 6.
      store.append(List.of(write(LabelSet.of("__name__", "m", "city", "é"), T, 1),
          write(LabelSet.of("__name__", "m", "city", "日本"), T, 1)));
      assertThat(store.tsdbStatus(10).memoryInBytesByLabelName())
          .containsExactly(stat("city", 8), stat("__name__", 1));
    }
  }

  @Test
  void anEmptyStoreAnswersAsPrometheussEmptyHead() throws Exception {
    try (TimeSeriesStore store = open()) {
      TsdbStatus s = store.tsdbStatus(10);
      assertThat(s.headStats())
          .isEqualTo(new TsdbStatus.HeadStats(0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE));
      assertThat(s.seriesCountByMetricName()).isEmpty();
      assertThat(s.seriesCountByLabelValuePair()).isEmpty();
    }
  }

  @Test
  void seriesIdleForAnHourLeaveTheStatus() throws Exception {
    try (TimeSeriesStore store = open()) {
      writeThreeMetrics(store);
      clock.set(NOW_MS + SeriesLimits.ACTIVE_WINDOW_MS - 60_000);
      store.append(List.of(write(LabelSet.of("__name__", "c", "job", "y", "instance", "i1"),
          T + 60_000, 5)));
      clock.set(NOW_MS + SeriesLimits.ACTIVE_WINDOW_MS + 1_000);
      store.background.backgroundTick();
      TsdbStatus s = store.tsdbStatus(10);
      assertThat(s.headStats().numSeries()).isEqualTo(1);
      assertThat(s.headStats().numLabelPairs()).isEqualTo(3);
      assertThat(s.seriesCountByMetricName()).containsExactly(stat("c", 1));
      assertThat(s.seriesCountByLabelValuePair()).containsExactly(stat("__name__=c", 1),
          stat("instance=i1", 1), stat("job=y", 1));
      // The index keeps the idle series: they are readable, only not counted as active.
      assertThat(store.seriesCount()).isEqualTo(6);
    }
  }
}
