package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.LIMITS;
import static io.inferlens.ingest.Requests.NOW_MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.storage.SeriesWrite;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many decoders sharing one small {@link LabelSetCache}, with requests in fixed, shuffled, cut
 * and repeated series orders (so the cache's predictions are right, wrong and stale, and slots
 * are replaced under them), decode every request exactly as a decoder with a cache of its own.
 * The series include shared label runs, invalid labels, a label after a sample, refused samples
 * and histograms. Written by a review of the prediction; it fails at once when the predicted
 * slot is checked by length only.
 */
class PredictionStressTest {

  /** Requests each decoder thread decodes per cache size. */
  private static final int ITERATIONS = 150;

  static void varint(ByteArrayOutputStream o, long v) {
    while ((v & ~0x7fL) != 0) { o.write((int) ((v & 0x7f) | 0x80)); v >>>= 7; }
    o.write((int) v);
  }
  static void field(ByteArrayOutputStream o, int tag, byte[] b) {
    o.write(tag); varint(o, b.length); o.write(b, 0, b.length);
  }
  static byte[] label(byte[] name, byte[] value) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    field(o, 0x0a, name); field(o, 0x12, value); return o.toByteArray();
  }
  static byte[] label(String n, String v) {
    return label(n.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8));
  }
  static byte[] sample(long ts, double v) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    o.write(0x09);
    long bits = Double.doubleToRawLongBits(v);
    for (int i = 0; i < 8; i++) o.write((int) (bits >>> (8 * i)));
    o.write(0x10); varint(o, ts); return o.toByteArray();
  }

  /** Series kinds: many share a label run with another series. */
  static byte[] series(int i) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    int kind = i % 9;
    int k = i / 9 % 40; // few distinct values: runs repeat across kinds
    String v = Integer.toString(k);
    switch (kind) {
      case 0, 1 -> { field(o, 0x0a, label("__name__", "m")); field(o, 0x0a, label("i", v + "_" + i)); }
      case 2 -> { field(o, 0x0a, label("__name__", "m")); field(o, 0x0a, label("i", v)); }
      case 3 -> { field(o, 0x0a, label("i", v)); } // no name
      case 4 -> { field(o, 0x0a, label("__name__", "m")); field(o, 0x0a, label("i", v)); field(o, 0x0a, label("i", v)); }
      case 5 -> { field(o, 0x0a, label("__name__", "m")); field(o, 0x0a, label("i".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xff, (byte) k})); }
      case 6 -> { // same run as kind 2, then a sample, then another label
        field(o, 0x0a, label("__name__", "m")); field(o, 0x0a, label("i", v));
        field(o, 0x12, sample(NOW_MS, i));
        field(o, 0x0a, label("z", "after"));
      }
      case 7 -> { field(o, 0x0a, label("i", v)); field(o, 0x0a, label("__name__", "m")); } // unsorted
      default -> { field(o, 0x0a, label("__name__", "m")); field(o, 0x0a, label("i", v)); field(o, 0x0a, label("j", Integer.toString(i))); }
    }
    int r = i % 7;
    if (r == 3) {
      field(o, 0x12, sample(0, i)); // too old
    } else if (r == 5) {
      field(o, 0x1a, new byte[] {0x08, 0x01}); // histogram
    } else if (r == 6) {
      field(o, 0x12, sample(NOW_MS, i)); field(o, 0x12, sample(0, i)); // partial
    } else {
      field(o, 0x12, sample(NOW_MS, i));
    }
    return o.toByteArray();
  }

  static byte[] request(List<Integer> ids) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    for (int id : ids) field(o, 0x0a, series(id));
    return o.toByteArray();
  }

  static String describe(DecodedWrite d) {
    StringBuilder sb = new StringBuilder();
    sb.append(d.firstError()).append('|').append(d.seriesRejected()).append('|')
        .append(d.seriesCount()).append('|').append(d.samplesAccepted()).append('|')
        .append(new java.util.TreeMap<>(d.rejectedByReason())).append('\n');
    for (SeriesWrite w : d.valid()) {
      sb.append(w.labels()).append(' ').append(Arrays.toString(Arrays.copyOf(w.timestampsMs(), w.count())))
          .append(Arrays.toString(Arrays.copyOf(w.valueBits(), w.count()))).append('\n');
    }
    return sb.toString();
  }

  @Test
  void sharedSmallCacheGivesWhatAColdDecoderGives() throws Exception {
    for (int slots : new int[] {4, 16, 64, 1024}) {
      run(slots);
    }
  }

  void run(int slots) throws Exception {
    int n = 720;
    Random rnd = new Random(slots);
    List<byte[]> bodies = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    List<Integer> base = new ArrayList<>();
    for (int i = 0; i < n; i++) base.add(i);
    for (int r = 0; r < 24; r++) {
      List<Integer> ids = new ArrayList<>(base);
      if (r % 3 != 0) Collections.shuffle(ids, rnd);
      if (r % 4 == 1) ids = ids.subList(0, 100 + rnd.nextInt(500));
      if (r % 5 == 2) { List<Integer> d = new ArrayList<>(ids); d.addAll(ids.subList(0, 50)); ids = d; }
      byte[] body = request(ids);
      bodies.add(body);
      expected.add(describe(new RemoteWriteDecoder(LIMITS, new LabelSetCache(1 << 12)).decode(body, 0, body.length)));
    }
    LabelSetCache shared = new LabelSetCache(slots);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicLong checked = new AtomicLong();
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int seed = t;
      fs.add(pool.submit(() -> {
        RemoteWriteDecoder d = new RemoteWriteDecoder(LIMITS, shared);
        Random r = new Random(seed);
        for (int it = 0; it < ITERATIONS; it++) {
          int b = r.nextInt(3) == 0 ? r.nextInt(bodies.size()) : (seed % 3) * 3; // mostly a fixed order
          byte[] body = bodies.get(b);
          String got = describe(d.decode(body, 0, body.length));
          if (!got.equals(expected.get(b))) {
            throw new AssertionError("slots " + slots + " body " + b + " iteration " + it);
          }
          checked.incrementAndGet();
        }
        return null;
      }));
    }
    for (Future<?> f : fs) f.get();
    pool.shutdown();
    assertThat(checked.get()).isEqualTo(8L * ITERATIONS);
  }
}
