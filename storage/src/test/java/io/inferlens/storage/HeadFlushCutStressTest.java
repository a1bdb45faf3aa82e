package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

/**
 * Head flushes that cut the head buffers in place while appends, duplicates, conflicts and
 * backfill go on, and reads check that every acknowledged sample is there once.
 */
class HeadFlushCutStressTest extends StoreTestBase {

  private static final int SERIES = 300;
  private static final long STEP_MS = 1_000;
  /** Forward samples of series s are T0 + k * STEP (k >= 0), backfilled ones T0 - k * STEP. */
  private static final long T0 = NOW_MS - 3 * 86_400_000L;
  private static final long RUN_NANOS =
      TimeUnit.SECONDS.toNanos(Long.getLong("stress.seconds", 4));

  private static LabelSet labels(int s) {
    return LabelSet.of("__name__", "s", "i", Integer.toString(s));
  }

  private static long k2ts(int k) {
    return T0 + k * STEP_MS; // k < 0: backfill
  }

  private static long valueBits(int s, long ts) {
    return bits(s * 1e7 + (ts - T0) / 1000.0);
  }

  @RepeatedTest(3)
  void concurrentAppendsFlushesAndReadsKeepEveryAcknowledgedSampleOnce(RepetitionInfo rep)
      throws Exception {
    // Per series: forward samples k in [0, fwdAck) and backfilled k in [1, backAck] are
    // acknowledged; *Try are the bounds of the append in flight.
    AtomicIntegerArray fwdAck = new AtomicIntegerArray(SERIES);
    AtomicIntegerArray backAck = new AtomicIntegerArray(SERIES);
    AtomicIntegerArray fwdTry = new AtomicIntegerArray(SERIES);
    AtomicIntegerArray backTry = new AtomicIntegerArray(SERIES);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong totalAppended = new AtomicLong();
    AtomicLong flushes = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    AtomicLong rounds = new AtomicLong();
    AtomicLong roundsInFlush = new AtomicLong();
    java.util.concurrent.atomic.AtomicInteger inFlush =
        new java.util.concurrent.atomic.AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    long seed = 77L * rep.getCurrentRepetition() + System.nanoTime();
    try (TimeSeriesStore store = open()) {
      List<Future<?>> futures = new ArrayList<>();
      // Appender.
      futures.add(pool.submit(() -> {
        Random rnd = new Random(seed);
        try {
          long end = System.nanoTime() + RUN_NANOS;
          while (System.nanoTime() < end) {
            List<SeriesWrite> writes = new ArrayList<>();
            long expAppended = 0;
            long expDup = 0;
            long expRejected = 0;
            int nSeries = 20 + rnd.nextInt(SERIES - 20);
            int first = rnd.nextInt(SERIES);
            int[] newFwd = new int[SERIES];
            int[] newBack = new int[SERIES];
            for (int j = 0; j < nSeries; j++) {
              int s = (first + j) % SERIES;
              List<long[]> samples = new ArrayList<>();
              int fa = fwdAck.get(s);
              int ba = backAck.get(s);
              // Duplicates (same value) and conflicts (other value) of acknowledged samples.
              if (fa + ba > 0 && rnd.nextInt(3) == 0) {
                for (int d = 0; d < 1 + rnd.nextInt(3); d++) {
                  int pick = rnd.nextInt(fa + ba);
                  long ts = pick < fa ? k2ts(pick) : k2ts(-(pick - fa + 1));
                  boolean conflict = rnd.nextInt(4) == 0;
                  samples.add(new long[] {ts,
                      conflict ? valueBits(s, ts) ^ 1 : valueBits(s, ts)});
                  if (conflict) {
                    expRejected++;
                  } else {
                    expDup++;
                  }
                }
              }
              // Backfill: usually a few, sometimes more than the side buffer holds.
              int back = 0;
              int r = rnd.nextInt(10);
              if (r < 3) {
                back = 1 + rnd.nextInt(3);
              } else if (r == 3 && rnd.nextInt(10) == 0) {
                back = HeadBuffer.MAX_SIDE_SAMPLES + rnd.nextInt(100);
              }
              for (int b = 1; b <= back; b++) {
                long ts = k2ts(-(ba + b));
                samples.add(new long[] {ts, valueBits(s, ts)});
              }
              int fwd = rnd.nextInt(4);
              for (int f = 0; f < fwd; f++) {
                long ts = k2ts(fa + f);
                samples.add(new long[] {ts, valueBits(s, ts)});
              }
              // Shuffled order within the write, so backfill and forward samples interleave.
              java.util.Collections.shuffle(samples, rnd);
              if (samples.isEmpty()) {
                continue;
              }
              long[] ts = new long[samples.size()];
              long[] vb = new long[samples.size()];
              for (int i = 0; i < ts.length; i++) {
                ts[i] = samples.get(i)[0];
                vb[i] = samples.get(i)[1];
              }
              writes.add(rawWrite(labels(s), ts, vb));
              expAppended += back + fwd;
              newFwd[s] = fa + fwd;
              newBack[s] = ba + back;
              fwdTry.set(s, fa + fwd);
              backTry.set(s, ba + back);
            }
            boolean flushBefore = inFlush.get() > 0;
            AppendResult res = store.append(writes);
            if (flushBefore && inFlush.get() > 0) {
              roundsInFlush.incrementAndGet();
            }
            assertThat(res.samplesAppended()).as("appended").isEqualTo(expAppended);
            assertThat(res.samplesDuplicate()).as("duplicates").isEqualTo(expDup);
            assertThat(res.rejectedCount()).as("rejected").isEqualTo(expRejected);
            totalAppended.addAndGet(expAppended);
            for (SeriesWrite w : writes) {
              int s = Integer.parseInt(w.labels().get("i"));
              fwdAck.set(s, newFwd[s]);
              backAck.set(s, newBack[s]);
            }
            rounds.incrementAndGet();
          }
        } finally {
          stop.set(true);
        }
        return null;
      }));
      // Two flushers (flushLock serializes them); one also finalizes.
      for (int t = 0; t < 2; t++) {
        boolean finalizes = t == 0;
        futures.add(pool.submit(() -> {
          int i = 0;
          while (!stop.get()) {
            inFlush.incrementAndGet();
            try {
              store.flushHead();
            } finally {
              inFlush.decrementAndGet();
            }
            flushes.incrementAndGet();
            if (finalizes && ++i % 4 == 0) {
              store.finalizeWindows(true);
            }
            if (!finalizes) {
              Thread.sleep(5);
            }
          }
          return null;
        }));
      }
      // Reader.
      futures.add(pool.submit(() -> {
        Random rnd = new Random(seed + 1);
        while (!stop.get()) {
          int s = rnd.nextInt(SERIES);
          int fa = fwdAck.get(s);
          int ba = backAck.get(s);
          List<Series> got = store.select(List.of(Matcher.eq("i", Integer.toString(s))),
              Long.MIN_VALUE / 8, Long.MAX_VALUE / 8);
          int ft = fwdTry.get(s);
          int bt = backTry.get(s);
          if (fa + ba == 0) {
            continue;
          }
          assertThat(got).hasSize(1);
          checkSeries(s, got.get(0), fa, ba, ft, bt);
          reads.incrementAndGet();
        }
        return null;
      }));
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
      long total = totalAppended.get();
      // Quiescent: every sample is in the head or in chunks exactly once.
      long inChunks = store.chunkSamplesStored();
      assertThat(store.headSampleCount() + inChunks).as("head + chunk samples").isEqualTo(total);
      checkAll(store, fwdAck, backAck);
      System.out.printf("stress rep %d: %d rounds (%d during a flush call), %d samples,"
          + " %d flushes, %d reads%n", rep.getCurrentRepetition(), rounds.get(),
          roundsInFlush.get(), total, flushes.get(), reads.get());
    } finally {
      pool.shutdownNow();
    }
    // Reopened: the head log replays exactly the samples the flushes did not drop.
    try (TimeSeriesStore store = open()) {
      long total = totalAppended.get();
      assertThat(store.headSampleCount() + store.chunkSamplesStored())
          .as("head + chunk samples after reopen").isEqualTo(total);
      checkAll(store, fwdAck, backAck);
      store.flushHead();
      assertThat(store.headSampleCount()).isZero();
      assertThat(store.chunkSamplesStored()).isEqualTo(total);
      checkAll(store, fwdAck, backAck);
      store.finalizeWindows(true);
      assertThat(store.chunkSamplesStored()).isEqualTo(total);
      checkAll(store, fwdAck, backAck);
    }
    try (TimeSeriesStore store = open()) {
      assertThat(store.headSampleCount()).isZero();
      checkAll(store, fwdAck, backAck);
    }
  }

