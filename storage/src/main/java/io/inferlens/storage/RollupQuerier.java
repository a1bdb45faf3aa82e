package io.inferlens.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The rollup read side: stored 5-minute and 1-hour blocks of finalized windows, plus intervals
 * computed from raw samples ({@link ChunkQuerier}) for windows not finalized yet. The contract is
 * {@link Querier#selectRollups(List, long, long, Resolution, java.util.Set)}.
 */
final class RollupQuerier {

  private final StoreCore core;
  private final RocksHandles rocks;
  private final SeriesIndex index;
  private final ReentrantReadWriteLock lifecycle;
  private final ChunkQuerier chunks;

  RollupQuerier(StoreCore core, ChunkQuerier chunks) {
    this.core = core;
    this.rocks = core.rocks;
    this.index = core.index;
    this.lifecycle = core.locks.lifecycle;
    this.chunks = chunks;
  }

  /**
   * Reads rollups of matching series: the stored intervals of finalized windows, and intervals
   * computed on the fly from raw samples for the windows after the newest finalized one (the
   * head and recent chunks). Cost grows with the number of intervals in range, not with the raw
   * samples they summarize.
   *
   * @param matchers as for {@link #select}
   * @param startMs the first interval is the one holding {@code startMs}, milliseconds
   * @param endMs intervals starting after this are left out, milliseconds
   * @param resolution interval length
   * @return matching series with at least one interval in range, label-set order, fresh objects
   * @throws IllegalArgumentException as for {@link #select}
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public List<RollupSeries> selectRollups(
      List<Matcher> matchers, long startMsIn, long endMsIn, Resolution resolution)
      throws StorageException {
    return selectRollups(matchers, startMsIn, endMsIn, resolution,
        java.util.EnumSet.allOf(RollupColumn.class));
  }

  /**
   * {@link #selectRollups(List, long, long, Resolution)} decoding only some columns of the stored
   * rollups: the others are NaN in the result (counts and starts are always there), which saves
   * most of the decoding when a reader needs, say, only {@code increase}, {@code first} and
   * {@code last} of histogram buckets. Intervals computed from raw samples have every column.
   *
   * @param matchers as for {@link #select}
   * @param startMsIn the first interval is the one holding this time, milliseconds
   * @param endMsIn intervals starting after this are left out, milliseconds
   * @param resolution interval length
   * @param columns the columns needed
   * @return as the overload without columns
   * @throws IllegalArgumentException as for {@link #select}
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public List<RollupSeries> selectRollups(List<Matcher> matchers, long startMsIn, long endMsIn,
      Resolution resolution, java.util.Set<RollupColumn> columns) throws StorageException {
    int mask = 1;
    for (RollupColumn c : columns) {
      mask |= 1 << c.ordinal();
    }
    long startMs = Math.max(startMsIn, -TimeSeriesStore.MAX_ABS_TIMESTAMP_MS);
    long endMs = Math.min(endMsIn, TimeSeriesStore.MAX_ABS_TIMESTAMP_MS);
    long iv = resolution.intervalMs();
    long from = Math.floorDiv(startMs, iv) * iv;
    List<RollupSeries> out = new ArrayList<>();
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      if (endMs < startMs) {
        return out;
      }
      List<SeriesRef> refs = index.resolve(matchers);
      RollupBlock.Builder[] builders = new RollupBlock.Builder[refs.size()];
      long[] coveredUntil = new long[refs.size()];
      java.util.Arrays.fill(coveredUntil, Long.MIN_VALUE);
      PartitionKind kind = resolution.partitions;
      // 5 m blocks are keyed by window start, 1 h blocks by day start.
      long blockMs =
          resolution == Resolution.FIVE_MINUTES ? TimeSeriesStore.WINDOW_MS : 86_400_000L;
      rocks.partitionLock.readLock().lock();
      try {
        for (ColumnFamilyHandle cf :
            rocks.partitions(kind, Math.floorDiv(from, blockMs) * blockMs, endMs).values()) {
          try (RocksIterator it = rocks.db.newIterator(cf)) {
            for (int i = 0; i < refs.size(); i++) {
              long id = refs.get(i).id;
              byte[] upper = Keys.dataKey(id, endMs + 1);
              for (it.seek(Keys.dataKey(id, Math.floorDiv(from, blockMs) * blockMs));
                  it.isValid(); it.next()) {
                if (java.util.Arrays.compareUnsigned(it.key(), upper) >= 0) {
                  break;
                }
                RollupBlock b = RollupBlock.decode(it.value(), mask);
                if (builders[i] == null) {
                  builders[i] = new RollupBlock.Builder();
                }
                b.appendTo(builders[i], from, endMs);
                for (int k = 0; k < b.size; k++) {
                  coveredUntil[i] = Math.max(coveredUntil[i],
                      StoreCore.windowStart(b.starts[k]) + TimeSeriesStore.WINDOW_MS);
                }
              }
              it.status();
            }
          }
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      // Recent windows have no stored rollup yet, and a window with samples still in the head
      // (a late write into a finalized window) has a stale one: compute those from raw samples;
      // the builder keeps the later-added interval of equal starts, so these replace stored ones.
      for (int i = 0; i < refs.size(); i++) {
        SeriesRef ref = refs.get(i);
        long rawFrom = Math.max(from, coveredUntil[i]);
        long headMin = Long.MAX_VALUE;
        synchronized (ref) {
          if (ref.head != null) {
            headMin = ref.head.minTimestampMs();
          }
        }
        if (headMin != Long.MAX_VALUE) {
          rawFrom = Math.max(from, Math.min(rawFrom, StoreCore.windowStart(headMin)));
        }
        if (rawFrom > endMs || !ref.mayHaveSamples(rawFrom, endMs)) {
          continue;
        }
        List<Series> raw = new ArrayList<>();
        chunks.scanRefs(List.of(ref), rawFrom, endMs, (r, run) -> raw.add(
            new Series(r.labels, run.timestamps(), run.values())));
        if (raw.isEmpty()) {
          continue;
        }
        Series s = raw.get(0);
        RollupBlock b = RollupBlock.compute(s.timestampsMs(), s.valueBits(), s.size(), iv);
        if (builders[i] == null) {
          builders[i] = new RollupBlock.Builder();
        }
        b.appendTo(builders[i], from, endMs);
      }
      for (int i = 0; i < refs.size(); i++) {
        if (builders[i] != null && builders[i].size() > 0) {
          out.add(builders[i].build(refs.get(i).labels, resolution));
        }
      }
    } catch (RocksDBException e) {
      throw new StorageException("reading " + resolution + " rollups for " + matchers + " in ["
          + startMs + ", " + endMs + "] ms failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
    out.sort((a, b) -> LabelOrder.compare(a.labels(), b.labels()));
    return out;
  }
}
