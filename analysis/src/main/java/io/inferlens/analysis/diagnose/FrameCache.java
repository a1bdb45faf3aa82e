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
 * <p>A {@link #partition(String)} shares this cache's budget under a namespace of its own: the
 * engines of several tenants keep their chunks apart (the same target id in two tenants is two
 * entries) and an append to one tenant's store invalidates only that tenant's chunks, while the
 * least recently used chunk of any tenant goes first when the shared budget is exceeded.
 *
 * <p>Thread safe (synchronized on the root cache; entries are immutable once put).
 */
public final class FrameCache {

  /** One cached chunk: the indicators evaluated over {@code steps} steps from {@code startMs}. */
  record Chunk(long startMs, long stepMs, int steps, Map<Indicator, double[]> values) {
    long bytes() {
      return 64L + (long) values.size() * (16L + 8L * steps);
    }
  }

  private record Key(String namespace, String target, long stepMs, long startMs) {}

  private final long budgetBytes;
  private final long dependencyMs;
  /** The cache that holds the chunks: this one, or the one a view or partition was made of. */
  private final FrameCache root;
  /** The partition's namespace, "" for the root's own chunks. */
  private final String namespace;
  /** A read-only view keeps nothing it is given. */
  private final boolean readOnly;
  private final LinkedHashMap<Key, Chunk> chunks;
  private long bytes;
  private long hits;
  private long misses;

  /**
   * @param budgetBytes most bytes of cached values, &gt; 0 (each value is 8 bytes)
   * @param dependencyMs how far before a chunk's first step its values depend on samples, in
   *     milliseconds (the engine: rate window or lookback, whichever is longer, plus one 5-minute
   *     rollup interval for its history chunks)
   * @throws IllegalArgumentException if {@code budgetBytes} &le; 0
   */
  public FrameCache(long budgetBytes, long dependencyMs) {
    if (budgetBytes <= 0) {
      throw new IllegalArgumentException("budgetBytes must be > 0, got " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
    this.dependencyMs = dependencyMs;
    this.root = this;
    this.namespace = "";
    this.readOnly = false;
    this.chunks = new LinkedHashMap<>(64, 0.75f, true);
  }

  private FrameCache(FrameCache root, String namespace, boolean readOnly) {
    this.budgetBytes = root.budgetBytes;
    this.dependencyMs = root.dependencyMs;
    this.root = root;
    this.namespace = namespace;
    this.readOnly = readOnly;
    this.chunks = null;
  }

  /**
   * @return a view that answers lookups from this cache (counted in its hits and misses) and
   *     drops what is put into it; invalidation goes to this cache
   */
  public FrameCache readOnlyView() {
    return readOnly ? this : new FrameCache(root, namespace, true);
  }

  /**
   * @param name the partition's namespace, e.g. a tenant id; not null
   * @return a cache that shares this cache's budget, hits and misses, whose chunks no other
   *     partition sees and whose {@link #invalidate} drops only its own
   * @throws IllegalStateException if this is already a partition or a read-only view
   */
  public FrameCache partition(String name) {
    java.util.Objects.requireNonNull(name, "name");
    if (root != this) {
      throw new IllegalStateException("a partition is made of the root cache");
    }
    return new FrameCache(this, name, false);
  }

  Chunk get(String target, long stepMs, long startMs) {
    synchronized (root) {
      Chunk c = root.chunks.get(new Key(namespace, target, stepMs, startMs));
      if (c == null) {
        root.misses++;
      } else {
        root.hits++;
      }
      return c;
    }
  }

  void put(String target, Chunk chunk) {
    if (readOnly) {
      return;
    }
    synchronized (root) {
      Chunk old = root.chunks.put(new Key(namespace, target, chunk.stepMs(), chunk.startMs()),
          chunk);
      if (old != null) {
        root.bytes -= old.bytes();
      }
      root.bytes += chunk.bytes();
      Iterator<Map.Entry<Key, Chunk>> it = root.chunks.entrySet().iterator();
      while (root.bytes > budgetBytes && it.hasNext()) {
        Map.Entry<Key, Chunk> e = it.next();
        root.bytes -= e.getValue().bytes();
        it.remove();
      }
    }
  }

  /**
   * Drops every chunk of this cache's namespace whose values depend on samples in
   * {@code [fromMs, toMs]}; the root cache drops any namespace's.
   *
   * @param fromMs oldest appended sample, milliseconds
   * @param toMs newest appended sample, milliseconds
   */
  public void invalidate(long fromMs, long toMs) {
    boolean all = root == this;
    synchronized (root) {
      Iterator<Map.Entry<Key, Chunk>> it = root.chunks.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<Key, Chunk> e = it.next();
        if (!all && !e.getKey().namespace().equals(namespace)) {
          continue;
        }
        Chunk c = e.getValue();
        long dependsFrom = c.startMs() - dependencyMs;
        long dependsTo = c.startMs() + (c.steps() - 1) * c.stepMs();
        if (fromMs <= dependsTo && toMs >= dependsFrom) {
          root.bytes -= c.bytes();
          it.remove();
        }
      }
    }
  }

  /** @return bytes of cached values, every partition's */
  public long bytes() {
    synchronized (root) {
      return root.bytes;
    }
  }

  /** @return lookups answered from the cache since creation, every partition's */
  public long hits() {
    synchronized (root) {
      return root.hits;
    }
  }

  /** @return lookups that had to evaluate since creation, every partition's */
  public long misses() {
    synchronized (root) {
      return root.misses;
    }
  }
}
