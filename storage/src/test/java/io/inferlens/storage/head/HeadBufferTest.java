package io.inferlens.storage.head;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The compressed head buffer against a sorted map, bit for bit. */
class HeadBufferTest {

  private static final long STALE_NAN = 0x7ff0000000000002L;
  private static final long MAX_ABS_MS = 1L << 62;

  @Test
  void scrapeLikeSamplesRoundTripAndCostFewBytes() {
    HeadBuffer h = new HeadBuffer();
    TreeMap<Long, Long> model = new TreeMap<>();
    long t = 1_796_022_060_000L;
    double v = 0;
    for (int i = 0; i < 240; i++) {
      t += 15_000 + (i % 7 == 0 ? 25 : 0); // jittered scrape interval
      v += i % 3; // a counter
      long bits = Double.doubleToRawLongBits(v);
      h.add(t, bits);
      model.put(t, bits);
    }
    check(h, model, new Random(1));
  }

  @Test
  void randomAppendsBackfillAndSpecialValuesMatchTheModel() {
    Random rnd = new Random(42);
    long[] special = {STALE_NAN, Double.doubleToRawLongBits(Double.NaN), 0x7ff8dead0000beefL,
        0L, 0x8000000000000000L, Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
        Double.doubleToRawLongBits(-1e300), 1L, -1L};
    for (int run = 0; run < 40; run++) {
      HeadBuffer h = new HeadBuffer();
      TreeMap<Long, Long> model = new TreeMap<>();
      long t = rnd.nextBoolean() ? rnd.nextLong() >> 2 : 1_700_000_000_000L;
      int n = 1 + rnd.nextInt(run < 5 ? 3 : 2_000);
      for (int i = 0; i < n; i++) {
        long ts;
        int kind = rnd.nextInt(20);
        if (kind == 0 && !model.isEmpty()) {
          ts = model.firstKey() - 1 - rnd.nextInt(1_000_000); // backfill before everything
        } else if (kind <= 2 && !model.isEmpty()) {
          ts = model.firstKey() + (long) (rnd.nextDouble() * (model.lastKey() - model.firstKey()));
        } else if (kind == 3) {
          ts = t + (rnd.nextLong() >>> 3); // a huge jump: 64-bit delta of deltas
        } else {
          ts = t + 15_000 + rnd.nextInt(3) - 1;
        }
        ts = Math.max(-MAX_ABS_MS, Math.min(MAX_ABS_MS, ts));
        if (model.containsKey(ts)) {
          assertThat(h.bitsAt(ts)).isEqualTo(model.get(ts));
          continue;
        }
        long bits = rnd.nextInt(4) == 0 ? special[rnd.nextInt(special.length)]
            : rnd.nextBoolean() ? Double.doubleToRawLongBits(Math.round(rnd.nextGaussian() * 100))
            : rnd.nextLong();
        assertThat(h.bitsAt(ts)).isNull();
        h.add(ts, bits);
        model.put(ts, bits);
        t = Math.max(t, ts);
      }
      check(h, model, rnd);
    }
  }

  /**
   * A buffer emptied by {@link HeadBuffer#clear} and reused (a head flush empties a series'
   * buffer in place) holds exactly what a new one would, whatever it held before: long streams, side buffers,
   * special values.
   */
  @Test
  void aClearedBufferIsAsGoodAsNew() {
    Random rnd = new Random(7);
    HeadBuffer reused = new HeadBuffer();
    for (int run = 0; run < 60; run++) {
      reused.clear();
      assertThat(reused.size()).isZero();
      assertThat(reused.maxTimestampMs()).isEqualTo(HeadBuffer.NO_SAMPLES);
      HeadBuffer fresh = new HeadBuffer();
      TreeMap<Long, Long> model = new TreeMap<>();
      long t = 1_700_000_000_000L + rnd.nextInt(1_000_000);
      // Some runs grow the stream past what clear() keeps (HeadBuffer.MAX_REUSED_BYTES).
      int n = 1 + rnd.nextInt(run % 7 == 0 ? 6_000 : 300);
      for (int i = 0; i < n; i++) {
        long ts = rnd.nextInt(10) == 0 && !model.isEmpty()
            ? model.firstKey() - 1 - rnd.nextInt(100_000) : (t += 15_000 + rnd.nextInt(3) - 1);
        if (model.containsKey(ts)) {
          continue;
        }
        long bits = rnd.nextInt(5) == 0 ? STALE_NAN : rnd.nextBoolean() ? rnd.nextLong()
            : Double.doubleToRawLongBits(rnd.nextInt(1000) / 4.0);
        reused.add(ts, bits);
        fresh.add(ts, bits);
        model.put(ts, bits);
      }
      check(reused, model, rnd);
      long[] a = new long[n];
      long[] b = new long[n];
      long[] c = new long[n];
      long[] d = new long[n];
      assertThat(reused.decodeInto(a, b)).isEqualTo(fresh.decodeInto(c, d));
      assertThat(a).isEqualTo(c);
      assertThat(b).isEqualTo(d);
    }
  }

