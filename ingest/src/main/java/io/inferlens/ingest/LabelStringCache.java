package io.inferlens.ingest;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns UTF-8 label bytes into validated Strings, reusing the String of a recently seen identical
 * byte sequence. Label names and most label values repeat across the series of a request and
 * across requests ({@code job}, {@code instance}, {@code le="0.5"}), so this removes most of the
 * String allocations of decoding.
 *
 * <p>Direct-mapped table of {@link #SLOTS} entries; a colliding entry is overwritten. Only
 * strings up to {@link #MAX_CACHED_BYTES} bytes are cached. Memory is bounded by
 * {@code SLOTS * MAX_CACHED_BYTES * 3} bytes (key bytes plus String) ≈ 1.5 MiB per instance.
 *
 * <p>Not thread safe: one instance per {@link RemoteWriteDecoder}.
 */
final class LabelStringCache {

  /** log2 of {@link #SLOTS}. */
  static final int SLOT_BITS = 12;

  /** 4096 slots: a 200-series vLLM/DCGM instance has ~400 distinct label strings. */
  static final int SLOTS = 1 << SLOT_BITS;

  /** Longer strings (pod UUIDs, long values) are rare enough to decode each time. */
  static final int MAX_CACHED_BYTES = 128;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[][] keys = new byte[SLOTS][];
  private final String[] strings = new String[SLOTS];

  /**
   * @param buf source bytes
   * @param off start of the string in {@code buf}
   * @param len length in bytes, ≥ 0
   * @return the decoded string, or null if the bytes are not valid UTF-8
   */
  String get(byte[] buf, int off, int len) {
    if (len == 0) {
      return "";
    }
    if (len > MAX_CACHED_BYTES) {
      return decode(buf, off, len);
    }
    int slot = slot(buf, off, len);
    byte[] key = keys[slot];
    if (key != null && Arrays.equals(key, 0, key.length, buf, off, off + len)) {
      return strings[slot];
    }
    String s = decode(buf, off, len);
    if (s != null) {
      keys[slot] = Arrays.copyOfRange(buf, off, off + len);
      strings[slot] = s;
    }
    return s;
  }

  /**
   * A constant-time hash: the length and the first and last 8 bytes (label strings that share a
   * prefix, such as metric names or pod names, differ at the end). Collisions only cost a miss:
   * {@link #get} compares the full bytes.
   */
  private static int slot(byte[] buf, int off, int len) {
    long h;
    if (len >= Long.BYTES) {
      long first = (long) LONG_LE.get(buf, off);
      long last = (long) LONG_LE.get(buf, off + len - Long.BYTES);
      h = first * 0x9E3779B97F4A7C15L + last;
    } else {
      h = 0;
      for (int i = off, end = off + len; i < end; i++) {
        h = (h << 8) | (buf[i] & 0xff);
      }
    }
    h = (h ^ len) * 0xC2B2AE3D27D4EB4FL; // 64-bit mixing constants of xxHash / golden ratio
    return (int) (h >>> (Long.SIZE - SLOT_BITS)); // the top bits are the best mixed
  }

  private static String decode(byte[] buf, int off, int len) {
    return isValidUtf8(buf, off, len) ? new String(buf, off, len, StandardCharsets.UTF_8) : null;
  }

  /**
   * Checks well-formed UTF-8 per RFC 3629: no overlong forms, no surrogates (U+D800..U+DFFF), no
   * code points above U+10FFFF, no truncated sequences. Same rule as protobuf's proto3 string
   * check.
   */
  static boolean isValidUtf8(byte[] b, int off, int len) {
    int i = off;
    int end = off + len;
    while (i < end) {
      int c = b[i] & 0xff;
      if (c < 0x80) {
        i++;
        continue;
      }
      int need;
      int min;
      if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
        min = 0x80;
      } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        min = 0x800;
      } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        min = 0x10000;
      } else {
        return false;
      }
      if (i + need >= end) { // truncated sequence
        return false;
      }
      int cp = c & (0x3f >> need);
      for (int k = 1; k <= need; k++) {
        int cc = b[i + k] & 0xff;
        if ((cc & 0xc0) != 0x80) {
          return false;
        }
        cp = (cp << 6) | (cc & 0x3f);
      }
      if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return false;
      }
      i += need + 1;
    }
    return true;
  }
}
