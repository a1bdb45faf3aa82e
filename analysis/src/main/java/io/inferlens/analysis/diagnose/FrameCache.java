package io.inferlens.analysis.diagnose;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Evaluated indicator chunks of targets, kept so that long ranges (30 days) are not re-read and
 * re-evaluated from raw samples on every request, nor the baseline history re-read from rollups
 * ({@link RollupHistory}, whose chunks hold 5-minute points under their own target key). Keys
 * are (target fingerprint, step, chunk start); a chunk is dropped when samples are appended
 * inside the time it depends on (its range widened by the dependency margin given at
 * construction), which covers backfill, and the least recently used chunks go when the byte
 * budget is exceeded.
 *
 * <p>A {@link #readOnlyView()} answers from the same chunks but keeps nothing it evaluated: the
 * always-on evaluator reads through one, so that its first evaluation of every target (a day of
 * raw steps and 14 days of rollup history each) does not fill the budget with chunks no reader
 * asks for again (500 targets filled all 256 MiB, and the heap grew to twice that:
 * docs/BENCHMARKS.md, issue 20, "The evaluator and the chunk cache").
 *
 * <p>Thread safe (synchronized; entries are immutable once put).
 */
public final class FrameCache {

  /** One cached chunk: the indicators evaluated over {@code steps} steps from {@code startMs}. */
  record Chunk(long startMs, long stepMs, int steps, Map<Indicator, double[]> values) {
    long bytes() {
      return 64L + (long) values.size() * (16L + 8L * steps);
    }
  }

  private record Key(String target, long stepMs, long startMs) {}

  private final long budgetBytes;
  private final long dependencyMs;
  /** The cache a read-only view reads; null for a cache of its own. */
  private final FrameCache shared;
  private final LinkedHashMap<Key, Chunk> chunks = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;
  private long hits;
  private long misses;

  /**
   * @param budgetBytes most bytes of cached values, &gt; 0 (each value is 8 bytes)
   * @param dependencyMs how far before a chunk's first step its values depend on samples, in
   *     milliseconds (the engine: rate window or lookback, whichever is longer, plus one 5-minute
   *     rollup interval for its history chunks)
   */
  public FrameCache(long budgetBytes, long dependencyMs) {
    if (budgetBytes <= 0) {
      throw new IllegalArgumentException("budgetBytes must be > 0, got " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
    this.dependencyMs = dependencyMs;
    this.shared = null;
  }

  private FrameCache(FrameCache shared) {
    this.budgetBytes = shared.budgetBytes;
    this.dependencyMs = shared.dependencyMs;
    this.shared = shared;
  }

  /**
   * @return a view that answers lookups from this cache (counted in its hits and misses) and
   *     drops what is put into it; invalidation goes to this cache
   */
  public FrameCache readOnlyView() {
    return shared != null ? this : new FrameCache(this);
  }

  synchronized Chunk get(String target, long stepMs, long startMs) {
    if (shared != null) {
      return shared.get(target, stepMs, startMs);
    }
    Chunk c = chunks.get(new Key(target, stepMs, startMs));
    if (c == null) {
      misses++;
    } else {
      hits++;
    }
    return c;
  }

  synchronized void put(String target, Chunk chunk) {
    if (shared != null) {
      return;
    }
    Chunk old = chunks.put(new Key(target, chunk.stepMs(), chunk.startMs()), chunk);
    if (old != null) {
      bytes -= old.bytes();
    }
    bytes += chunk.bytes();
    Iterator<Map.Entry<Key, Chunk>> it = chunks.entrySet().iterator();
    while (bytes > budgetBytes && it.hasNext()) {
      Map.Entry<Key, Chunk> e = it.next();
      bytes -= e.getValue().bytes();
      it.remove();
    }
  }

  /**
   * Drops every chunk whose values depend on samples in {@code [fromMs, toMs]}.
   *
   * @param fromMs oldest appended sample, milliseconds
   * @param toMs newest appended sample, milliseconds
   */
  public synchronized void invalidate(long fromMs, long toMs) {
    if (shared != null) {
      shared.invalidate(fromMs, toMs);
      return;
    }
    Iterator<Map.Entry<Key, Chunk>> it = chunks.entrySet().iterator();
    while (it.hasNext()) {
      Chunk c = it.next().getValue();
      long dependsFrom = c.startMs() - dependencyMs;
      long dependsTo = c.startMs() + (c.steps() - 1) * c.stepMs();
      if (fromMs <= dependsTo && toMs >= dependsFrom) {
        bytes -= c.bytes();
        it.remove();
      }
    }
  }

  /** @return bytes of cached values */
  public synchronized long bytes() {
    return shared != null ? shared.bytes() : bytes;
  }

  /** @return lookups answered from the cache since creation */
  public synchronized long hits() {
    return shared != null ? shared.hits() : hits;
  }

  /** @return lookups that had to evaluate since creation */
  public synchronized long misses() {
    return shared != null ? shared.misses() : misses;
  }
}
