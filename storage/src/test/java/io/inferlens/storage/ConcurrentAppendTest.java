package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ConcurrentAppendTest extends StoreTestBase {

  @Test
  void twoThreadsAppendingToOneSeriesLoseNoSample() throws Exception {
    LabelSet m = LabelSet.of("__name__", "m");
    int perThread = 2000;
    int batch = 50;
    long base = NOW_MS - 1_000_000;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (TimeSeriesStore store = open()) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<long[]>> futures = new ArrayList<>();
      for (int thread = 0; thread < 2; thread++) {
        int parity = thread;
        futures.add(pool.submit(() -> {
          start.await();
          long appended = 0;
          long duplicates = 0;
          // Interleaved timestamps (even/odd per thread), plus a shared sample both threads
          // send with the same value in every batch: exercises the conflict path under contention.
          for (int b = 0; b < perThread / batch; b++) {
            long[] ts = new long[batch + 1];
            long[] vb = new long[batch + 1];
            for (int i = 0; i < batch; i++) {
              long t = base + 2L * (b * batch + i) + parity;
              ts[i] = t;
              vb[i] = bits(t);
            }
            ts[batch] = base - 1;
            vb[batch] = bits(-1);
            AppendResult r = store.append(List.of(rawWrite(m, ts, vb)));
            appended += r.samplesAppended();
            duplicates += r.samplesDuplicate();
            assertThat(r.rejectedCount()).isZero();
          }
          return new long[] {appended, duplicates};
        }));
      }
      start.countDown();
      long appended = 0;
      long duplicates = 0;
      for (Future<long[]> f : futures) {
        long[] r = f.get(60, TimeUnit.SECONDS);
        appended += r[0];
        duplicates += r[1];
      }

      // Every distinct timestamp stored exactly once; the shared one once, all other sends dups.
      assertThat(appended).isEqualTo(2L * perThread + 1);
      assertThat(duplicates).isEqualTo(2L * perThread / batch - 1);
      assertThat(store.seriesCount()).isEqualTo(1);
      Series s = store.select(List.of(Matcher.eq("__name__", "m")), base - 1, Long.MAX_VALUE)
          .get(0);
      assertThat(s.size()).isEqualTo(2 * perThread + 1);
      for (int i = 1; i < s.size(); i++) {
        assertThat(s.timestampsMs()[i]).isEqualTo(base + i - 1);
        assertThat(s.valueBits()[i]).isEqualTo(bits(base + i - 1));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
