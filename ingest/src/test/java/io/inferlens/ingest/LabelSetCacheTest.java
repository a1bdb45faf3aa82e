package io.inferlens.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.storage.LabelSet;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LabelSetCacheTest {

  private static final LabelSet UP = LabelSet.of("__name__", "up", "job", "node");

  @Test
  void hitReturnsTheCachedLabelSetForEqualBytesAnywhere() {
    LabelSetCache cache = new LabelSetCache(16);
    byte[] a = framed("xx", "key bytes of a series", "yy");
    int len = a.length - 4;
    long h = LabelSetCache.hash(a, 2, len);
    assertThat(cache.get(a, 2, len, h)).isNull();
    assertThat(cache.put(a, 2, len, h, UP)).isTrue();

    byte[] b = framed("", "key bytes of a series", "zzz"); // same key, other buffer and offset
    assertThat(LabelSetCache.hash(b, 0, len)).isEqualTo(h);
    assertThat(cache.get(b, 0, len, h)).isSameAs(UP).isEqualTo(LabelSet.of("job", "node",
        "__name__", "up"));
    a[5] = 'X'; // the cache copied the key: changing the source does not change the entry
    assertThat(cache.get(b, 0, len, h)).isSameAs(UP);
  }

  @Test
  void differentBytesMiss() {
    LabelSetCache cache = new LabelSetCache(16);
    byte[] key = "key bytes of a series".getBytes(StandardCharsets.UTF_8);
    cache.put(key, 0, key.length, LabelSetCache.hash(key, 0, key.length), UP);

    byte[] oneByteOff = key.clone();
    oneByteOff[7] ^= 1;
    assertThat(cache.get(oneByteOff, 0, key.length, LabelSetCache.hash(oneByteOff, 0,
        key.length))).isNull();
    // A prefix and a longer key.
    assertThat(cache.get(key, 0, key.length - 1, LabelSetCache.hash(key, 0, key.length - 1)))
        .isNull();
    byte[] longer = "key bytes of a series!".getBytes(StandardCharsets.UTF_8);
    assertThat(cache.get(longer, 0, longer.length, LabelSetCache.hash(longer, 0, longer.length)))
        .isNull();
    // A full 64-bit hash collision (simulated by passing the cached key's hash) still misses:
    // the bytes are compared in full.
    assertThat(cache.get(oneByteOff, 0, key.length, LabelSetCache.hash(key, 0, key.length)))
        .isNull();
  }

  @Test
  void holdsAtMostSlotsEntries() {
    LabelSetCache cache = new LabelSetCache(8);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      byte[] k = ("series-" + i).getBytes(StandardCharsets.UTF_8);
      keys.add(k);
      assertThat(cache.put(k, 0, k.length, LabelSetCache.hash(k, 0, k.length),
          LabelSet.of("__name__", "m", "i", Integer.toString(i)))).isTrue();
    }
    int resident = 0;
    for (int i = 0; i < keys.size(); i++) {
      byte[] k = keys.get(i);
      LabelSet hit = cache.get(k, 0, k.length, LabelSetCache.hash(k, 0, k.length));
      if (hit != null) {
        resident++;
        assertThat(hit.get("i")).isEqualTo(Integer.toString(i));
      }
    }
    assertThat(cache.slots()).isEqualTo(8);
    assertThat(resident).isBetween(1, 8);
  }

  @Test
  void entriesOverTheByteBudgetAreNotCached() {
    LabelSetCache cache = new LabelSetCache(16);
    byte[] longKey = new byte[LabelSetCache.MAX_KEY_BYTES + 1];
    long h = LabelSetCache.hash(longKey, 0, longKey.length);
    assertThat(cache.put(longKey, 0, longKey.length, h, UP)).isFalse();
    assertThat(cache.get(longKey, 0, longKey.length, h)).isNull();

    // A short key whose label set is large (as the estimate counts it) is refused too.
    String big = "v".repeat(LabelSetCache.MAX_ENTRY_BYTES);
    LabelSet large = LabelSet.of("__name__", "m", "big", big);
    assertThat(LabelSetCache.retainedBytes(8, large)).isGreaterThan(LabelSetCache.MAX_ENTRY_BYTES);
    byte[] k = "short".getBytes(StandardCharsets.UTF_8);
    assertThat(cache.put(k, 0, k.length, LabelSetCache.hash(k, 0, k.length), large)).isFalse();
    assertThat(LabelSetCache.retainedBytes(300, UP)).isLessThan(LabelSetCache.MAX_ENTRY_BYTES);
    // Strings beyond Latin-1 take 2 bytes per char (compact strings), and are counted so.
    assertThat(LabelSetCache.retainedBytes(8, LabelSet.of("__name__", "\u20ac".repeat(100))))
        .isEqualTo(LabelSetCache.retainedBytes(8, LabelSet.of("__name__", "\u00e9".repeat(100)))
            + 96); // align(16 + 200) - align(16 + 100)
  }

  @Test
  void slotCountMustBeAPowerOfTwo() {
    assertThatThrownBy(() -> new LabelSetCache(12)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("12");
    assertThatThrownBy(() -> new LabelSetCache(1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void concurrentReadersAndWritersOnlyEverSeeTheLabelSetOfTheirKey() throws Exception {
    LabelSetCache cache = new LabelSetCache(64); // far fewer slots than keys: constant overwrites
    int keys = 500;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        results.add(pool.submit(() -> {
          int hits = 0;
          for (int round = 0; round < 200; round++) {
            for (int i = (seed * 131 + round) % keys, n = 0; n < keys; n++, i = (i + 7) % keys) {
              byte[] k = ("k" + i).getBytes(StandardCharsets.UTF_8);
              long h = LabelSetCache.hash(k, 0, k.length);
              LabelSet hit = cache.get(k, 0, k.length, h);
              if (hit == null) {
                cache.put(k, 0, k.length, h, LabelSet.of("__name__", "m", "i", "" + i));
              } else {
                assertThat(hit.get("i")).isEqualTo("" + i);
                hits++;
              }
            }
          }
          return hits;
        }));
      }
      for (Future<Integer> f : results) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isPositive();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static byte[] framed(String before, String key, String after) {
    return (before + key + after).getBytes(StandardCharsets.UTF_8);
  }
}
