package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Retention, flush and the statistics methods. */
class MaintenanceTest extends StoreTestBase {

  private static final LabelSet M = LabelSet.of("__name__", "m");
  private static final LabelSet N = LabelSet.of("__name__", "n");
  private static final long HOUR_MS = 3_600_000;

  @Test
  void retentionDeletesOnlySamplesOlderThanTheHorizon() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(2 * HOUR_MS))) {
      long t = NOW_MS - HOUR_MS;
      store.append(List.of(write(M, t, 1, t + 10, 2, t + 20, 3), write(N, t, 4)));

      // Two hours later the horizon is t + 10: t is deleted, t + 10 kept (the horizon itself stays).
      store.enforceRetention(t + 10 + 2 * HOUR_MS);

      List<Series> got = store.select(List.of(Matcher.re("__name__", "m|n")), Long.MIN_VALUE,
          Long.MAX_VALUE);
      assertThat(got).extracting(Series::labels).containsExactly(M);
      assertThat(got.get(0).timestampsMs()).containsExactly(t + 10, t + 20);
      // The index keeps the emptied series for now.
      assertThat(store.seriesCount()).isEqualTo(2);
      assertThat(store.series(List.of(), Long.MIN_VALUE, Long.MAX_VALUE)).containsExactly(M);
    }
  }

  @Test
  void appendAfterRetentionStillDetectsConflictsWithKeptSamples() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(2 * HOUR_MS))) {
      long t = NOW_MS - HOUR_MS;
      store.append(List.of(write(M, t, 1, t + 10, 2)));
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
}
