package io.inferlens.ingest;

import io.inferlens.storage.LabelSet;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Maps the raw wire bytes of a TimeSeries' label fields (the contiguous run of
 * {@code Label labels = 1} fields, tags and lengths included) to the canonical {@link LabelSet}
 * that {@link RemoteWriteDecoder} built and validated from exactly those bytes. Senders resend
 * the same series every scrape with the same bytes, so a hit skips UTF-8 decoding, sorting,
 * validation and the LabelSet allocation.
 *
 * <p>Correctness: decoding and validating labels depends on nothing but their bytes, and a hit
 * requires the full bytes to be equal (the hash only picks the slot), so a hit returns what the
 * full decode would have built. Only label sets that passed every label rule are inserted: a
 * series whose labels are invalid is never cached and is rejected by the full decode every time.
 *
 * <p>Memory bound: a table of {@link #DEFAULT_SLOTS} references (or the count given to the
 * constructor); each slot holds at most one entry, and an entry is only inserted when its
 * estimated retained size ({@link #retainedBytes}: key bytes, the LabelSet, its arrays and its
 * strings counted as if not shared, JVM object headers included) is at most
 * {@link #MAX_ENTRY_BYTES}. So a cache holds at most about {@code slots * (MAX_ENTRY_BYTES + 4)}
 * bytes (compressed references, i.e. heaps under 32 GiB): 131,072 × 4,100 B ≈ 512 MiB with
 * the defaults, whatever the senders send. The series of the vLLM/DCGM benchmark request (8–14
 * labels) are estimated at 1.0–2.2 KiB and really retain less, because most of their strings
 * ({@code job}, {@code instance}, metric names, {@code le} values) are shared with other series.
 *
 * <p>Replacement: each key has two candidate slots (two halves of a 64-bit hash); a miss fills an
 * empty candidate, else overwrites one of the two at random. Under cyclic access (every series
 * once per scrape) this keeps most series resident until the active series approach the slot
 * count; beyond it the hit rate falls gradually rather than to zero as with one slot per key.
 *
 * <p>Thread safety: thread safe, lock free, meant to be shared by all decoders of a
 * {@link RemoteWriteHandler} (a per-thread cache would multiply the memory by the blocking pool's
 * thread count and split the hits among threads). Entries are immutable and published with
 * release/acquire semantics; concurrent inserts into one slot simply let the last one win.
 */
final class LabelSetCache {

  /**
   * 131,072 slots: room for the active series of several hundred vLLM/DCGM targets (the bench's
   * 100,000-series set fits at about 76 % load). An entry's LabelSet is the same object the
   * store's index keeps for the series, so a resident entry costs its key bytes and about 40
   * bytes more in practice, far under the worst-case bound below.
   */
  static final int DEFAULT_SLOTS = 1 << 17;

  /** Keys longer than this (in bytes) are never cached: the entry could not fit the budget. */
  static final int MAX_KEY_BYTES = 1024;

  /**
   * Upper bound on the estimated retained size of one entry, in bytes: about twice what a
   * vLLM/DCGM series is estimated at, so that every such series fits.
   */
  static final int MAX_ENTRY_BYTES = 4096;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** An immutable cache entry: the key bytes, their hash, and the label set built from them. */
  private static final class Entry {
    final long hash;
    final byte[] key;
    final LabelSet labels;

    Entry(long hash, byte[] key, LabelSet labels) {
      this.hash = hash;
      this.key = key;
      this.labels = labels;
    }
  }

  private final AtomicReferenceArray<Entry> table;
  private final int mask;

  /** A cache of {@link #DEFAULT_SLOTS} slots. */
  LabelSetCache() {
    this(DEFAULT_SLOTS);
  }

  /**
   * @param slots number of slots, a power of two ≥ 2; the memory bound is
   *     {@code slots * (MAX_ENTRY_BYTES + 4)} bytes
   * @throws IllegalArgumentException if {@code slots} is not a power of two ≥ 2
   */
  LabelSetCache(int slots) {
    if (slots < 2 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two >= 2, not " + slots);
    }
    this.table = new AtomicReferenceArray<>(slots);
    this.mask = slots - 1;
  }

  /** @return the number of slots, which is the most entries the cache holds at once */
  int slots() {
    return table.length();
  }

  /**
   * @param buf source bytes
   * @param off start of the key in {@code buf}
   * @param len key length in bytes, ≥ 0
   * @return a 64-bit hash of the bytes, to pass to {@link #get} and {@link #put}
   */
  static long hash(byte[] buf, int off, int len) {
    int i = off;
    int end = off + len;
    long h;
    if (len >= 32) {
      // Four independent lanes (xxHash64's round): keys are ~300 bytes, and one dependent
      // multiply chain per word was a fifth of the decode time.
      long h1 = 0x60EA27EEADC0B5D6L;
      long h2 = 0xC2B2AE3D27D4EB4FL;
      long h3 = 0;
      long h4 = 0x61C8864E7A143579L;
      for (; i + 32 <= end; i += 32) {
        h1 = round(h1, (long) LONG_LE.get(buf, i));
        h2 = round(h2, (long) LONG_LE.get(buf, i + 8));
        h3 = round(h3, (long) LONG_LE.get(buf, i + 16));
        h4 = round(h4, (long) LONG_LE.get(buf, i + 24));
      }
      h = Long.rotateLeft(h1, 1) + Long.rotateLeft(h2, 7) + Long.rotateLeft(h3, 12)
          + Long.rotateLeft(h4, 18);
    } else {
      h = 0x27D4EB2F165667C5L;
    }
    h += len;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      h = Long.rotateLeft(h ^ round(0, (long) LONG_LE.get(buf, i)), 27) * 0x9E3779B97F4A7C15L;
    }
    long tail = 0;
    for (int shift = 0; i < end; i++, shift += 8) {
      tail |= (buf[i] & 0xffL) << shift;
    }
    h ^= tail * 0xC2B2AE3D27D4EB4FL;
    // fmix64 of MurmurHash3: every input bit affects both 32-bit halves used as slots.
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return h;
  }

  /**
   * @param buf source bytes
   * @param off start of the key in {@code buf}
   * @param len key length in bytes, ≥ 0
   * @param hash {@link #hash hash(buf, off, len)}
   * @return the label set cached for exactly these bytes, or null
   */
  LabelSet get(byte[] buf, int off, int len, long hash) {
    LabelSet hit = match(table.getAcquire(slot1(hash)), buf, off, len, hash);
    return hit != null ? hit : match(table.getAcquire(slot2(hash)), buf, off, len, hash);
  }

  /**
   * Remembers {@code labels} for these key bytes, unless the entry would exceed
   * {@link #MAX_ENTRY_BYTES}. The bytes are copied.
   *
   * @param buf source bytes
   * @param off start of the key in {@code buf}
   * @param len key length in bytes, ≥ 0
   * @param hash {@link #hash hash(buf, off, len)}
   * @param labels the canonical label set the decoder built and validated from these bytes
   * @return whether the entry was stored
   */
  boolean put(byte[] buf, int off, int len, long hash, LabelSet labels) {
    if (len > MAX_KEY_BYTES || retainedBytes(len, labels) > MAX_ENTRY_BYTES) {
      return false;
    }
    Entry e = new Entry(hash, Arrays.copyOfRange(buf, off, off + len), labels);
    int s1 = slot1(hash);
    int s2 = slot2(hash);
    int slot;
    if (table.getAcquire(s1) == null) {
      slot = s1;
    } else if (table.getAcquire(s2) == null) {
      slot = s2;
    } else {
      // Random, not fixed: with a fixed victim two keys cycling through one slot always miss.
      slot = ThreadLocalRandom.current().nextBoolean() ? s1 : s2;
    }
    table.setRelease(slot, e);
    return true;
  }

  private static long round(long acc, long word) {
    return Long.rotateLeft(acc + word * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B97F4A7C15L;
  }

  /**
   * A conservative estimate of the heap an entry retains, in bytes, for 64-bit JVMs with
   * compressed references (12-byte object headers, 16-byte array headers, 8-byte alignment):
   * the entry, the key array, the LabelSet with its two arrays, and each label string as if it
   * were shared with nothing else (1 byte per char when all chars are Latin-1, else 2, as
   * compact strings store them).
   *
   * @param keyLen key length in bytes
   * @param labels the label set the entry would hold
   * @return the estimate in bytes
   */
  static long retainedBytes(int keyLen, LabelSet labels) {
    long bytes = align(12 + 8 + 4 + 4) + align(16 + keyLen);
    int n = labels.size();
    bytes += align(12 + 4 + 4 + 4) + 2 * align(16 + 4L * n);
    for (int i = 0; i < n; i++) {
      bytes += stringBytes(labels.name(i)) + stringBytes(labels.value(i));
    }
    return bytes;
  }

  private static long stringBytes(String s) {
    int bytesPerChar = 1;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) > 0xff) {
        bytesPerChar = 2;
        break;
      }
    }
    return align(12 + 4 + 4 + 1 + 1) + align(16 + (long) bytesPerChar * s.length());
  }

  private static long align(long bytes) {
    return (bytes + 7) & ~7L;
  }

  private int slot1(long hash) {
    return (int) hash & mask;
  }

  private int slot2(long hash) {
    return (int) (hash >>> 32) & mask;
  }

  private static LabelSet match(Entry e, byte[] buf, int off, int len, long hash) {
    if (e != null && e.hash == hash
        && Arrays.equals(e.key, 0, e.key.length, buf, off, off + len)) {
      return e.labels;
    }
    return null;
  }
}
