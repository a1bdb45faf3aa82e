package io.inferlens.storage;

import io.inferlens.storage.head.SampleRun;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The raw-sample read side ({@code querier.go} in Prometheus tsdb): resolves matchers in the
 * index, reads the head then the chunk partitions of the range. The contract is
 * {@link Querier}'s; this class holds the lifecycle read lock and the partition read lock while
 * it reads, and each series' monitor only while it copies that series' head.
 */
final class ChunkQuerier {

  private final StoreCore core;
  private final RocksHandles rocks;
  private final SeriesIndex index;
  private final ReentrantReadWriteLock lifecycle;

  ChunkQuerier(StoreCore core) {
    this.core = core;
    this.rocks = core.rocks;
    this.index = core.index;
    this.lifecycle = core.locks.lifecycle;
  }

  /**
   * Reads the samples of matching series.
   *
   * @param matchers PromQL matchers, all must hold; empty selects every series
   * @param startMs first timestamp to include, in milliseconds
   * @param endMs last timestamp to include, in milliseconds; {@code endMs < startMs} gives an empty
   *     result
   * @return matching series with at least one sample in {@code [startMs, endMs]}, in label-set
   *     order (names then values, UTF-8), samples ascending; fresh objects the caller owns
   * @throws IllegalArgumentException if the list is not empty and every matcher matches the empty
   *     string
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public List<Series> select(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    List<Series> out = new ArrayList<>();
    scan(matchers, startMs, endMs, false, (ref, run) -> out.add(
        new Series(ref.labels, run.timestamps(), run.values())));
    out.sort((a, b) -> LabelOrder.compare(a.labels(), b.labels()));
    return out;
  }

  /**
   * Lists matching series that have a sample in range, reading at most one chunk per series.
   *
   * @param matchers as for {@link #select}
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   * @return label sets in label-set order, fresh list
   * @throws IllegalArgumentException as for {@link #select}
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public List<LabelSet> series(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    List<LabelSet> out = new ArrayList<>();
    scan(matchers, startMs, endMs, true, (ref, run) -> out.add(ref.labels));
    out.sort(LabelOrder::compare);
    return out;
  }

  /**
   * Lists the label names of matching series that have a sample in range.
   *
   * @param matchers as for {@link #select}; empty means all series
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   * @return distinct names in UTF-8 order, fresh list
   * @throws IllegalArgumentException as for {@link #select}
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public List<String> labelNames(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    TreeSet<String> names = new TreeSet<>(LabelSet.UTF8_ORDER);
    scan(matchers, startMs, endMs, true, (ref, run) -> names.addAll(ref.labels.toMap().keySet()));
    return new ArrayList<>(names);
  }

  /**
   * Lists the values of one label among matching series that have a sample in range.
   *
   * @param name the label name
   * @param matchers as for {@link #select}; empty means all series
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   * @return distinct non-empty values in UTF-8 order, fresh list
   * @throws IllegalArgumentException as for {@link #select}
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public List<String> labelValues(String name, List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    TreeSet<String> values = new TreeSet<>(LabelSet.UTF8_ORDER);
    scan(matchers, startMs, endMs, true, (ref, run) -> {
      String v = ref.labels.get(name);
      if (!v.isEmpty()) {
        values.add(v);
      }
    });
    return new ArrayList<>(values);
  }

  /** Receives one series with samples in range. */
  interface RunVisitor {
    void visit(SeriesRef ref, SampleRun run);
  }

