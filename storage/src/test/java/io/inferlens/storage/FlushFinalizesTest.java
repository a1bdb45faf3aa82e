package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A head flush that holds the whole of a closed window writes it final, with its rollups, and
 * leaves no mark for finalization; a later sample of such a window, or of a window with stored
 * chunks, is marked and finalized as before, so the rollups always cover every stored sample.
 */
class FlushFinalizesTest extends StoreTestBase {

  private static final long HOUR_MS = 3_600_000L;
  private static final LabelSet SERIES = LabelSet.of("__name__", "vllm:num_requests_running");

  /** 15 s samples of a gauge-like value from {@code fromMs} (inclusive) to {@code toMs}. */
  private static List<long[]> samples(long fromMs, long toMs) {
    List<long[]> out = new ArrayList<>();
    for (long t = fromMs; t < toMs; t += 15_000) {
      out.add(new long[] {t, bits(3 + Math.floorMod(t / 15_000, 7) * 0.25)});
    }
    return out;
  }

  private static SeriesWrite writeOf(List<long[]> samples) {
    long[] ts = new long[samples.size()];
    long[] vb = new long[samples.size()];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = samples.get(i)[0];
      vb[i] = samples.get(i)[1];
    }
    return rawWrite(SERIES, ts, vb);
  }

  /** Asserts that the store's rollups at {@code res} are those of exactly {@code all}. */
  private static void assertRollupsCover(TimeSeriesStore store, List<long[]> all, Resolution res)
      throws StorageException {
    List<long[]> sorted = new ArrayList<>(all);
    sorted.sort((a, b) -> Long.compare(a[0], b[0]));
    long[] ts = sorted.stream().mapToLong(s -> s[0]).toArray();
    long[] vb = sorted.stream().mapToLong(s -> s[1]).toArray();
    RollupBlock expected = RollupBlock.compute(ts, vb, ts.length, res.intervalMs());
    List<RollupSeries> got = store.selectRollups(
        List.of(Matcher.eq("__name__", "vllm:num_requests_running")), 0, NOW_MS, res);
    assertThat(got).hasSize(1);
    RollupSeries r = got.get(0);
    assertThat(r.startsMs()).as(res + " interval starts")
        .containsExactly(Arrays.copyOf(expected.starts, expected.size));
    assertThat(r.counts()).as(res + " counts")
        .containsExactly(Arrays.copyOf(expected.counts, expected.size));
    assertThat(r.sum()).as(res + " sums").containsExactly(Arrays.copyOf(expected.sum, expected.size));
    assertThat(r.max()).as(res + " max").containsExactly(Arrays.copyOf(expected.max, expected.size));
  }

  @Test
  void aWholeClosedWindowIsWrittenFinalByTheFlush() throws Exception {
    long ws = TimeSeriesStore.windowStart(NOW_MS - 12 * HOUR_MS);
    // Two and a half windows in one flush: the first two are whole and closed.
    List<long[]> all = samples(ws, ws + 5 * HOUR_MS);
    try (TimeSeriesStore store = open()) {
      store.append(List.of(writeOf(all)));
      store.flushHead();
      // Reads cover the open third window from its raw samples meanwhile.
      assertRollupsCover(store, all, Resolution.FIVE_MINUTES);
      // Only the open third window waits for finalization.
      assertThat(store.finalizeWindows(true)).isEqualTo(1);
      assertRollupsCover(store, all, Resolution.FIVE_MINUTES);
      assertRollupsCover(store, all, Resolution.ONE_HOUR);
      assertThat(store.chunkSamplesStored()).isEqualTo(all.size());
    }
  }

  @Test
  void aLateSampleOfAFinalWindowMarksItAgain() throws Exception {
    long ws = TimeSeriesStore.windowStart(NOW_MS - 12 * HOUR_MS);
    List<long[]> all = new ArrayList<>(samples(ws, ws + 5 * HOUR_MS));
    try (TimeSeriesStore store = open()) {
      store.append(List.of(writeOf(all)));
      store.flushHead();
      store.finalizeWindows(true);
      // Out of order into the first window, which the flush wrote final.
      List<long[]> late = List.of(new long[] {ws + 30 * 60_000L + 7_000, bits(42)});
      all.addAll(late);
      store.append(List.of(writeOf(late)));
      store.flushHead();
      assertThat(store.finalizeWindows(false)).isEqualTo(1);
      assertRollupsCover(store, all, Resolution.FIVE_MINUTES);
      assertRollupsCover(store, all, Resolution.ONE_HOUR);
      assertThat(store.chunkSamplesStored()).isEqualTo(all.size());
    }
  }

  @Test
  void aWindowWithStoredChunksIsMergedNotOverwritten() throws Exception {
    long ws = TimeSeriesStore.windowStart(NOW_MS - 12 * HOUR_MS);
    List<long[]> all = new ArrayList<>(samples(ws, ws + HOUR_MS));
    try (TimeSeriesStore store = open()) {
      store.append(List.of(writeOf(all)));
      store.flushHead(); // the first half of the window: a marked chunk
      store.finalizeWindows(true);
    }
    // After a restart the rest of the window and 15 minutes of the next come in one flush:
    // the window has a stored chunk, so the flush must mark it rather than write it final.
    List<long[]> rest = samples(ws + HOUR_MS, ws + 2 * HOUR_MS + 15 * 60_000L);
    all.addAll(rest);
    try (TimeSeriesStore store = open()) {
      store.append(List.of(writeOf(rest)));
      store.flushHead();
      assertThat(store.finalizeWindows(true)).isEqualTo(2);
      assertRollupsCover(store, all, Resolution.FIVE_MINUTES);
      assertRollupsCover(store, all, Resolution.ONE_HOUR);
      Series s = store.select(List.of(Matcher.eq("__name__", "vllm:num_requests_running")), 0,
          NOW_MS).get(0);
      assertThat(s.timestampsMs()).hasSize(all.size());
    }
  }

  @Test
  void aWindowFinalizedEarlierInThisProcessIsMergedNotOverwritten() throws Exception {
    long ws = TimeSeriesStore.windowStart(NOW_MS - 12 * HOUR_MS);
    List<long[]> all = new ArrayList<>(samples(ws, ws + HOUR_MS));
    try (TimeSeriesStore store = open()) {
      store.append(List.of(writeOf(all)));
      store.flushHead();
      store.finalizeWindows(true);
      List<long[]> rest = samples(ws + HOUR_MS, ws + 2 * HOUR_MS + 15 * 60_000L);
      all.addAll(rest);
      store.append(List.of(writeOf(rest)));
      store.flushHead();
      assertThat(store.finalizeWindows(true)).isEqualTo(2);
      assertRollupsCover(store, all, Resolution.FIVE_MINUTES);
      assertRollupsCover(store, all, Resolution.ONE_HOUR);
      assertThat(store.chunkSamplesStored()).isEqualTo(all.size());
    }
  }
}
