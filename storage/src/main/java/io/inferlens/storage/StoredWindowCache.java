package io.inferlens.storage;

import io.inferlens.storage.head.SampleRun;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per series, the decoded samples of the one chunk window the append path last checked for
 * stored samples, kept across append calls. A sender replaying hours of its write-ahead log after
 * an outage (Prometheus resends from its WAL) sends about one sample per series per request, each
 * one already stored: without this cache every such sample decoded its whole 2-hour window
 * (~480 samples at a 15 s interval), about 6 µs per sample (docs/BENCHMARKS.md, issue 20).
 *
 * <p>Validity: an entry holds the series' {@link SeriesRef#chunkVersion} and the store's {@link
 * StoreCore#chunkEpoch} read before its chunks were read; it is used only while both are
 * unchanged. A head flush raises the version of each series it wrote chunks for after writing
 * them and before dropping the samples from the head; finalization and retention raise the epoch.
 * The caller checks the head first and reads the version and epoch after that check, so a sample
 * a concurrent flush moved from the head to the chunks is either still found in the head or the
 * entry is stale (the same order the per-call cache this replaces relied on).
 *
 * <p>Bound: at most {@value #MAX_SAMPLES} samples in all entries, 12 bytes each (an int offset
 * from the window start and the raw value bits), so at most 12 MiB of arrays plus about 120
 * bytes per entry; enough for the windows of ~2,180 series at a 15 s interval at once. When full,
 * an entry unused for {@value #IDLE_EVICT_MS} ms is evicted for a new one; otherwise the new
 * window is not kept (its lookup decodes as before). Not evicting busy entries keeps a replay of
 * more series than fit partly served (about the bound's share of its series) instead of every
 * series evicting another one's window before its next sample arrives.
 *
 * <p>Thread safety: none; used only under the store's append lock.
 */
final class StoredWindowCache {

  /** Most samples held in all entries together. */
  static final int MAX_SAMPLES = 1 << 20;

  /** An entry unused this long (clock ms) may be evicted for a new one when the cache is full. */
  static final long IDLE_EVICT_MS = 60_000;

  /** The decoded samples of one series' chunk window, ascending, without duplicates. */
  static final class Entry {
    final long windowStartMs;
    final long version;
    final long epoch;
    /** Timestamps as ms after {@link #windowStartMs}; a window is 7,200,000 ms, so they fit. */
    final int[] offsets;
    final long[] bits;
    long lastUseMs;

    private Entry(long windowStartMs, long version, long epoch, int[] offsets, long[] bits) {
      this.windowStartMs = windowStartMs;
      this.version = version;
      this.epoch = epoch;
      this.offsets = offsets;
      this.bits = bits;
    }

    /** @return the raw bits stored at {@code ts} (in this window), or null */
    Long bitsAt(long ts) {
      int i = Arrays.binarySearch(offsets, (int) (ts - windowStartMs));
      return i >= 0 ? bits[i] : null;
    }
  }

  /** By series, least recently used first. */
  private final LinkedHashMap<SeriesRef, Entry> entries = new LinkedHashMap<>(256, 0.75f, true);
  private long samples;
  private long hits;
  private long misses;

  /**
   * @return the series' entry for the window starting at {@code windowStartMs} if it is still
   *     valid for {@code version} and {@code epoch}, else null (a stale entry is dropped)
   */
  Entry get(SeriesRef ref, long windowStartMs, long version, long epoch, long nowMs) {
    Entry e = entries.get(ref);
    if (e == null) {
      misses++;
      return null;
    }
    if (e.windowStartMs != windowStartMs || e.version != version || e.epoch != epoch) {
      remove(ref);
      misses++;
      return null;
    }
    e.lastUseMs = nowMs;
    hits++;
    return e;
  }

  /**
   * Makes an entry of a window's samples (ascending, deduplicated, all in the window) and keeps it
   * if the bound allows.
   *
   * @return the entry, kept or not
   */
  Entry put(SeriesRef ref, long windowStartMs, long version, long epoch, SampleRun run,
      long nowMs) {
    int n = run.size();
    int[] offsets = new int[n];
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) {
      offsets[i] = (int) (run.timestampMs(i) - windowStartMs);
      bits[i] = run.valueBits(i);
    }
    Entry e = new Entry(windowStartMs, version, epoch, offsets, bits);
    e.lastUseMs = nowMs;
    remove(ref);
    if (makeRoom(n, nowMs)) {
      entries.put(ref, e);
      samples += n;
    }
    return e;
  }

  /** Evicts idle entries, eldest first, until {@code n} more samples fit. */
  private boolean makeRoom(int n, long nowMs) {
    if (n > MAX_SAMPLES) {
      return false;
    }
    Iterator<Map.Entry<SeriesRef, Entry>> it = entries.entrySet().iterator();
    while (samples + n > MAX_SAMPLES && it.hasNext()) {
      Entry eldest = it.next().getValue();
      if (nowMs - eldest.lastUseMs < IDLE_EVICT_MS) {
        return false; // the rest were used even more recently
      }
      samples -= eldest.offsets.length;
      it.remove();
    }
    return samples + n <= MAX_SAMPLES;
  }

  private void remove(SeriesRef ref) {
    Entry old = entries.remove(ref);
    if (old != null) {
      samples -= old.offsets.length;
    }
  }

  /** Drops every entry (the store closes). */
  void clear() {
    entries.clear();
    samples = 0;
  }

  /** @return samples held in all entries */
  long samples() {
    return samples;
  }

  /** @return entries held */
  int size() {
    return entries.size();
  }

  /** @return lookups answered from an entry since the store opened */
  long hits() {
    return hits;
  }

  /** @return lookups that had to read chunks since the store opened */
  long misses() {
    return misses;
  }
}