  /**
   * Resolves the matchers, skips series whose time bounds miss the range, and visits every
   * remaining series with a sample in {@code [startMs, endMs]}: head first, then the chunk
   * partitions of the range, oldest first.
   */
  private void scan(List<Matcher> matchers, long startMsIn, long endMsIn, boolean existsOnly,
      RunVisitor visitor) throws StorageException {
    long startMs = Math.max(startMsIn, -TimeSeriesStore.MAX_ABS_TIMESTAMP_MS);
    long endMs = Math.min(endMsIn, TimeSeriesStore.MAX_ABS_TIMESTAMP_MS);
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      if (endMs < startMs) {
        return;
      }
      List<SeriesRef> refs = new ArrayList<>();
      for (SeriesRef ref : index.resolve(matchers)) {
        if (ref.mayHaveSamples(startMs, endMs)) {
          refs.add(ref);
        }
      }
      if (refs.isEmpty()) {
        return;
      }
      readBatch(refs, startMs, endMs, existsOnly, 16, null, visitor);
    } catch (RocksDBException e) {
      throw new StorageException("reading samples for " + matchers + " in [" + startMs + ", "
          + endMs + "] ms failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Reads the runs of {@code refs} (head first, then each chunk partition of the range with one
   * iterator reused across the series) and visits those with samples. Caller holds the
   * lifecycle read lock. {@code capacity} sizes each new run (a good guess saves the copies of
   * growing); with a {@code pool}, the runs of an earlier batch are cleared and reused, and new
   * ones are added to it.
   */
  private void readBatch(List<SeriesRef> refs, long startMs, long endMs, boolean existsOnly,
      int capacity, List<SampleRun> pool, RunVisitor visitor) throws RocksDBException {
    SampleRun[] runs = new SampleRun[refs.size()];
    boolean[] found = new boolean[refs.size()];
    for (int i = 0; i < refs.size(); i++) {
      SeriesRef ref = refs.get(i);
      SampleRun run;
      if (pool != null && i < pool.size()) {
        run = pool.get(i); // the previous batch's arrays, already grown
        run.clear();
      } else {
        run = new SampleRun(capacity);
        if (pool != null) {
          pool.add(run);
        }
      }
      synchronized (ref) {
        if (ref.head != null) {
          ref.head.copyRange(startMs, endMs, run);
        }
      }
      runs[i] = run;
      found[i] = run.size() > 0;
    }
    rocks.partitionLock.readLock().lock();
    try {
      for (ColumnFamilyHandle cf :
          rocks.partitions(PartitionKind.CHUNKS, StoreCore.windowStart(startMs), endMs)
              .values()) {
        try (RocksIterator it = rocks.db.newIterator(cf)) {
          for (int i = 0; i < refs.size(); i++) {
            if (existsOnly && found[i]) {
              continue;
            }
            ChunkReads.read(it, refs.get(i).id, startMs, endMs, runs[i], existsOnly, null);
            found[i] = runs[i].size() > 0;
          }
        }
      }
    } finally {
      rocks.partitionLock.readLock().unlock();
    }
    for (int i = 0; i < refs.size(); i++) {
      if (runs[i].size() > 0) {
        runs[i].sortAndDedupe();
        visitor.visit(refs.get(i), runs[i]);
      }
    }
  }

  /**
   * Samples per batch of {@link #selectEach}, about 4 MiB of arrays: what one reader holds at
   * once, small enough that a few concurrent queries stay within a young generation's reach.
   */
  static final int SELECT_BATCH_SAMPLES = 1 << 18;

  /** Series in the first batch of {@link #selectEach}, before their sizes are known. */
  static final int SELECT_FIRST_BATCH = 8;

  /**
   * {@link #select}, handing the series to {@code visitor} one at a time, in label-set order, in
   * batches of about {@value #SELECT_BATCH_SAMPLES} samples (the first batch
   * {@value #SELECT_FIRST_BATCH} series), so a reader holds the samples of one batch at a time
   * instead of all of them. The store's locks are held while a batch is read, not while
   * the visitor runs.
   *
   * @param matchers as for {@link #select}
   * @param startMs first timestamp to include, milliseconds
   * @param endMs last timestamp to include, milliseconds
   * @param visitor receives each series with a sample in range: arrays possibly longer than the
   *     count, valid only while {@code visit} runs (they are reused for later series)
   * @throws IllegalArgumentException as for {@link #select}
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void selectEach(List<Matcher> matchers, long startMs, long endMs,
      Querier.SeriesVisitor visitor) throws StorageException {
    long s0 = Math.max(startMs, -TimeSeriesStore.MAX_ABS_TIMESTAMP_MS);
    long e0 = Math.min(endMs, TimeSeriesStore.MAX_ABS_TIMESTAMP_MS);
    List<SeriesRef> refs = new ArrayList<>();
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      if (e0 < s0) {
        return;
      }
      for (SeriesRef ref : index.resolve(matchers)) {
        if (ref.mayHaveSamples(s0, e0)) {
          refs.add(ref);
        }
      }
    } finally {
      lifecycle.readLock().unlock();
    }
    refs.sort((a, b) -> LabelOrder.compare(a.labels, b.labels));
    // The series of one selector tend to hold alike sample counts: size a batch's runs by the
    // largest of the batch before, so runs rarely grow.
    int[] capacity = {16};
    int batchSize = SELECT_FIRST_BATCH;
    List<SampleRun> pool = new ArrayList<>(); // arrays reused batch after batch
    for (int from = 0; from < refs.size(); from += batchSize) {
      if (from > 0) {
        batchSize = Math.max(1, Math.min(1024, SELECT_BATCH_SAMPLES / capacity[0]));
      }
      List<SeriesRef> batch = refs.subList(from, Math.min(refs.size(), from + batchSize));
      List<SeriesRef> gotRefs = new ArrayList<>(batch.size());
      List<SampleRun> got = new ArrayList<>(batch.size());
      lifecycle.readLock().lock();
      try {
        core.ensureOpen();
        readBatch(batch, s0, e0, false, capacity[0], pool, (ref, run) -> {
          gotRefs.add(ref);
          got.add(run);
        });
      } catch (RocksDBException e) {
        throw new StorageException("reading samples for " + matchers + " in [" + s0 + ", "
            + e0 + "] ms failed: " + e.getMessage(), e);
      } finally {
        lifecycle.readLock().unlock();
      }
      int max = 16;
      for (int i = 0; i < got.size(); i++) {
        SampleRun run = got.get(i);
        max = Math.max(max, run.size());
        got.set(i, null);
        // the run's own arrays, no trimming copy: the visitor reads [0, count)
        visitor.visit(gotRefs.get(i).labels, run.timestampsArray(), run.valuesArray(),
            run.size());
      }
      capacity[0] = max + max / 8;
    }
  }

  /** {@link #scan} for known refs, under the caller's lifecycle read lock. */
  void scanRefs(List<SeriesRef> refs, long startMs, long endMs, RunVisitor visitor)
      throws RocksDBException {
    for (SeriesRef ref : refs) {
      SampleRun run = new SampleRun(64);
      synchronized (ref) {
        if (ref.head != null) {
          ref.head.copyRange(startMs, endMs, run);
        }
      }
      rocks.partitionLock.readLock().lock();
      try {
        for (ColumnFamilyHandle cf :
            rocks.partitions(PartitionKind.CHUNKS, StoreCore.windowStart(startMs), endMs)
                .values()) {
          ChunkReads.read(rocks, cf, ref.id, startMs, endMs, run, false);
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      if (run.size() > 0) {
        run.sortAndDedupe();
        visitor.visit(ref, run);
      }
    }
  }
}
