package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Retention, flush and the statistics methods. */
class MaintenanceTest extends StoreTestBase {

  private static final LabelSet M = LabelSet.of("__name__", "m");
  private static final LabelSet N = LabelSet.of("__name__", "n");
  private static final long HOUR_MS = 3_600_000;

  private static final long DAY_MS = 24 * HOUR_MS;

  @Test
  void retentionDropsWholeDaysThatEndedBeforeTheHorizon() throws Exception {
    long day0 = Math.floorDiv(NOW_MS, DAY_MS) * DAY_MS - 2 * DAY_MS;
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(3 * DAY_MS))) {
      store.append(List.of(
          write(M, day0 + 10, 1, day0 + DAY_MS + 10, 2, day0 + 2 * DAY_MS + 10, 3),
          write(N, day0 + 20, 4)));
      store.flush();
      assertThat(store.partitionNames()).filteredOn(n -> n.startsWith("chunks_")).hasSize(3);

      // The horizon falls inside day 1: day 0 ended before it and goes whole, day 1 stays whole.
      int dropped = store.enforceRetention(day0 + DAY_MS + 12 * HOUR_MS + 3 * DAY_MS);

      assertThat(dropped).isEqualTo(1);
      assertThat(store.partitionNames()).filteredOn(n -> n.startsWith("chunks_")).hasSize(2);
      List<Series> got = store.select(List.of(Matcher.re("__name__", "m|n")), Long.MIN_VALUE,
          Long.MAX_VALUE);
      assertThat(got).extracting(Series::labels).containsExactly(M);
      assertThat(got.get(0).timestampsMs()).containsExactly(day0 + DAY_MS + 10,
          day0 + 2 * DAY_MS + 10);
      // The index keeps the emptied series: its rollups outlive its samples.
      assertThat(store.seriesCount()).isEqualTo(2);
      assertThat(store.series(List.of(), Long.MIN_VALUE, Long.MAX_VALUE)).containsExactly(M);
      assertThat(store.selectRollups(List.of(Matcher.eq("__name__", "n")), day0, NOW_MS,
          Resolution.FIVE_MINUTES)).hasSize(1);
    }
  }

  @Test
  void appendAfterRetentionStillDetectsConflictsWithKeptSamples() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(2 * HOUR_MS))) {
      long t = NOW_MS - HOUR_MS;
      store.append(List.of(write(M, t, 1, t + 10, 2)));
      store.flush();
      store.enforceRetention(NOW_MS);

      AppendResult r = store.append(List.of(write(M, t + 10, 9)));
      assertThat(r.rejectedCount()).isEqualTo(1);
    }
  }

  @Test
  void statisticsReflectStoredData() throws Exception {
    try (TimeSeriesStore store = open()) {
      long emptySize = store.diskSizeBytes();
      double[] pairs = new double[2 * 1000];
      for (int i = 0; i < 1000; i++) {
        pairs[2 * i] = NOW_MS - 1_000_000 + i;
        pairs[2 * i + 1] = i;
      }
      store.append(List.of(write(M, pairs), write(N, NOW_MS, 1)));
      store.flush();

      assertThat(store.seriesCount()).isEqualTo(2);
      // An estimate: exact after a flush with no deletes, but only promised to be close.
      assertThat(store.sampleCountEstimate()).isBetween(900L, 1100L);
      assertThat(store.diskSizeBytes()).isGreaterThan(emptySize);
    }
  }

  @Test
  void syncWalStoreAppendsAndReopens() throws Exception {
    StoreOptions options = StoreOptions.defaults(dir).withSyncWal(true);
    try (TimeSeriesStore store = open(options)) {
      assertThat(store.append(List.of(write(M, NOW_MS, 1))).samplesAppended()).isEqualTo(1);
    }
    try (TimeSeriesStore store = open(options)) {
      assertThat(store.select(List.of(Matcher.eq("__name__", "m")), NOW_MS, NOW_MS)).hasSize(1);
    }
  }

  /**
   * Retention drops partitions while another thread appends at full speed and reads: every
   * append succeeds, and every sample newer than the horizon is there afterwards.
   */
  @Test
  void retentionRunsBesideAppendsAndReads() throws Exception {
    long day0 = Math.floorDiv(NOW_MS, DAY_MS) * DAY_MS - 5 * DAY_MS;
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(3 * DAY_MS)
        .withHeadMaxSamples(5_000))) {
      // Five days of history, one sample a minute, flushed into five day partitions.
      for (long t = day0; t < day0 + 5 * DAY_MS; t += 60_000) {
        store.append(List.of(write(M, t, 1)));
      }
      store.flush();
      java.util.concurrent.atomic.AtomicReference<Throwable> failed =
          new java.util.concurrent.atomic.AtomicReference<>();
      Thread writer = new Thread(() -> {
        try {
          for (int i = 0; i < 20_000; i++) {
            AppendResult r = store.append(List.of(write(N, NOW_MS - 20_000 + i, i)));
            if (r.samplesAppended() != 1) {
              throw new AssertionError("append " + i + ": " + r);
            }
            if (i % 2_000 == 0) {
              store.select(List.of(Matcher.eq("__name__", "m")), day0, NOW_MS);
            }
          }
        } catch (Throwable t) {
          failed.set(t);
        }
      });
      writer.start();
      int dropped = 0;
      for (int k = 0; k < 3; k++) {
        dropped += store.enforceRetention(NOW_MS + k * DAY_MS);
      }
      writer.join();
      assertThat(failed.get()).isNull();
      assertThat(dropped).isPositive();
      assertThat(store.select(List.of(Matcher.eq("__name__", "n")), 0, Long.MAX_VALUE).get(0)
          .size()).isEqualTo(20_000);
    }
  }
}
