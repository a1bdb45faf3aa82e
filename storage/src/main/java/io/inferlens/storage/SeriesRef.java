package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
/**
 * One known series in memory: its id, labels, head samples and time bounds.
 *
 * <p>Thread safety: {@code id} and {@code labels} are immutable. {@link #head} is read, written
 * and replaced only under this object's monitor. {@link
 * #maxTimestampMs} and {@link #maxKnown} are used only under the store's append lock. The bounds
 * {@link #minBoundMs}/{@link #maxBoundMs} are volatile and only ever widen while the store is open.
 */
final class SeriesRef {

  /** Marks a series with no stored sample. */
  static final long NO_SAMPLES = Long.MIN_VALUE;

  final long id;
  final LabelSet labels;

  /**
   * An upper bound of the stored timestamps in milliseconds ({@link #NO_SAMPLES} if none), valid
   * when {@link #maxKnown}: a sample with a larger timestamp cannot collide with a stored one.
   */
  long maxTimestampMs;

  /**
   * Whether {@link #maxTimestampMs} covers the chunks too. False after a restart until the first
   * append of the series reads its newest chunk window, which is cheaper than reading every
   * series' newest chunk at open.
   */
  boolean maxKnown;

  /**
   * The head samples, those not yet in chunks, including those of the head flush in progress
   * until it wrote them; null for a series idle since the last flush.
   */
  HeadBuffer head;

  /**
   * Conservative time bounds of the raw samples, milliseconds: every raw sample lies in
   * {@code [minBoundMs, maxBoundMs]} (day granularity after a restart). Reads skip a series whose
   * bounds miss the range without touching RocksDB, so series that churned away days ago cost a
   * comparison, not a seek.
   */
  volatile long minBoundMs = Long.MAX_VALUE;

  /** See {@link #minBoundMs}. */
  volatile long maxBoundMs = Long.MIN_VALUE;

  /**
   * This series' samples in the append call running now, null outside one; only read and written
   * under the store's append lock.
   */
  HeadAppender.Pending pending;

  /**
   * Whether the series counts as active for {@link SeriesLimits}: it was appended a sample within
   * the last {@link SeriesLimits#ACTIVE_WINDOW_MS}. Written under the store's append lock by
   * {@link ActiveSeries}; volatile so the status scan ({@link SeriesIndex#visitActive}) reads it
   * without that lock.
   */
  volatile boolean active;

  /** Clock ms of the last append that stored a sample of this series; under the append lock. */
  long lastAppendMs = Long.MIN_VALUE;

  /** The index this ref was added to; null before. */
  volatile SeriesIndex owner;

  /**
   * Every chunk of this series in RocksDB lies before this, milliseconds: {@link #NO_SAMPLES} for
   * a series created since open, the end of the newest chunk partition for one loaded at open.
   * Raised by head flushes, read and written only under the store's flush lock; a head flush
   * writes a window final only if it starts at or after this (no stored chunk to merge).
   */
  long chunksEndMs = NO_SAMPLES;

  /**
   * Raised by a head flush after it wrote chunks of this series and before it drops their samples
   * from the head: a chunk window decoded under an older version may miss samples
   * ({@link StoredWindowCache}). Written by the flushing thread under the flush lock.
   */
  volatile long chunkVersion;

  /** UTC day (epoch day) whose presence marker the flush thread last wrote, to write it once. */
  long presenceDay = Long.MIN_VALUE;

  SeriesRef(long id, LabelSet labels, long maxTimestampMs) {
    this.id = id;
    this.labels = labels;
    this.maxTimestampMs = maxTimestampMs;
  }

  /** Widens the time bounds to include {@code [minMs, maxMs]}. */
  void widenBounds(long minMs, long maxMs) {
    if (minMs < minBoundMs) {
      minBoundMs = minMs;
    }
    if (maxMs > maxBoundMs) {
      maxBoundMs = maxMs;
    }
  }

  /** @return whether the bounds overlap {@code [startMs, endMs]} */
  boolean mayHaveSamples(long startMs, long endMs) {
    return minBoundMs <= endMs && maxBoundMs >= startMs;
  }

  @Override
  public String toString() {
    return "series " + id + " " + labels;
  }
}
