package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.storage.chunk.ChunkCodec;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hex literals of what the store writes beyond {@link FormatTest}: a rollup block (layout 2),
 * every meta key with its value as a store writes it (metric metadata included), and the
 * partial-flush marker. A failing
 * literal is a format change (FORMAT.md).
 */
class GoldenBytesTest extends StoreTestBase {

  private static String hex(byte[] b) {
    return b == null ? null : HexFormat.of().formatHex(b);
  }

  /** 2023-11-14T22:10:00Z, a 5-minute boundary, in milliseconds. */
  private static final long B = 1_700_000_000_000L / 300_000 * 300_000;

  @Test
  void rollupBlockLayoutTwoIsFrozen() {
    // A counter in two 5-minute intervals, 1-minute samples, a reset in the second.
    long[] ts = {B, B + 60_000, B + 120_000, B + 300_000, B + 360_000, B + 420_000};
    long[] v = {bits(1), bits(2), bits(4), bits(5), bits(1), bits(3)};
    RollupBlock b = RollupBlock.compute(ts, v, ts.length, Resolution.FIVE_MINUTES.intervalMs());
    byte[] enc = b.encode(new ChunkCodec());
    assertThat(hex(enc)).isEqualTo(ROLLUP_HEX);
    // Layout mark 00 02, two intervals, then the count column: a chunk of the interval starts.
    assertThat(hex(enc)).startsWith("0002" + "02");
    RollupBlock back = RollupBlock.decode(enc);
    assertThat(back.size).isEqualTo(2);
    assertThat(back.starts).startsWith(B, B + 300_000);
  }

  /** The block above: layout mark, n, then seven {@code varint(len)} columns. */
  private static final String ROLLUP_HEX = "0002" + "02"
      // count: a chunk (18 = v1, GRID, CONST) of 2 samples, g0 = zz(B), D = 300000 (e0a712),
      // w = 0, kr = 0, value 3.0 (both intervals hold 3 samples), bit stream c0
      + "16" + "18" + "02" + "80eb92fef962" + "e0a712" + "00" + "00" + "4008000000000000" + "c0"
      // min: values-only column, CONST 1.0 (the reset makes interval 2's min 1)
      + "09" + "00" + "3ff0000000000000"
      // max (4, 5), sum (7, 9), first (1, 5), last (4, 3): DECIMAL (01) values-only columns
      + "07" + "01000108020000" + "07" + "0100010e040000" + "07" + "01000102080000"
      + "07" + "01000108010000"
      // increase: CONST 3.0 (1 + 2 in interval 1; the reset to 1 counts 1, then 2, in 2)
      + "09" + "00" + "4008000000000000";

  @Test
  void metaKeysAreFrozen() {
    assertThat(hex(Keys.META_FORMAT_VERSION)).isEqualTo("666f726d61745f76657273696f6e");
    assertThat(hex(Keys.META_NEXT_SERIES_ID)).isEqualTo("6e6578745f7365726965735f6964");
    assertThat(hex(Keys.META_LOG_FLOOR)).isEqualTo("686561645f6c6f675f666c6f6f72");
    assertThat(hex(Keys.META_FLUSH_PARTIAL)).isEqualTo("686561645f666c7573685f7061727469616c");
    // "metric_metadata" 00, then the family name in UTF-8.
    assertThat(hex(Keys.META_METRIC_METADATA_PREFIX))
        .isEqualTo("6d65747269635f6d657461646174610" + "0");
    assertThat(hex(Keys.metricMetadataKey("up")))
        .isEqualTo("6d65747269635f6d65746164617461" + "00" + "7570");
  }

  @Test
  void metricMetadataValueOfAStoreIsFrozen() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.appendMetadata(List.of(
          new MetricMetadata("up", MetricType.GAUGE, "Up.", ""),
          new MetricMetadata("up", MetricType.COUNTER, "", "s")));
    }
    String expected = "01" // layout 1
        + "02" // two entries, in the order first stored
        + "02" + "03" + "55702e" + "00" // gauge, help "Up.", unit ""
        + "01" + "00" + "01" + "73"; // counter, help "", unit "s"
    assertThat(storedMeta(Keys.metricMetadataKey("up"))).isEqualTo(expected);
    assertThat(MetadataStore.decode("up", HexFormat.of().parseHex(expected))).containsExactly(
        new MetricMetadata("up", MetricType.GAUGE, "Up.", ""),
        new MetricMetadata("up", MetricType.COUNTER, "", "s"));
  }

  /** @return the value of a meta key in the closed store's directory, hex, or null */
  private String storedMeta(byte[] key) throws Exception {
    try (RocksHandles rocks = RocksHandles.open(StoreOptions.defaults(dir))) {
      return hex(rocks.db.get(rocks.meta, key));
    }
  }

  @Test
  void metaValuesOfAStoreAreFrozen() throws Exception {
    open().close(); // a new store writes the version and the first id
    assertThat(storedMeta(Keys.META_FORMAT_VERSION)).isEqualTo("00000002");
    assertThat(storedMeta(Keys.META_NEXT_SERIES_ID)).isEqualTo("0000000000000001");
    assertThat(storedMeta(Keys.META_LOG_FLOOR)).isNull();
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(LabelSet.of("__name__", "a"), NOW_MS, 1),
          write(LabelSet.of("__name__", "b"), NOW_MS, 2)));
      store.append(List.of(write(LabelSet.of("__name__", "c"), NOW_MS, 3)));
      store.flushHead(); // two log records, sequences 0 and 1: the floor is 2
    }
    assertThat(storedMeta(Keys.META_NEXT_SERIES_ID)).isEqualTo("0000000000000004");
    assertThat(storedMeta(Keys.META_LOG_FLOOR)).isEqualTo("0000000000000002");
    assertThat(storedMeta(Keys.META_FLUSH_PARTIAL)).isNull();
  }

  @Test
  void partialFlushMarkerIsFrozen() throws Exception {
    int series = 1_000;
    int perSeries = 5 * TimeSeriesStore.FLUSH_BATCH_SAMPLES / series / 2; // three batches
    try (TimeSeriesStore store = open()) {
      List<SeriesWrite> writes = new ArrayList<>();
      for (int s = 0; s < series; s++) {
        long[] t = new long[perSeries];
        long[] v = new long[perSeries];
        for (int i = 0; i < perSeries; i++) {
          t[i] = NOW_MS - 6 * 3_600_000L + i * 15_000L;
          v[i] = bits(i);
        }
        writes.add(rawWrite(LabelSet.of("__name__", "m", "i", Integer.toString(s)), t, v));
      }
      store.append(writes.subList(0, series / 2));
      store.append(writes.subList(series / 2, series)); // log sequences 0 and 1: the cut is 2
      int[] calls = {0};
      store.flusher.beforeFlushBatch = () -> {
        if (++calls[0] == 2) {
          throw new IllegalStateException("injected: the process dies after the first batch");
        }
      };
      assertThatThrownBy(store::flushHead).isInstanceOf(StorageException.class);
    }
    // The first batch is written, the last is not: the marker holds the cut.
    assertThat(storedMeta(Keys.META_FLUSH_PARTIAL)).isEqualTo("0000000000000002");
    assertThat(storedMeta(Keys.META_LOG_FLOOR)).isNull();
  }
}
