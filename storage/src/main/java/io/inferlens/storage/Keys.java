package io.inferlens.storage;

import io.inferlens.storage.head.HeadLog;
import java.nio.charset.StandardCharsets;

/**
 * Every RocksDB column family name and fixed key of the store, and the byte helpers that build
 * keys. The layouts are documented in {@code storage/FORMAT.md} and frozen by {@code FormatTest};
 * changing a byte here is a format change and needs a new {@link #FORMAT_VERSION}.
 */
final class Keys {

  /** The on-disk format this build reads and writes (2: chunks, head log, partitions). */
  static final int FORMAT_VERSION = 2;

  /** Series id (8 B big-endian) → canonical label set bytes. */
  static final String CF_SERIES_BY_ID = "series_by_id";
  /**
   * Column families that stores written before 2026-11-30 hold and this version drops at open:
   * {@code series_by_labels} (label set bytes → id) and {@code postings} (label → ids). Nothing
   * ever read them (the in-memory index is rebuilt from {@link #CF_SERIES_BY_ID}); without them
   * the settled index of the 100,000-series bench store is 5.1 MB instead of 12.7 MB.
   */
  static final java.util.List<String> LEGACY_INDEX_COLUMN_FAMILIES =
      java.util.List.of("series_by_labels", "postings");
  /** Head log: {@code be64(sequence)} → one append's accepted samples, see {@link HeadLog}. */
  static final String CF_HEAD_LOG = "head_log";
  /** Store-wide metadata: format version, next series id, head-log floor, metric metadata. */
  static final String CF_META = "meta";
  /** The analysis's incident journal ({@link JournalStore}); created when missing. */
  static final String CF_JOURNAL = "journal";

  /** Meta key of the format version; value is a 4-byte big-endian int. */
  static final byte[] META_FORMAT_VERSION = ascii("format_version");
  /**
   * Meta key that is never stored: {@link TimeSeriesStore#probeWrite()} deletes it, a write that
   * leaves nothing but a tombstone.
   */
  static final byte[] META_WRITE_PROBE = ascii("write_probe");
  /** Meta key of the next series id to assign; value is 8-byte big-endian. */
  static final byte[] META_NEXT_SERIES_ID = ascii("next_series_id");

  /**
   * Meta key of the lowest head-log sequence number not yet truncated; value 8-byte big-endian.
   * Written with every truncation, so sequence numbers keep increasing across restarts.
   */
  static final byte[] META_LOG_FLOOR = ascii("head_log_floor");

  /**
   * Meta key present while a head flush of several batches is partly written: its first batch
   * puts it, its last deletes it; value {@code be64(cut)}. At open it tells that the replayed head
   * may hold samples that are in chunks already, so the next flush merges with what it finds.
   */
  static final byte[] META_FLUSH_PARTIAL = ascii("head_flush_partial");

  /**
   * Meta key prefix of a metric family's metadata: {@code "metric_metadata" 0x00} then the family
   * name in UTF-8; value: {@link MetadataStore}'s record. The 0x00 keeps these keys apart from
   * every plain ASCII key, and all of them together in key order.
   */
  static final byte[] META_METRIC_METADATA_PREFIX = ascii("metric_metadata\0");

  /** Partition key prefix of a series' presence marker: {@code 0x00 be64(id)} → empty. */
  static final byte PREFIX_PRESENT = 0x00;
  /** Partition key prefix of a chunk or rollup block: {@code 0x01 be64(id) be64(ts ^ 2^63)}. */
  static final byte PREFIX_DATA = 0x01;
  /** Partition key of the partition's sample counter: {@code 0x02}; value 8-byte big-endian. */
  static final byte[] PARTITION_SAMPLE_COUNT = {0x02};

  /**
   * Partition key prefix of a window that has chunks written since it was last finalized:
   * {@code 0x03 be64(id) be64(windowStart ^ 2^63)} → empty. Lets a restart resume finalization.
   */
  static final byte PREFIX_UNFINALIZED = 0x03;

  /** The first series id ever assigned; 0 is never a valid id. */
  static final long FIRST_SERIES_ID = 1;

  private static final byte[] EMPTY = new byte[0];

  private Keys() {}

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] empty() {
    return EMPTY;
  }

  /** @return {@code v} as 8 bytes, most significant first */
  static byte[] be64(long v) {
    byte[] out = new byte[8];
    putBe64(out, 0, v);
    return out;
  }

  static void putBe64(byte[] out, int pos, long v) {
    for (int i = 7; i >= 0; i--) {
      out[pos + i] = (byte) v;
      v >>>= 8;
    }
  }

  static long getBe64(byte[] in, int pos) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (in[pos + i] & 0xFF);
    }
    return v;
  }

  /** @return a 4-byte big-endian int */
  static byte[] be32(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  static int getBe32(byte[] in) {
    return ((in[0] & 0xFF) << 24) | ((in[1] & 0xFF) << 16) | ((in[2] & 0xFF) << 8) | (in[3] & 0xFF);
  }

  /** @return {@link #META_METRIC_METADATA_PREFIX} followed by the family name's UTF-8 bytes */
  static byte[] metricMetadataKey(String metricFamilyName) {
    byte[] name = metricFamilyName.getBytes(StandardCharsets.UTF_8);
    byte[] k = java.util.Arrays.copyOf(META_METRIC_METADATA_PREFIX,
        META_METRIC_METADATA_PREFIX.length + name.length);
    System.arraycopy(name, 0, k, META_METRIC_METADATA_PREFIX.length, name.length);
    return k;
  }

  /** @return {@code 0x00 be64(id)}, the marker that a series has data in a partition */
  static byte[] presentKey(long seriesId) {
    byte[] k = new byte[9];
    k[0] = PREFIX_PRESENT;
    putBe64(k, 1, seriesId);
    return k;
  }

  /**
   * @return {@code 0x01 be64(id) be64(timestampMs ^ 2^63)}: the sign flip maps signed
   *     milliseconds to unsigned byte order, so one series' keys ascend in time
   */
  static byte[] dataKey(long seriesId, long timestampMs) {
    byte[] k = new byte[17];
    k[0] = PREFIX_DATA;
    putBe64(k, 1, seriesId);
    putBe64(k, 9, timestampMs ^ Long.MIN_VALUE);
    return k;
  }

  /** @return {@code 0x03 be64(id) be64(windowStart ^ 2^63)}, see {@link #PREFIX_UNFINALIZED} */
  static byte[] unfinalizedKey(long seriesId, long windowStartMs) {
    byte[] k = dataKey(seriesId, windowStartMs);
    k[0] = PREFIX_UNFINALIZED;
    return k;
  }

  /** @return the series id of a {@link #dataKey} or {@link #presentKey} */
  static long keySeriesId(byte[] key) {
    return getBe64(key, 1);
  }

  /** @return the timestamp of a {@link #dataKey}, milliseconds */
  static long keyTimestampMs(byte[] key) {
    return getBe64(key, 9) ^ Long.MIN_VALUE;
  }

}
