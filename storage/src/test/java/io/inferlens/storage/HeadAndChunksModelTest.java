package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

/**
 * The store against a model (a sorted map per series): random appends in order, backfill,
 * duplicates and conflicts, interleaved with head flushes, window finalization, restarts and a
 * full compaction. After every step every series reads back exactly as the model says, and every
 * append is classified as the model predicts.
 */
class HeadAndChunksModelTest extends StoreTestBase {

  private static final long HOUR_MS = 3_600_000;

  @RepeatedTest(8)
  void randomOperationsMatchTheModel(RepetitionInfo rep) throws Exception {
    Random rnd = new Random(1000 + rep.getCurrentRepetition());
    List<LabelSet> series = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      series.add(LabelSet.of("__name__", "m", "i", Integer.toString(i)));
    }
    Map<LabelSet, TreeMap<Long, Long>> model = new HashMap<>();
    long base = NOW_MS - 20 * HOUR_MS;
    long[] next = new long[series.size()];
    StoreOptions options = StoreOptions.defaults(dir).withHeadMaxSamples(50 + rnd.nextInt(200));
    TimeSeriesStore store = open(options);
    try {
      for (int step = 0; step < 120; step++) {
        int op = rnd.nextInt(20);
        if (op == 0) {
          store.flushHead();
        } else if (op == 1) {
          store.finalizeWindows(rnd.nextBoolean());
        } else if (op == 2) {
          store.close();
          store = open(options);
        } else if (op == 3) {
          store.compact();
        } else {
          List<SeriesWrite> writes = new ArrayList<>();
          long expectAppended = 0;
          long expectDup = 0;
          long expectRejected = 0;
          Map<LabelSet, TreeMap<Long, Long>> inCall = new HashMap<>();
          for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
            int si = rnd.nextInt(series.size());
            LabelSet ls = series.get(si);
            int n = 1 + rnd.nextInt(60);
            long[] ts = new long[n];
            long[] vb = new long[n];
            for (int j = 0; j < n; j++) {
              int kind = rnd.nextInt(10);
              TreeMap<Long, Long> have = model.getOrDefault(ls, new TreeMap<>());
              if (kind == 0 && !have.isEmpty()) {
                // exact duplicate or conflict of a stored sample
                long t = new ArrayList<>(have.keySet()).get(rnd.nextInt(have.size()));
                ts[j] = t;
                vb[j] = rnd.nextBoolean() ? have.get(t) : bits(rnd.nextInt(1000));
              } else if (kind == 1) {
                // backfill anywhere in the last 20 hours
                ts[j] = base + rnd.nextInt((int) (20 * HOUR_MS / 1000)) * 1000L;
                vb[j] = bits(rnd.nextInt(1000) / 10.0);
              } else {
                next[si] += 15_000 + (rnd.nextInt(5) == 0 ? rnd.nextInt(30_000) : 0);
                ts[j] = base + next[si];
                vb[j] = rnd.nextInt(30) == 0 ? STALE_MARKER : bits(next[si] / 1000.0 + rnd.nextInt(3));
              }
              Long stored = have.get(ts[j]);
              TreeMap<Long, Long> call = inCall.computeIfAbsent(ls, x -> new TreeMap<>());
              Long earlier = call.get(ts[j]);
              Long prior = stored != null ? stored : earlier;
              if (prior == null) {
                expectAppended++;
                call.put(ts[j], vb[j]);
              } else if (prior == vb[j]) {
                expectDup++;
              } else {
                expectRejected++;
              }
            }
            writes.add(rawWrite(ls, ts, vb));
          }
          AppendResult r = store.append(writes);
          assertThat(r.samplesAppended()).as("appended, step " + step).isEqualTo(expectAppended);
          assertThat(r.samplesDuplicate()).as("duplicates, step " + step).isEqualTo(expectDup);
          assertThat(r.rejectedCount()).as("rejected, step " + step).isEqualTo(expectRejected);
          inCall.forEach((ls, m) -> model.computeIfAbsent(ls, x -> new TreeMap<>()).putAll(m));
        }
        if (step % 10 == 9 || op <= 3) {
          checkAll(store, model);
        }
      }
      store.flush();
      checkAll(store, model);
      store.close();
      store = open(options);
      checkAll(store, model);
      checkRollups(store, model, base);
    } finally {
      store.close();
    }
  }

  private static void checkAll(TimeSeriesStore store, Map<LabelSet, TreeMap<Long, Long>> model)
      throws Exception {
    List<Series> got = store.select(List.of(Matcher.eq("__name__", "m")), Long.MIN_VALUE,
        Long.MAX_VALUE);
    assertThat(got).hasSize(model.size());
    for (Series s : got) {
      TreeMap<Long, Long> want = model.get(s.labels());
      assertThat(s.timestampsMs()).as(s.labels().toString())
          .containsExactly(want.keySet().stream().mapToLong(Long::longValue).toArray());
      assertThat(s.valueBits()).as(s.labels().toString())
          .containsExactly(want.values().stream().mapToLong(Long::longValue).toArray());
    }
    // A sub-range read.
    for (Map.Entry<LabelSet, TreeMap<Long, Long>> e : model.entrySet()) {
      TreeMap<Long, Long> m = e.getValue();
      if (m.size() < 3) {
        continue;
      }
      long a = m.firstKey() + (m.lastKey() - m.firstKey()) / 3;
      long b = m.lastKey() - (m.lastKey() - m.firstKey()) / 3;
      List<Matcher> sel = new ArrayList<>();
      e.getKey().toMap().forEach((k, v) -> sel.add(Matcher.eq(k, v)));
      List<Series> part = store.select(sel, a, b);
      long[] want = m.subMap(a, true, b, true).keySet().stream().mapToLong(Long::longValue)
          .toArray();
      if (want.length == 0) {
        assertThat(part).isEmpty();
      } else {
        assertThat(part.get(0).timestampsMs()).containsExactly(want);
      }
    }
  }

  private static void checkRollups(TimeSeriesStore store, Map<LabelSet, TreeMap<Long, Long>> model,
      long base) throws Exception {
    for (Resolution res : Resolution.values()) {
      List<RollupSeries> got = store.selectRollups(List.of(Matcher.eq("__name__", "m")),
          base - 3 * HOUR_MS, Long.MAX_VALUE / 4, res);
      for (RollupSeries r : got) {
        TreeMap<Long, Long> m = model.get(r.labels());
        long[] ts = m.keySet().stream().mapToLong(Long::longValue).toArray();
        long[] vb = m.values().stream().mapToLong(Long::longValue).toArray();
        RollupBlock want = RollupBlock.compute(ts, vb, ts.length, res.intervalMs());
        assertThat(r.startsMs()).as(res + " " + r.labels())
            .containsExactly(java.util.Arrays.copyOf(want.starts, want.size));
        assertThat(r.counts()).containsExactly(java.util.Arrays.copyOf(want.counts, want.size));
        assertThat(r.sum()).containsExactly(java.util.Arrays.copyOf(want.sum, want.size));
        assertThat(r.last()).containsExactly(java.util.Arrays.copyOf(want.last, want.size));
        assertThat(r.increase()).containsExactly(java.util.Arrays.copyOf(want.increase, want.size));
      }
    }
  }

  @Test
  void backfillIntoAFinalizedWindowIsMergedAndRolledUpAgain() throws Exception {
    LabelSet s = LabelSet.of("__name__", "c");
    long w = TimeSeriesStore.windowStart(NOW_MS - 10 * HOUR_MS);
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(s, w + 60_000, 1, w + 120_000, 2)));
      store.flush();
      assertThat(store.append(List.of(write(s, w + 90_000, 5))).samplesAppended()).isEqualTo(1);
      assertThat(store.append(List.of(write(s, w + 60_000, 1))).samplesDuplicate()).isEqualTo(1);
      assertThat(store.append(List.of(write(s, w + 120_000, 9))).rejectedCount()).isEqualTo(1);
      // Before any flush the late sample is in the head: the rollups already count it.
      List<RollupSeries> early = store.selectRollups(List.of(Matcher.eq("__name__", "c")), w,
          w + HOUR_MS, Resolution.FIVE_MINUTES);
      assertThat(early.get(0).counts()).containsExactly(3);
      assertThat(early.get(0).max()).containsExactly(5.0);
      store.flush();
      List<RollupSeries> r = store.selectRollups(List.of(Matcher.eq("__name__", "c")), w,
          w + HOUR_MS, Resolution.FIVE_MINUTES);
      assertThat(r.get(0).counts()).containsExactly(3);
      assertThat(r.get(0).max()).containsExactly(5.0);
      // 1 → 5 (+4), 5 → 2 is a reset (+2)
      assertThat(r.get(0).increase()).containsExactly(6.0);
    }
  }
}
