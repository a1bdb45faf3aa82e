package io.inferlens.ingest;

import io.inferlens.storage.LabelSet;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;
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
 * <p>Keys are not stored: an entry holds the key's length and a 128-bit keyed hash of its bytes
 * ({@link SipHash#hash128x13 SipHash-1-3}, 128-bit output, under a key drawn once per process
 * from {@link SecureRandom}), and a lookup whose length and 128-bit hash equal an entry's is a
 * hit. A hit thus reads the table slot and one small entry (40 bytes: one or two cache lines),
 * never the 300–500 key bytes, which with 100,000 series are out of the CPU caches (measured in
 * production at about 1 µs, seven cache-line misses, per series when compared); and a resident
 * entry retains its key bytes only while the cache is small enough for {@link #matchNext}.
 *
 * <p>Correctness: decoding and validating labels depends on nothing but their bytes, so a hit
 * for the same bytes returns what the full decode would have built. A hit for <em>other</em>
 * bytes needs two distinct keys of one length with equal 128-bit SipHash outputs. SipHash is a
 * pseudorandom function: under a uniformly random secret key its outputs for distinct inputs
 * behave as independent uniform 128-bit values, so among n distinct keys ever hashed by one
 * process, the probability that any two collide is at most about n² / 2<sup>129</sup>:
 * ~10<sup>-29</sup> for the 100,000 series of the bench set, ~1.5 × 10<sup>-21</sup> for a
 * billion distinct series over a process' lifetime (series churn included), far below the rate
 * of undetected hardware memory and CPU errors, which the full byte comparison did not protect
 * against either. The key is secret and new in every process, and neither hashes nor hits are
 * visible to senders, so a sender cannot craft colliding label sets: without the key, each
 * attempt collides with a given entry with probability 2<sup>-128</sup>.
 *
 * <p>What a collision would do: the samples of the looked-up series would be stored under the
 * colliding entry's (valid) label set, i.e. attached to the wrong series, silently, until that
 * entry is evicted or the process restarts (an invalid label set still could not get in). At
 * these probabilities that is accepted, as content addressing by 128-bit or longer hashes is
 * accepted elsewhere; the alternative, comparing the stored bytes, cost ~20 % of the receiver's
 * CPU at 100,000 series.
 *
 * <p>Why SipHash-1-3 rather than 2-4: on this workload's ~300-byte keys 2-4 took ~200 ns per key
 * and 1-3 ~115 ns (the unkeyed hash it replaces ~45 ns), so 2-4 made decoding a request whose
 * series are all cached and CPU-cache resident ~40 % slower, 1-3 ~20 % (docs/BENCHMARKS.md). SipHash-1-3 is what Rust's standard hash maps
 * and CPython's string hash (3.11+) use against hash flooding, whose security rests on the same
 * property as here (outputs unpredictable without the key, outputs never shown to the
 * attacker); no attack on it better than generic is published. Switching to
 * {@link SipHash#hash128x24} is a one-line change if that margin is ever wanted.
 *
 * <p>Only label sets that passed every label rule are inserted: a series whose labels are
 * invalid is never cached and is rejected by the full decode every time.
 *
 * <p>The 64-bit slot hash is the first half of the SipHash output (its two 32-bit halves pick the
 * two candidate buckets), so a key is hashed once.
 *
 * <p>Memory bound: a table of {@link #DEFAULT_SLOTS} references (or the count given to the
 * constructor); each slot holds at most one entry, and an entry is only inserted when its key
 * is at most {@link #MAX_KEY_BYTES} long and its estimated retained size
 * ({@link #retainedBytes}: the entry, the LabelSet, its arrays and its strings counted as if not
 * shared, JVM object headers included) is at most {@link #MAX_ENTRY_BYTES}. So a cache holds at
 * most about {@code slots * (MAX_ENTRY_BYTES + 12)} bytes (a compressed reference and a slot hash
 * per slot, i.e. heaps under 32 GiB): 131,072 × 4,108 B ≈ 513 MiB with the defaults, whatever
 * the senders send, plus, while the byte match below is on, the entries that a {@code nextEntry}
 * hint keeps alive after they were replaced: hints are set only while the cache holds at most
 * {@link #BYTE_MATCH_MAX_ENTRIES} entries, so at most that many more. The series of the
 * vLLM/DCGM benchmark request (8–14 labels) are estimated at under 2.2 KiB and really retain
 * less, because most of their strings ({@code job}, {@code instance}, metric names, {@code le}
 * values) are shared with other series.
 *
 * <p>Replacement: each key has two candidate buckets of {@link #WAYS} slots (picked by the two
 * 32-bit halves of the slot hash, as in bucketized cuckoo hashing); a miss fills an empty slot of
 * either bucket, else overwrites one of the eight at random. Under cyclic access (every series
 * once per scrape) this keeps nearly every series resident up to about 90 % load: simulated with
 * 100,000 series in 131,072 slots, 99.5 % of lookups hit from the fifth scrape on, where one slot
 * per candidate (two choices, no buckets) stayed near 85 %, because two-choice tables without
 * relocation degrade above 50 % load. A parallel array of the entries' slot hashes lets a lookup
 * scan both buckets (two cache lines) without touching an entry that cannot match.
 *
 * <p>Prediction: senders repeat their series in the same order every scrape, so each entry
 * remembers the slot of the entry looked up right after it. {@link #predict} loads that entry
 * before the decoder hashes the next series, and {@link #get(Key, int, int)} checks it first,
 * exactly as any slot (equal length and 128-bit hash), so a wrong or stale prediction is only a
 * miss there. With 100,000 series this overlaps the table's cache misses with the hashing
 * (docs/BENCHMARKS.md, "fifth pass").
 *
 * <p>Byte match: while the cache holds at most {@link #BYTE_MATCH_MAX_ENTRIES} entries (their
 * entries and keys then stay in the CPU caches), an entry also keeps a copy of its key bytes, and
 * {@link #matchNext} compares the next series' bytes with the key of the entry that followed the
 * previous one last time ({@link Arrays#equals(byte[], int, int, byte[], int, int)}, vectorized).
 * When they are equal the series is found without scanning its label fields or hashing them, and
 * the comparison is exact. DecodeBenchmark (2,000 series): 3.68 → 5.39 M samples/s; with
 * 100,000 series the key bytes are DRAM misses that nothing overlaps, and
 * ManySeriesDecodeBenchmark took 818 → 1,174 µs per request with the byte match, so above the
 * bound the cache predicts and hashes instead (docs/BENCHMARKS.md, "Fast by default").
 *
 * <p>Thread safety: thread safe, lock free, meant to be shared by all decoders of a
 * {@link RemoteWriteHandler} (a per-thread cache would multiply the memory by the blocking pool's
 * thread count and split the hits among threads). Entries are immutable but for their
 * prediction hint, a plain int any thread may overwrite, and are published with release/acquire
 * semantics; concurrent inserts into one slot simply let the last one win.
 * {@link Key} instances are not thread safe: one per thread.
 */
final class LabelSetCache {

  /**
   * 131,072 slots: room for the active series of several hundred vLLM/DCGM targets (the bench's
   * 100,000-series set fits at about 76 % load). An entry's LabelSet is the same object the
   * store's index keeps for the series, so a resident entry costs about 40 bytes in practice,
   * far under the worst-case bound below.
   */
  static final int DEFAULT_SLOTS = 1 << 17;

  /** Keys longer than this (in bytes) are never cached. */
  static final int MAX_KEY_BYTES = 1024;

  /**
   * Upper bound on the estimated retained size of one entry, in bytes: about twice what a
   * vLLM/DCGM series is estimated at, so that every such series fits.
   */
  static final int MAX_ENTRY_BYTES = 4096;

  /** The SipHash key, secret and new in every process. */
  private static final long K0;
  private static final long K1;

  static {
    SecureRandom random = new SecureRandom();
    K0 = random.nextLong();
    K1 = random.nextLong();
  }

  /**
   * What identifies a key in the cache: its length and 128-bit keyed hash. Mutable and reused:
   * {@link #set} it for each key. Not thread safe; one per thread.
   */
  static final class Key {
    /** The SipHash-1-3 output: [0] bytes 0–7 (the slot hash), [1] bytes 8–15. */
    final long[] hash = new long[2];
    /** The key length in bytes. */
    int len;
    /**
     * The slot where the last {@link #get} found this key or {@link #put} stored it, or -1: what
     * {@link #predict} starts from for the next key.
     */
    int slot = -1;
    /** The slot hash {@link #predict} loaded; kept so that the JIT keeps the load. */
    long predictedHash;
    /** The bytes {@link #set} was last given ({@link #put} may copy the key from them), or null. */
    private byte[] src;
    private int srcOff;

    /**
     * @param buf source bytes
     * @param off start of the key in {@code buf}
     * @param len key length in bytes, ≥ 0
     * @return this, now identifying those bytes
     */
    Key set(byte[] buf, int off, int len) {
      SipHash.hash128x13(K0, K1, buf, off, len, hash);
      this.len = len;
      this.src = buf;
      this.srcOff = off;
      return this;
    }
  }

  /**
   * A cache entry: a key's length and hash, and the label set built from it (immutable), and a
   * hint to the key that came next the last time this one was looked up.
   */
  private static final class Entry {
    final int len;
    final long hash0;
    final long hash1;
    /** The key bytes, for {@link #matchNext}, or null (a large cache, or no source bytes). */
    final byte[] bytes;
    final LabelSet labels;
    /**
     * Slot of the entry looked up right after this one, last time, or -1. A hint written and read
     * without synchronization by any thread: whatever it points to is checked like any lookup.
     */
    int next = -1;
    /**
     * The entry at {@link #next} when the hint was set, while the cache is small enough for
     * {@link #matchNext} (else null): saves that lookup the table slot's cache miss. A racy hint
     * like {@code next}; what it points to is checked byte for byte.
     */
    Entry nextEntry;

    Entry(Key key, LabelSet labels, boolean keepBytes) {
      this.len = key.len;
      this.hash0 = key.hash[0];
      this.hash1 = key.hash[1];
      this.bytes = keepBytes && key.src != null
          ? Arrays.copyOfRange(key.src, key.srcOff, key.srcOff + key.len) : null;
      this.labels = labels;
    }
  }

  /** Slots per bucket; a key may live in any slot of its two buckets. */
  static final int WAYS = 4;

  /**
   * The most entries for which {@link #matchNext} is worth it: 16,384 series at about 500 bytes
   * of entry, key and label set each are 8 MiB, within the L3 caches of current servers.
   */
  static final int BYTE_MATCH_MAX_ENTRIES = 1 << 14;

  /** Slots filled so far (never decreases: entries are replaced, not removed); racy, a hint. */
  private int filled;

  private final AtomicReferenceArray<Entry> table;
  /**
   * The slot hash ({@code hash0}) of each slot's entry, read as a hint only: plain (racy) reads
   * may see a stale value, so a hint match is always confirmed on the entry's final fields.
   */
  private final long[] hashes;
  /** Mask of a bucket number; bucket {@code b} holds slots {@code b*WAYS .. b*WAYS+WAYS-1}. */
  private final int bucketMask;

  /** A cache of {@link #DEFAULT_SLOTS} slots. */
  LabelSetCache() {
    this(DEFAULT_SLOTS);
  }

  /**
   * @param slots number of slots, a power of two ≥ {@link #WAYS}; the memory bound is
   *     {@code slots * (MAX_ENTRY_BYTES + 12)} bytes
   * @throws IllegalArgumentException if {@code slots} is not a power of two ≥ {@link #WAYS}
   */
  LabelSetCache(int slots) {
    if (slots < WAYS || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException(
          "slots must be a power of two >= " + WAYS + ", not " + slots);
    }
    this.table = new AtomicReferenceArray<>(slots);
    this.hashes = new long[slots];
    this.bucketMask = slots / WAYS - 1;
  }

  /** @return the number of slots, which is the most entries the cache holds at once */
  int slots() {
    return table.length();
  }

  /**
   * @return whether three quarters of the slots are filled (about where {@link #DEFAULT_SLOTS}
   *     still held the 100,000-series bench set, at 76 %), a racy hint for a cache that may be
   *     replaced by a larger one
   */
  boolean nearlyFull() {
    return filled >= table.length() / 4 * 3;
  }

  /**
   * @param key the key's length and hash, {@link Key#set set} from its bytes
   * @return the label set cached for the bytes that {@code key} identifies, or null
   */
  LabelSet get(Key key) {
    long h = key.hash[0];
    LabelSet hit = find(bucket1(h), key);
    if (hit == null) {
      hit = find(bucket2(h), key);
    }
    if (hit == null) {
      key.slot = -1;
    }
    return hit;
  }

  /**
   * @return whether the cache is small enough for {@link #matchNext} (at most {@link
   *     #BYTE_MATCH_MAX_ENTRIES} entries); a performance hint only
   */
  boolean matchesBytes() {
    return filled <= BYTE_MATCH_MAX_ENTRIES;
  }

  /**
   * The label set of the entry that followed the one at {@code previous} last time, if that
   * entry kept its key bytes, they are exactly the bytes at {@code buf[off..)}, and the label run
   * ends after them ({@code off + length == end}, or the next byte is not a label field tag,
   * 0x0a). Then {@code key.len} and {@code key.slot} are that entry's; the key's hash is not
   * computed, so the key must not be {@link #put} afterwards.
   *
   * @param previous the {@link Key#slot} of the previous key looked up, or -1 (then null)
   * @param buf the decompressed request
   * @param off index of the series' first byte, where its label run starts
   * @param end index just past the series' last byte
   * @param key the caller's key object; its {@code len} and {@code slot} are set on a hit only
   * @return the label set cached for the run of label fields at {@code off}, or null
   */
  LabelSet matchNext(int previous, byte[] buf, int off, int end, Key key) {
    if (previous < 0) {
      return null;
    }
    Entry prev = table.getPlain(previous);
    Entry e = prev == null ? null : prev.nextEntry;
    byte[] k = e == null ? null : e.bytes;
    if (k == null) {
      return null;
    }
    int next = prev.next;
    int runEnd = off + k.length;
    if (runEnd > end
        || (runEnd < end && buf[runEnd] == (byte) RemoteWriteDecoder.TAG_SERIES_LABEL)
        || !Arrays.equals(buf, off, runEnd, k, 0, k.length)) {
      return null;
    }
    key.len = k.length;
    key.slot = next;
    return e.labels;
  }

  private static final VarHandle ENTRY_HASH0;

  static {
    try {
      ENTRY_HASH0 = MethodHandles.lookup().findVarHandle(Entry.class, "hash0", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Predicts the slot of the key that will follow {@code previous}: the one that followed it the
   * last time (senders repeat their series in the same order every scrape), and loads that
   * entry's cache lines now, before the caller hashes its next key. Those loads are cache misses
   * with 100,000 series; issued here (the acquire reads keep the JIT from sinking them past the
   * hashing), the CPU serves them while it hashes, and {@link #get(Key, int, int)} then finds the
   * entry in the CPU caches instead of waiting for the table and the entry one after another.
   *
   * @param previous the {@link Key#slot} of the previous key, or -1
   * @param key the caller's key object, about to be {@link Key#set set} to the next key
   * @return the predicted slot, or -1 for none
   */
  int predict(int previous, Key key) {
    if (previous < 0) {
      return -1;
    }
    Entry prev = table.getPlain(previous);
    int next = prev == null ? -1 : prev.next;
    if (next < 0 || next >= table.length()) {
      return -1;
    }
    Entry e = table.getAcquire(next);
    if (e == null) {
      return -1;
    }
    key.predictedHash = (long) ENTRY_HASH0.getAcquire(e);
    return next;
  }

  /**
   * {@link #get(Key)}, trying the {@link #predict predicted} slot first; records in the entry at
   * {@code previous} that this key followed it.
   *
   * @param key the key's length and hash, {@link Key#set set} from its bytes
   * @param previous the {@link Key#slot} of the previous key looked up, or -1
   * @param predicted what {@link #predict}{@code (previous)} returned, or -1
   * @return the label set cached for the bytes that {@code key} identifies, or null
   */
  LabelSet get(Key key, int previous, int predicted) {
    LabelSet hit = null;
    if (predicted >= 0) {
      hit = match(table.getAcquire(predicted), key);
      if (hit != null) {
        key.slot = predicted;
        return hit;
      }
    }
    hit = get(key);
    if (hit != null) {
      follow(previous, key.slot);
    }
    return hit;
  }

  /**
   * Records that the key at {@code slot} followed the one at {@code previous}, for
   * {@link #predict} and {@link #matchNext}; {@link #get(Key, int, int)} does it for hits,
   * callers do it after a {@link #put}.
   *
   * @param previous the slot of the previous key, or -1 (then nothing is recorded)
   * @param slot the slot of the key that followed it, or -1
   */
  void follow(int previous, int slot) {
    if (previous >= 0) {
      Entry prev = table.getPlain(previous);
      if (prev != null && prev.next != slot) {
        prev.next = slot;
        prev.nextEntry = slot >= 0 && matchesBytes() ? table.getPlain(slot) : null;
      }
    }
  }

  private LabelSet find(int first, Key key) {
    long h = key.hash[0];
    for (int s = first; s < first + WAYS; s++) {
      if (hashes[s] == h) {
        LabelSet hit = match(table.getAcquire(s), key);
        if (hit != null) {
          key.slot = s;
          return hit;
        }
      }
    }
    return null;
  }

  /**
   * Remembers {@code labels} for the bytes that {@code key} identifies, unless they are longer
   * than {@link #MAX_KEY_BYTES} or the entry would exceed {@link #MAX_ENTRY_BYTES}.
   *
   * @param key the key's length and hash, {@link Key#set set} from its bytes
   * @param labels the canonical label set the decoder built and validated from these bytes
   * @return whether the entry was stored
   */
  boolean put(Key key, LabelSet labels) {
    key.slot = -1;
    if (key.len > MAX_KEY_BYTES || retainedBytes(labels, key.len) > MAX_ENTRY_BYTES) {
      return false;
    }
    Entry e = new Entry(key, labels, filled < BYTE_MATCH_MAX_ENTRIES);
    long h = key.hash[0];
    int slot = emptySlot(bucket1(h));
    if (slot < 0) {
      slot = emptySlot(bucket2(h));
    }
    if (slot >= 0) {
      filled++;
    } else {
      // Random, not fixed: with a fixed victim keys cycling through one bucket always miss.
      int r = ThreadLocalRandom.current().nextInt(2 * WAYS);
      slot = (r < WAYS ? bucket1(h) : bucket2(h)) + (r & (WAYS - 1));
    }
    // Entry first: a reader that sees the new hash with the old entry just misses.
    table.setRelease(slot, e);
    hashes[slot] = h;
    key.slot = slot;
    return true;
  }

  /** @return the first empty slot of the bucket starting at {@code first}, or -1 */
  private int emptySlot(int first) {
    for (int s = first; s < first + WAYS; s++) {
      if (table.getAcquire(s) == null) {
        return s;
      }
    }
    return -1;
  }

  /**
   * A conservative estimate of the heap an entry retains, in bytes, for 64-bit JVMs with
   * compressed references (12-byte object headers, 16-byte array headers, 8-byte alignment):
   * the entry, its copy of the key bytes, the LabelSet with its two arrays, and each label
   * string as if it were shared with nothing else (1 byte per char when all chars are Latin-1,
   * else 2, as compact strings store them).
   *
   * @param labels the label set the entry would hold
   * @param keyBytes the length of its key in bytes
   * @return the estimate in bytes
   */
  static long retainedBytes(LabelSet labels, int keyBytes) {
    // Entry: header, len, hash0, hash1, bytes, labels, next, nextEntry; then the key copy.
    long bytes = align(12 + 4 + 8 + 8 + 4 + 4 + 4 + 4) + align(16L + keyBytes);
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

  /** @return the first slot of the key's first bucket */
  private int bucket1(long hash) {
    return ((int) hash & bucketMask) * WAYS;
  }

  /** @return the first slot of the key's second bucket */
  private int bucket2(long hash) {
    return ((int) (hash >>> 32) & bucketMask) * WAYS;
  }

  private static LabelSet match(Entry e, Key key) {
    if (e != null && e.hash0 == key.hash[0] && e.hash1 == key.hash[1] && e.len == key.len) {
      return e.labels;
    }
    return null;
  }

  /**
   * Length in bytes of the run of label fields (tag byte 0x0a, length, body) that starts the
   * TimeSeries at {@code start}. The run stops before anything else, including a label field
   * whose length is not a well-formed varint of at most 4 bytes or runs past {@code end}: such
   * bytes are left to the full decode, which fails on them as it always did.
   *
   * @param b the decompressed request
   * @param start index of the TimeSeries' first byte
   * @param end index just past the TimeSeries' last byte
   * @return the run's length in bytes, 0 when the TimeSeries does not start with a label field
   */
  static int labelRunLength(byte[] b, int start, int end) {
    int p = start;
    while (p < end && b[p] == (byte) RemoteWriteDecoder.TAG_SERIES_LABEL) {
      int q = p + 1;
      int len = 0;
      for (int shift = 0; ; shift += 7) {
        if (q >= end || shift > 21) {
          return p - start;
        }
        int c = b[q++];
        len |= (c & 0x7f) << shift;
        if (c >= 0) {
          break;
        }
      }
      if (len > end - q) {
        return p - start;
      }
      p = q + len;
    }
    return p - start;
  }
}
