package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.storage.head.SampleRun;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Re-sent samples (a sender replaying its write-ahead log, one sample per series per request)
 * checked against the chunk windows the append path keeps decoded across calls
 * ({@link StoredWindowCache}): duplicates stay duplicates and conflicts stay rejections across
 * head flushes, finalization, retention and a restart.
 */
class ReplayDuplicateTest extends StoreTestBase {

  private static final long STEP_MS = 15_000;
  /** Start of a chunk window six hours before the fake clock's now. */
  private static final long W0 = TimeSeriesStore.windowStart(NOW_MS - 6 * 3_600_000L);

  private static LabelSet series(int i) {
    return LabelSet.of("__name__", "m", "i", Integer.toString(i));
  }

  /** The value of series {@code i} at step {@code k}. */
  private static double value(int i, int k) {
    return i * 1000 + k * 0.5;
  }

  /** One append call with steps {@code [from, to)} of series {@code [0, n)}. */
  private static AppendResult appendSteps(TimeSeriesStore store, int n, int from, int to)
      throws StorageException {
    List<SeriesWrite> writes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int count = to - from;
      long[] ts = new long[count];
      long[] vb = new long[count];
      for (int k = from; k < to; k++) {
        ts[k - from] = W0 + k * STEP_MS;
        vb[k - from] = bits(value(i, k));
      }
      writes.add(rawWrite(series(i), ts, vb));
    }
    return store.append(writes);
  }

  private static List<Series> all(TimeSeriesStore store) throws StorageException {
    return store.select(List.of(Matcher.eq("__name__", "m")), Long.MIN_VALUE, Long.MAX_VALUE);
  }

  private static String conflict(long ts, double sent, double stored) {
    return "sample at " + ts + " ms has value " + sent + " (" + String.format("0x%016x",
        bits(sent)) + ") but " + stored + " (" + String.format("0x%016x", bits(stored))
        + ") is already stored";
  }

  @Test
  void replayAfterFlushCountsDuplicatesAndDecodesEachWindowOnce() throws Exception {
    int n = 3;
    int steps = 960; // two full windows at 15 s
    try (TimeSeriesStore store = open()) {
      assertThat(appendSteps(store, n, 0, steps).samplesAppended()).isEqualTo((long) n * steps);
      store.flushHead();
      store.finalizeWindows(true); // nothing left for the background thread to rewrite
      long missesBefore = store.storedWindows().misses();

      // As a replaying sender sends: one sample per series per request, forward in time.
      for (int k = 0; k < steps; k++) {
        assertThat(appendSteps(store, n, k, k + 1)).as("step %d", k)
            .isEqualTo(new AppendResult(0, n, 0, List.of(), 0));
      }

      // One decode per series and window, not one per sample.
      assertThat(store.storedWindows().misses() - missesBefore).isEqualTo(2L * n);
      assertThat(store.storedWindows().hits()).isEqualTo((long) n * steps - 2L * n);
      assertThat(store.storedWindows().size()).isEqualTo(n);
      assertThat(store.storedWindows().samples()).isEqualTo(480L * n);
      List<Series> got = all(store);
      assertThat(got).hasSize(n);
      assertThat(got).allSatisfy(s -> assertThat(s.timestampsMs()).hasSize(steps));
    }
  }

  @Test
  void replayOfHeadSamplesIsAnsweredByTheHeadAlone() throws Exception {
    int n = 3;
    int steps = 600;
    try (TimeSeriesStore store = open()) {
      appendSteps(store, n, 0, steps); // all in the head
      for (int k = 0; k < steps; k++) {
        assertThat(appendSteps(store, n, k, k + 1)).as("step %d", k)
            .isEqualTo(new AppendResult(0, n, 0, List.of(), 0));
        if (k % 100 == 7) { // a jump back restarts the head cursor
          assertThat(appendSteps(store, n, k / 2, k / 2 + 1).samplesDuplicate()).isEqualTo(n);
        }
      }
      long t9 = W0 + 9 * STEP_MS;
      AppendResult r = store.append(List.of(write(series(2), t9, 0.125)));
      assertThat(r.rejections().get(0).reason()).endsWith(conflict(t9, 0.125, value(2, 9)));
      assertThat(store.storedWindows().misses()).isZero(); // no chunk read
      assertThat(store.headSampleCount()).isEqualTo((long) n * steps);
    }
  }

  @Test
  void conflictAfterFlushIsRejectedNamingBothValuesAndKeepsTheStoredOne() throws Exception {
    try (TimeSeriesStore store = open()) {
      appendSteps(store, 1, 0, 10);
      store.flushHead();
      long t5 = W0 + 5 * STEP_MS;
      assertThat(appendSteps(store, 1, 4, 5).samplesDuplicate()).isEqualTo(1); // window cached

      AppendResult r = store.append(List.of(write(series(0), t5, 42.0)));

      assertThat(r.samplesAppended()).isZero();
      assertThat(r.samplesDuplicate()).isZero();
      assertThat(r.rejectedCount()).isEqualTo(1);
      assertThat(r.rejections().get(0).reason()).isEqualTo(
          "series " + series(0) + ": " + conflict(t5, 42.0, value(0, 5)));
      assertThat(all(store).get(0).valueBits()[5]).isEqualTo(bits(value(0, 5)));
    }
  }

  @Test
  void replayAcrossAFlushBetweenCallsSeesTheNewlyFlushedSamples() throws Exception {
    try (TimeSeriesStore store = open()) {
      appendSteps(store, 2, 0, 10);
      store.flushHead();
      // Caches both series' window holding steps 0..9 only.
      assertThat(appendSteps(store, 2, 0, 1).samplesDuplicate()).isEqualTo(2);
      // Steps 10..19 go to the head; re-sent ones are found there.
      assertThat(appendSteps(store, 2, 10, 20).samplesAppended()).isEqualTo(20);
      assertThat(appendSteps(store, 2, 10, 11).samplesDuplicate()).isEqualTo(2);

      // The flush moves 10..19 into the cached window's chunks and out of the head.
      store.flushHead();
      assertThat(store.headSampleCount()).isZero();

      // Neither accepted again as new (the stale window lacked them) nor missed as conflicts.
      assertThat(appendSteps(store, 2, 11, 20))
          .isEqualTo(new AppendResult(0, 18, 0, List.of(), 0));
      long t12 = W0 + 12 * STEP_MS;
      AppendResult r = store.append(List.of(write(series(1), t12, -1.0)));
      assertThat(r.rejectedCount()).isEqualTo(1);
      assertThat(r.rejections().get(0).reason()).endsWith(conflict(t12, -1.0, value(1, 12)));
      assertThat(all(store)).allSatisfy(s -> assertThat(s.timestampsMs()).hasSize(20));
      assertThat(store.chunkSamplesStored()).isEqualTo(40);
    }
  }

  @Test
  void replayRacingHeadFlushesNeverStoresASampleTwice() throws Exception {
    int n = 20;
    int rounds = 300;
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withHeadMaxSamples(1_000_000))) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread flusher = new Thread(() -> {
        try {
          while (!stop.get()) {
            store.flushHead();
          }
        } catch (Throwable e) {
          failed.set(e);
        }
      });
      flusher.start();
      try {
        // Each round: 5 new steps, then all of them again and the previous round's again, so
        // re-sent samples are in the head, in chunks, or moving between them right now.
        for (int r = 0; r < rounds; r++) {
          int from = 5 * r;
          assertThat(appendSteps(store, n, from, from + 5).samplesAppended())
              .as("round %d new", r).isEqualTo(5L * n);
          int replayFrom = Math.max(0, from - 5);
          AppendResult again = appendSteps(store, n, replayFrom, from + 5);
          assertThat(again.samplesAppended()).as("round %d replay", r).isZero();
          assertThat(again.rejectedCount()).as("round %d replay", r).isZero();
          assertThat(again.samplesDuplicate()).isEqualTo((long) n * (from + 5 - replayFrom));
        }
      } finally {
        stop.set(true);
        flusher.join(60_000);
      }
      assertThat(failed.get()).isNull();
      store.flushHead();
      store.finalizeWindows(true);
      assertThat(store.chunkSamplesStored()).isEqualTo((long) n * 5 * rounds);
      assertThat(all(store)).allSatisfy(s -> assertThat(s.timestampsMs()).hasSize(5 * rounds));
    }
  }

  @Test
  void replayAfterFinalizationMergedTheWindowStillFindsEverySample() throws Exception {
    try (TimeSeriesStore store = open()) {
      appendSteps(store, 1, 0, 10);
      store.flushHead();
      assertThat(appendSteps(store, 1, 0, 1).samplesDuplicate()).isEqualTo(1);
      appendSteps(store, 1, 10, 20); // a second chunk in the same window
      store.flushHead();
      assertThat(appendSteps(store, 1, 15, 16).samplesDuplicate()).isEqualTo(1);
      long misses = store.storedWindows().misses();

      assertThat(store.finalizeWindows(true)).isPositive(); // merges the two chunks into one

      assertThat(appendSteps(store, 1, 0, 20))
          .isEqualTo(new AppendResult(0, 20, 0, List.of(), 0));
      assertThat(store.storedWindows().misses()).isEqualTo(misses + 1); // decoded again once
      long t3 = W0 + 3 * STEP_MS;
      AppendResult r = store.append(List.of(write(series(0), t3, 7.25)));
      assertThat(r.rejections().get(0).reason()).endsWith(conflict(t3, 7.25, value(0, 3)));
    }
  }

  @Test
  void replayAfterRestartFindsDuplicatesAndConflictsInChunksAndReplayedHead() throws Exception {
    try (TimeSeriesStore store = open()) {
      appendSteps(store, 2, 0, 10);
      store.flushHead();
      appendSteps(store, 2, 10, 20); // stays in the head log
      assertThat(appendSteps(store, 2, 0, 1).samplesDuplicate()).isEqualTo(2);
    }
    try (TimeSeriesStore store = open()) {
      assertThat(store.storedWindows().size()).isZero();
      assertThat(appendSteps(store, 2, 0, 20))
          .isEqualTo(new AppendResult(0, 40, 0, List.of(), 0));
      long t2 = W0 + 2 * STEP_MS;
      long t15 = W0 + 15 * STEP_MS;
      AppendResult r = store.append(List.of(write(series(0), t2, 1e9, t15, 2e9)));
      assertThat(r.rejectedCount()).isEqualTo(2);
      assertThat(r.rejections()).extracting(AppendResult.Rejection::reason).containsExactly(
          "series " + series(0) + ": " + conflict(t2, 1e9, value(0, 2)),
          "series " + series(0) + ": " + conflict(t15, 2e9, value(0, 15)));
    }
  }

  @Test
  void retentionDropInvalidatesCachedWindowsAndOldSamplesAreRefused() throws Exception {
    long hour = 3_600_000L;
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(12 * hour))) {
      appendSteps(store, 1, 0, 10);
      store.flushHead();
      assertThat(appendSteps(store, 1, 0, 1).samplesDuplicate()).isEqualTo(1);
      assertThat(store.storedWindows().size()).isEqualTo(1);

      long later = NOW_MS + 3 * 24 * hour;
      clock.set(later);
      assertThat(store.enforceRetention(later)).isPositive();

      AppendResult r = appendSteps(store, 1, 1, 2);
      assertThat(r.samplesDuplicate()).isZero();
      assertThat(r.samplesAppended()).isZero();
      assertThat(r.rejections().get(0).reason()).contains("older than the retention horizon");
      // A new sample at a time whose partition is gone is accepted: nothing stale answers.
      long fresh = later - hour;
      assertThat(store.append(List.of(write(series(0), fresh, 3))).samplesAppended())
          .isEqualTo(1);
      assertThat(store.append(List.of(write(series(0), fresh, 3))).samplesDuplicate())
          .isEqualTo(1);
    }
  }

  @Test
  void cacheKeepsBusyEntriesWhenFullAndEvictsIdleOnes() {
    StoredWindowCache cache = new StoredWindowCache();
    int big = StoredWindowCache.MAX_SAMPLES / 2;
    SampleRun run = new SampleRun(big);
    for (int i = 0; i < big; i++) {
      run.add(W0 + i, i);
    }
    SeriesRef a = new SeriesRef(1, series(1), 0);
    SeriesRef b = new SeriesRef(2, series(2), 0);
    SeriesRef c = new SeriesRef(3, series(3), 0);
    long t = 1_000;
    cache.put(a, W0, 0, 0, run, t);
    cache.put(b, W0, 0, 0, run, t);
    assertThat(cache.samples()).isEqualTo(2L * big);

    // Full, and both entries busy: c's window is answered but not kept.
    StoredWindowCache.Entry e = cache.put(c, W0, 0, 0, run, t + 1);
    assertThat(e.bitsAt(W0 + 7)).isEqualTo(7L);
    assertThat(cache.get(c, W0, 0, 0, t + 2)).isNull();
    assertThat(cache.size()).isEqualTo(2);

    // a stays busy, b goes idle: b is evicted for c.
    assertThat(cache.get(a, W0, 0, 0, t + StoredWindowCache.IDLE_EVICT_MS)).isNotNull();
    cache.put(c, W0, 0, 0, run, t + StoredWindowCache.IDLE_EVICT_MS + 1);
    assertThat(cache.get(b, W0, 0, 0, t + StoredWindowCache.IDLE_EVICT_MS + 2)).isNull();
    assertThat(cache.get(c, W0, 0, 0, t + StoredWindowCache.IDLE_EVICT_MS + 2)).isNotNull();
    assertThat(cache.samples()).isEqualTo(2L * big);

    // A new version or epoch, or another window, makes an entry stale and drops it.
    assertThat(cache.get(a, W0, 1, 0, t)).isNull();
    assertThat(cache.get(c, W0, 0, 1, t)).isNull();
    assertThat(cache.size()).isZero();
    assertThat(cache.samples()).isZero();
  }
}
