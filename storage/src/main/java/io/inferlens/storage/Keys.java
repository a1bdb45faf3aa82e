package io.inferlens.storage;

import java.nio.charset.StandardCharsets;

/**
 * Every RocksDB column family name and fixed key of the store, and the byte helpers that build
 * keys. The layouts are documented in {@code storage/FORMAT.md} and frozen by {@code FormatTest};
 * changing a byte here is a format change and needs a new {@link #FORMAT_VERSION}.
 */
final class Keys {

  /** The on-disk format this build reads and writes. */
  static final int FORMAT_VERSION = 1;

  /** Canonical label set bytes → series id (8 B big-endian). */
  static final String CF_SERIES_BY_LABELS = "series_by_labels";
  /** Series id (8 B big-endian) → canonical label set bytes. */
  static final String CF_SERIES_BY_ID = "series_by_id";
  /** {@code name 0x00 value 0x00 id(8 B BE)} → empty. */
  static final String CF_POSTINGS = "postings";
  /** Sample key → value, see {@link RawSampleCodec}. */
  static final String CF_SAMPLES = "samples";
  /** Store-wide metadata: format version and next series id. */
  static final String CF_META = "meta";

  /** Meta key of the format version; value is a 4-byte big-endian int. */
  static final byte[] META_FORMAT_VERSION = ascii("format_version");
  /** Meta key of the next series id to assign; value is 8-byte big-endian. */
  static final byte[] META_NEXT_SERIES_ID = ascii("next_series_id");

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

  /**
   * Postings key {@code name 0x00 value 0x00 id(8 B BE)}. Names and values are UTF-8; a value
   * containing U+0000 makes prefix scans ambiguous, which is why the store rebuilds postings from
   * {@link #CF_SERIES_BY_ID} at open instead of reading this column family (see FORMAT.md).
   */
  static byte[] postingKey(String name, String value, long seriesId) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[n.length + 1 + v.length + 1 + 8];
    System.arraycopy(n, 0, out, 0, n.length);
    // out[n.length] and out[n.length + 1 + v.length] stay 0x00: the separators.
    System.arraycopy(v, 0, out, n.length + 1, v.length);
    putBe64(out, out.length - 8, seriesId);
    return out;
  }
}