  /**
   * A head flush's cycle on one buffer, many times: {@link HeadBuffer#cut} while samples exist,
   * appends and backfills after the cut (the flush's own duration), {@link HeadBuffer#decodePrefix}
   * gives exactly the samples present at the cut, and {@link HeadBuffer#dropFirst} leaves exactly
   * the later ones, bit for bit, still accepting appends and backfill afterwards.
   */
  @Test
  void aFlushCutTakesWhatWasThereAndKeepsWhatCameAfter() {
    Random rnd = new Random(11);
    HeadBuffer h = new HeadBuffer();
    TreeMap<Long, Long> model = new TreeMap<>();
    long t = 1_700_000_000_000L;
    for (int cycle = 0; cycle < 300; cycle++) {
      int before = rnd.nextInt(cycle % 10 == 0 ? 400 : 30);
      for (int i = 0; i < before; i++) {
        t = addSome(h, model, rnd, t);
      }
      if (model.isEmpty()) {
        assertThat(h.size()).isZero();
        continue;
      }
      TreeMap<Long, Long> atCut = new TreeMap<>(model);
      int cut = h.cut();
      assertThat(cut).isEqualTo(atCut.size());
      // Now and then more backfill than the side buffer holds before it merges into the stream.
      int after = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(cycle % 5 == 0 ? 400 : 8);
      for (int i = 0; i < after; i++) {
        t = addSome(h, model, rnd, t);
      }
      long[] ts = new long[cut];
      long[] bits = new long[cut];
      h.decodePrefix(cut, ts, bits);
      int i = 0;
      for (Map.Entry<Long, Long> e : atCut.entrySet()) {
        assertThat(ts[i]).isEqualTo(e.getKey());
        assertThat(bits[i++]).isEqualTo(e.getValue());
      }
      h.dropFirst(cut);
      atCut.keySet().forEach(model::remove);
      if (model.isEmpty()) {
        assertThat(h.size()).isZero();
        assertThat(h.maxTimestampMs()).isEqualTo(HeadBuffer.NO_SAMPLES);
      } else {
        check(h, model, rnd);
      }
    }
    assertThatThrownBy(() -> h.dropFirst(h.size() + 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dropping");
  }

  /** Appends the next scrape-like sample, or now and then a backfilled one, to both. */
  private static long addSome(HeadBuffer h, TreeMap<Long, Long> model, Random rnd, long t) {
    long ts = rnd.nextInt(3) == 0 ? t - 1 - rnd.nextInt(30_000_000) : t + 15_000 + rnd.nextInt(3);
    if (model.containsKey(ts) || h.bitsAt(ts) != null) {
      // present earlier, possibly already flushed: the store checks its chunks for these
      return Math.max(t, ts);
    }
    long bits = rnd.nextInt(5) == 0 ? STALE_NAN : Double.doubleToRawLongBits(rnd.nextInt(500));
    h.add(ts, bits);
    model.put(ts, bits);
    return Math.max(t, ts);
  }

  @Test
  void lookupsInAnyOrderBetweenAppendsBackfillsAndFlushesMatchTheModel() {
    // bitsAt resumes from its previous position for a later timestamp: ascending runs (a
    // replay), jumps back, misses between samples, and stream rewrites in between.
    Random rnd = new Random(7);
    HeadBuffer h = new HeadBuffer();
    TreeMap<Long, Long> model = new TreeMap<>();
    long t = 1_796_022_060_000L;
    for (int step = 0; step < 20_000; step++) {
      int op = rnd.nextInt(100);
      if (op < 30 || model.isEmpty()) {
        t = addSome(h, model, rnd, t);
      } else if (op < 80) {
        List<Long> keys = new ArrayList<>(model.keySet());
        int from = rnd.nextInt(keys.size());
        for (int k = from; k < Math.min(keys.size(), from + 1 + rnd.nextInt(20)); k++) {
          long ts = keys.get(k);
          assertThat(h.bitsAt(ts)).as("step %d at %d", step, ts).isEqualTo(model.get(ts));
          long between = ts + 1 + rnd.nextInt(5);
          assertThat(h.bitsAt(between)).isEqualTo(model.get(between));
        }
      } else if (op < 95) {
        long span = model.lastKey() - model.firstKey();
        long ts = model.firstKey() + (long) (rnd.nextDouble() * span);
        assertThat(h.bitsAt(ts)).isEqualTo(model.get(ts));
      } else if (op < 98) {
        int cut = h.cut();
        t = addSome(h, model, rnd, t); // lands after the cut
        assertThat(h.bitsAt(model.firstKey())).isEqualTo(model.firstEntry().getValue());
        TreeMap<Long, Long> kept = new TreeMap<>(model);
        long[] ts = new long[cut];
        long[] bits = new long[cut];
        h.decodePrefix(cut, ts, bits);
        for (int i = 0; i < cut; i++) {
          kept.remove(ts[i]);
        }
        h.dropFirst(rnd.nextBoolean() ? cut : 0);
        if (h.size() == kept.size()) {
          model = kept;
        }
      } else {
        h.clear();
        model.clear();
      }
    }
    if (!model.isEmpty()) {
      check(h, model, rnd);
    }
  }

  @Test
  void extremeTimestampsRoundTrip() {
    HeadBuffer h = new HeadBuffer();
    TreeMap<Long, Long> model = new TreeMap<>();
    for (long ts : new long[] {-MAX_ABS_MS, -1, 0, 1, MAX_ABS_MS - 1, MAX_ABS_MS}) {
      h.add(ts, ts * 31);
      model.put(ts, ts * 31);
    }
    check(h, model, new Random(3));
  }

  @Test
  void theNewestTimestampTwiceIsABug() {
    HeadBuffer h = new HeadBuffer();
    h.add(1_000, 1);
    h.add(2_000, 2);
    h.add(500, 3); // backfill, in the side buffer
    assertThatThrownBy(() -> h.add(2_000, 9)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> h.add(500, 9)).isInstanceOf(IllegalStateException.class);
  }

  private static void check(HeadBuffer h, TreeMap<Long, Long> model, Random rnd) {
    assertThat(h.size()).isEqualTo(model.size());
    assertThat(h.minTimestampMs()).isEqualTo(model.firstKey());
    assertThat(h.maxTimestampMs()).isEqualTo(model.lastKey());
    long[] ts = new long[h.size()];
    long[] bits = new long[h.size()];
    assertThat(h.decodeInto(ts, bits)).isEqualTo(model.size());
    int i = 0;
    for (Map.Entry<Long, Long> e : model.entrySet()) {
      assertThat(ts[i]).isEqualTo(e.getKey());
      assertThat(bits[i]).as("bits at %d", e.getKey()).isEqualTo(e.getValue());
      assertThat(h.bitsAt(e.getKey())).isEqualTo(e.getValue());
      i++;
    }
    List<Long> keys = new ArrayList<>(model.keySet());
    for (int k = 0; k < 20; k++) {
      long a = keys.get(rnd.nextInt(keys.size())) - rnd.nextInt(2);
      long b = Math.max(a, keys.get(rnd.nextInt(keys.size())) + rnd.nextInt(2));
      SampleRun run = new SampleRun(4);
      int copied = h.copyRange(a, b, run);
      Map<Long, Long> want = model.subMap(a, true, b, true);
      assertThat(copied).isEqualTo(want.size());
      int j = 0;
      for (Map.Entry<Long, Long> e : want.entrySet()) {
        assertThat(run.timestampMs(j)).isEqualTo(e.getKey());
        assertThat(run.valueBits(j)).isEqualTo(e.getValue());
        j++;
      }
    }
  }
}
