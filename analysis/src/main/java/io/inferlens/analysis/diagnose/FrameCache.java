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
  }

  synchronized Chunk get(String target, long stepMs, long startMs) {
    Chunk c = chunks.get(new Key(target, stepMs, startMs));
    if (c == null) {
      misses++;
    } else {
      hits++;
    }
    return c;
  }

  synchronized void put(String target, Chunk chunk) {
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
    return bytes;
  }

  /** @return lookups answered from the cache since creation */
  public synchronized long hits() {
    return hits;
  }

  /** @return lookups that had to evaluate since creation */
  public synchronized long misses() {
    return misses;
  }
}