  /** Every series holds exactly its acknowledged samples. */
  private static void checkAll(TimeSeriesStore store, AtomicIntegerArray fwd,
      AtomicIntegerArray back) throws StorageException {
    List<Series> got = store.select(List.of(Matcher.eq("__name__", "s")),
        Long.MIN_VALUE / 8, Long.MAX_VALUE / 8);
    int expectSeries = 0;
    for (int s = 0; s < SERIES; s++) {
      if (fwd.get(s) + back.get(s) > 0) {
        expectSeries++;
      }
    }
    assertThat(got).hasSize(expectSeries);
    for (Series x : got) {
      int s = Integer.parseInt(x.labels().get("i"));
      checkSeries(s, x, fwd.get(s), back.get(s), fwd.get(s), back.get(s));
    }
  }

  /**
   * The series holds every acknowledged sample ({@code fa} forward, {@code ba} backfilled) with
   * its value, ascending and once, and nothing outside what was attempted ({@code ft}, {@code bt}).
   */
  private static void checkSeries(int s, Series x, int fa, int ba, int ft, int bt) {
    long[] ts = x.timestampsMs();
    long[] vb = x.valueBits();
    int n = x.size();
    for (int i = 1; i < n; i++) {
      assertThat(ts[i]).as("series %d ascending, no duplicate", s).isGreaterThan(ts[i - 1]);
    }
    for (int i = 0; i < n; i++) {
      long k = Math.floorDiv(ts[i] - T0, STEP_MS);
      assertThat(ts[i] - T0).as("series %d on the grid", s).isEqualTo(k * STEP_MS);
      assertThat(k).as("series %d attempted", s).isBetween((long) -bt, (long) ft - 1);
      assertThat(vb[i]).as("series %d value at %d", s, ts[i]).isEqualTo(valueBits(s, ts[i]));
    }
    // Every acknowledged one present.
    for (int k = -ba; k < fa; k++) {
      long want = k2ts(k);
      int at = java.util.Arrays.binarySearch(ts, 0, n, want);
      assertThat(at).as("series %d acknowledged sample %d (k=%d) missing; fa=%d ba=%d size=%d",
          s, want, k, fa, ba, n).isGreaterThanOrEqualTo(0);
    }
  }

