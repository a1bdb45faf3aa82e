package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The idle flush: after a burst, the head goes into chunks and the log is truncated without an
 * admin call, and finished windows get finalized. A fake clock is advanced; the test calls the
 * background tick itself instead of waiting for the thread.
 */
class IdleFlushTest extends StoreTestBase {

  private static final long HOUR = 3_600_000L;
  private static final long T0 = NOW_MS - 5 * HOUR;

  /** {@code series} series of {@code perSeries} samples 15 s apart from {@link #T0}. */
  private static List<SeriesWrite> burst(int series, int perSeries) {
    List<SeriesWrite> out = new ArrayList<>();
    for (int s = 0; s < series; s++) {
      long[] ts = new long[perSeries];
      long[] vb = new long[perSeries];
      for (int i = 0; i < perSeries; i++) {
        ts[i] = T0 + i * 15_000L;
        vb[i] = bits(s * 1000 + i);
      }
      out.add(rawWrite(LabelSet.of("__name__", "m", "i", Integer.toString(s)), ts, vb));
    }
    return out;
  }

  /** Bytes of RocksDB's WAL files ({@code *.log}) in the store's directory. */
  private long walBytes() throws java.io.IOException {
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log"))
          .mapToLong(f -> f.toFile().length()).sum();
    }
  }

  @Test
  void idleHeadIsFlushedAndFinishedWindowsFinalized() throws Exception {
    try (TimeSeriesStore store = open()) {
      // 200 series x 1,000 samples (4 h 10 min): 200,000 samples, over the idle minimum.
      store.append(burst(200, 1_000));
      long total = 200_000;
      assertThat(store.headSampleCount()).isEqualTo(total);
      long logBytes = store.bytesByKind().get(Keys.CF_HEAD_LOG);

      store.background.backgroundTick(); // not idle yet: nothing moves
      assertThat(store.headSampleCount()).isEqualTo(total);

      clock.set(clock.millis() + TimeSeriesStore.IDLE_FLUSH_MS);
      store.background.backgroundTick();
      assertThat(store.headSampleCount()).isZero();
      assertThat(store.chunkSamplesStored()).isEqualTo(total);
      // The log's memtable was flushed and its range delete compacted away.
      assertThat(store.bytesByKind().get(Keys.CF_HEAD_LOG)).isLessThan(logBytes / 4);
      // Windows that ended the grace before now are finalized by the clock, though no newer
      // sample will ever close them (the newest sample is 50 min old).
      long closedBefore = clock.millis() - TimeSeriesStore.CLOSE_GRACE_MS;
      long lastTs = T0 + 999 * 15_000L;
      long lastWindowEnd = TimeSeriesStore.windowStart(lastTs) + TimeSeriesStore.WINDOW_MS;
      if (lastWindowEnd <= closedBefore) {
        assertThat(store.finalizeWindows(true)).isZero();
      } else {
        // The last window is still open by the clock: only it is pending, one per series.
        assertThat(store.finalizeWindows(false)).isZero();
        clock.set(lastWindowEnd + TimeSeriesStore.CLOSE_GRACE_MS);
        store.background.backgroundTick();
        assertThat(store.finalizeWindows(true)).isZero();
      }
      // Every memtable written before or by the finalization was flushed, so RocksDB freed the
      // WAL files: what is left on disk is chunks, rollups and the index, not the head log.
      assertThat(walBytes()).isLessThan(64 * 1024);
      List<RollupSeries> r = store.selectRollups(List.of(Matcher.eq("__name__", "m")), T0,
          lastTs, Resolution.FIVE_MINUTES);
      assertThat(r).hasSize(200);
      List<Series> raw = store.select(List.of(Matcher.eq("i", "7")), T0, lastTs);
      assertThat(raw.get(0).size()).isEqualTo(1_000);
    }
  }

  @Test
  void smallHeadIsNotFlushedWhenIdle() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(burst(10, 100)); // 1,000 samples, under the minimum
      clock.set(clock.millis() + 10 * TimeSeriesStore.IDLE_FLUSH_MS);
      store.background.backgroundTick();
      assertThat(store.headSampleCount()).isEqualTo(1_000);
      assertThat(store.chunkSamplesStored()).isZero();
    }
  }
}