  /**
   * A head flush fails after its first batch, which wrote a chunk for a backfilled sample keyed
   * at that sample's timestamp; finalization then merges that chunk with the window's older
   * chunk under the same key; the retried flush writes the same head samples again, under the
   * same key, and overwrites the merged chunk.
   */
  @Test
  void flushRetriedAfterAFailedBatchAndAFinalizationKeepsTheWindowsOlderChunk()
      throws Exception {
    LabelSet x = LabelSet.of("__name__", "x");
    long ws = TimeSeriesStore.windowStart(NOW_MS - 6 * 3_600_000L);
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(x, ws + 10_000, 1, ws + 20_000, 2)));
      store.flushHead(); // x's chunk {10 s, 20 s}, keyed at 10 s
      List<SeriesWrite> writes = new ArrayList<>();
      writes.add(write(x, ws + 5_000, 0.5, ws + 30_000, 3)); // backfill and a newer one
      int series = 1_000;
      int perSeries = 5 * TimeSeriesStore.FLUSH_BATCH_SAMPLES / series / 2; // three batches
      for (int s = 0; s < series; s++) {
        long[] ts = new long[perSeries];
        long[] vb = new long[perSeries];
        for (int i = 0; i < perSeries; i++) {
          ts[i] = ws - 86_400_000L + i * 15_000L;
          vb[i] = bits(i);
        }
        writes.add(rawWrite(LabelSet.of("__name__", "f", "i", Integer.toString(s)), ts, vb));
      }
      store.append(writes);
      int[] batches = {0};
      store.flusher.beforeFlushBatch = () -> {
        if (++batches[0] == 2) {
          throw new IllegalStateException("simulated failure before the second flush batch");
        }
      };
      // x is the first series: its chunk {5 s, 30 s}, keyed at 5 s, is in the first batch.
      assertThatThrownBy(store::flushHead).isInstanceOf(StorageException.class);
      store.flusher.beforeFlushBatch = null;
      // As the background tick may: x's window becomes one chunk {5, 10, 20, 30 s} keyed at 5 s.
      store.finalizeWindows(true);
      store.flushHead(); // the retry: x's head {5 s, 30 s} again, keyed at 5 s
      store.finalizeWindows(true);
      Series got = store.select(List.of(Matcher.eq("__name__", "x")), 0, NOW_MS).get(0);
      assertThat(got.timestampsMs()).containsExactly(
          ws + 5_000, ws + 10_000, ws + 20_000, ws + 30_000);
    }
  }

  /**
   * The same as a crash: the flush stops after its first batch and the store is closed without
   * a retry. At reopen the head log replays samples whose chunks are written, finalization merges
   * their window, and the next flush must merge with that chunk rather than replace it.
   */
  @Test
  void aFlushCutShortByACrashKeepsTheWindowsOlderChunkAfterReopen() throws Exception {
    LabelSet x = LabelSet.of("__name__", "x");
    long ws = TimeSeriesStore.windowStart(NOW_MS - 6 * 3_600_000L);
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(x, ws + 10_000, 1, ws + 20_000, 2)));
      store.flushHead();
      List<SeriesWrite> writes = new ArrayList<>();
      writes.add(write(x, ws + 5_000, 0.5, ws + 30_000, 3));
      int series = 1_000;
      int perSeries = 5 * TimeSeriesStore.FLUSH_BATCH_SAMPLES / series / 2;
      for (int s = 0; s < series; s++) {
        long[] ts = new long[perSeries];
        long[] vb = new long[perSeries];
        for (int i = 0; i < perSeries; i++) {
          ts[i] = ws - 86_400_000L + i * 15_000L;
          vb[i] = bits(i);
        }
        writes.add(rawWrite(LabelSet.of("__name__", "f", "i", Integer.toString(s)), ts, vb));
      }
      store.append(writes);
      int[] batches = {0};
      store.flusher.beforeFlushBatch = () -> {
        if (++batches[0] == 2) {
          throw new IllegalStateException("simulated crash before the second flush batch");
        }
      };
      assertThatThrownBy(store::flushHead).isInstanceOf(StorageException.class);
    }
    try (TimeSeriesStore store = open()) {
      store.finalizeWindows(true);
      store.flushHead();
      store.finalizeWindows(true);
      Series got = store.select(List.of(Matcher.eq("__name__", "x")), 0, NOW_MS).get(0);
      assertThat(got.timestampsMs()).containsExactly(
          ws + 5_000, ws + 10_000, ws + 20_000, ws + 30_000);
      assertThat(store.select(List.of(Matcher.eq("__name__", "f")), 0, NOW_MS)).hasSize(1_000)
          .allSatisfy(f -> assertThat(f.size()).isEqualTo(perSeriesOf()));
    }
    try (TimeSeriesStore store = open()) {
      store.flushHead(); // nothing left to merge: the marker is gone
      assertThat(store.select(List.of(Matcher.eq("__name__", "x")), 0, NOW_MS).get(0).size())
          .isEqualTo(4);
    }
  }

  private static int perSeriesOf() {
    return 5 * TimeSeriesStore.FLUSH_BATCH_SAMPLES / 1_000 / 2;
  }
}
