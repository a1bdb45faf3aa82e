package io.inferlens.storage;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The durable time-series store, first version: one RocksDB database with a series index,
 * postings, raw samples and metadata in separate column families (layout in
 * {@code storage/FORMAT.md}), and an in-memory index rebuilt at open.
 *
 * <p>Time: every timestamp and duration is in milliseconds; range bounds are inclusive. The
 * retention horizon of {@link #append} comes from the {@link Clock} given to {@link #open}.
 *
 * <p>Thread safety: thread safe. Appends and {@link #enforceRetention} are serialized by one
 * store-wide lock, which makes the check for conflicting samples and the write atomic; this
 * bounds write throughput to one batch at a time, acceptable for this version, and a later one
 * can stripe the lock by series. Reads run concurrently with each other and with appends and see
 * every append that returned before they started. {@link #close()} waits for running calls; calls
 * after it throw {@link StorageException}.
 */
public final class TimeSeriesStore implements SampleAppender, AutoCloseable {

  /** Rejections listed in full per append; the rest are only counted, to bound the response. */
  static final int MAX_LISTED_REJECTIONS = 10;

  private final StoreOptions options;
  private final Clock clock;
  private final RocksHandles rocks;
  private final SampleCodec codec = RawSampleCodec.INSTANCE;
  private final SeriesIndex index = new SeriesIndex();
  private final SampleScanner scanner;
  /** Serializes appends and retention: conflict check and write happen as one step. */
  private final ReentrantLock appendLock = new ReentrantLock();
  private final java.util.concurrent.CopyOnWriteArrayList<AppendListener> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Told the time range of the samples each append made durable, so readers can drop what they
   * cached for that range (backfill included). Called on the appending thread, under the append
   * lock: implementations must be quick and must not call back into the store.
   */
  @FunctionalInterface
  public interface AppendListener {
    /**
     * @param minTimestampMs oldest sample appended, milliseconds
     * @param maxTimestampMs newest sample appended, milliseconds
     */
    void appended(long minTimestampMs, long maxTimestampMs);
  }

  /**
   * @param listener called after every append that stored at least one sample
   */
  public void addAppendListener(AppendListener listener) {
    listeners.add(listener);
  }
  /** Read-held by every operation, write-held by close, so close never frees handles in use. */
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  /** Next series id to assign; guarded by {@link #appendLock}. */
  private long nextSeriesId;
  private boolean closed;

  private TimeSeriesStore(StoreOptions options, Clock clock, RocksHandles rocks) {
    this.options = options;
    this.clock = clock;
    this.rocks = rocks;
    this.scanner = new SampleScanner(rocks.db, rocks.samples, codec);
  }

  /**
   * Opens the store with the system UTC clock; see {@link #open(StoreOptions, Clock)}.
   *
   * @param options where and how
   * @return the open store; the caller must {@link #close()} it
   * @throws StorageException if the directory cannot be created, RocksDB fails to open, the data
   *     has an unknown format version or the index is inconsistent
   */
  public static TimeSeriesStore open(StoreOptions options) throws StorageException {
    return open(options, Clock.systemUTC());
  }

  /**
   * Opens the store in {@code options.dataDir()}, creating the directory and an empty database if
   * needed, and rebuilds the in-memory index (time proportional to the number of series).
   *
   * @param options where and how
   * @param clock the source of "now" for the retention check in {@link #append}
   * @return the open store; the caller must {@link #close()} it
   * @throws StorageException if the directory cannot be created, RocksDB fails to open, the data
   *     has an unknown format version or the index is inconsistent
   */
  public static TimeSeriesStore open(StoreOptions options, Clock clock) throws StorageException {
    Path dir = options.dataDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StorageException("cannot create data directory " + dir + ": " + e, e);
    }
    RocksHandles rocks;
    try {
      rocks = RocksHandles.open(options);
    } catch (RocksDBException e) {
      throw new StorageException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
    }
    TimeSeriesStore store = new TimeSeriesStore(options, clock, rocks);
    try {
      store.load();
      return store;
    } catch (StorageException | RuntimeException e) {
      rocks.close();
      throw e;
    } catch (RocksDBException e) {
      rocks.close();
      throw new StorageException("cannot read the index in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Checks the format version (or initializes a new store) and rebuilds the index. */
  private void load() throws RocksDBException, StorageException {
    byte[] version = rocks.db.get(rocks.meta, Keys.META_FORMAT_VERSION);
    if (version == null) {
      if (hasAnyKey(rocks.seriesById)) {
        throw new StorageException(
            "data directory " + options.dataDir() + " has series but no format version:"
                + " not an InferLens store, or corrupted",
            null);
      }
      // A new store: version and first id in one synced batch, so a crash leaves all or nothing.
      try (WriteBatch batch = new WriteBatch();
          WriteOptions sync = new WriteOptions().setSync(true)) {
        batch.put(rocks.meta, Keys.META_FORMAT_VERSION, Keys.be32(Keys.FORMAT_VERSION));
        batch.put(rocks.meta, Keys.META_NEXT_SERIES_ID, Keys.be64(Keys.FIRST_SERIES_ID));
        rocks.db.write(sync, batch);
      }
      nextSeriesId = Keys.FIRST_SERIES_ID;
      return;
    }
    int found = version.length == 4 ? Keys.getBe32(version) : -1;
    if (found != Keys.FORMAT_VERSION) {
      throw new StorageException(
          "data directory " + options.dataDir() + " has storage format version "
              + (found == -1 ? "(unreadable, " + version.length + " bytes)" : found)
              + " but this build reads only version " + Keys.FORMAT_VERSION
              + "; use a matching InferLens release or a new data directory",
          null);
    }
    byte[] next = rocks.db.get(rocks.meta, Keys.META_NEXT_SERIES_ID);
    if (next == null || next.length != 8) {
      throw new StorageException("corrupt store: meta key next_series_id missing or malformed",
          null);
    }
    nextSeriesId = Keys.getBe64(next, 0);
    long maxId = 0;
    try (ReadOptions ro = new ReadOptions();
        RocksIterator series = rocks.db.newIterator(rocks.seriesById, ro);
        RocksIterator samples = rocks.db.newIterator(rocks.samples, ro)) {
      // series_by_id iterates in ascending id order, which Postings requires.
      for (series.seekToFirst(); series.isValid(); series.next()) {
        long id = Keys.getBe64(series.key(), 0);
        LabelSet labels = LabelSet.decode(series.value());
        index.add(new SeriesRef(id, labels, lastTimestampMs(samples, id)));
        maxId = id;
      }
      // isValid() is false both at the end and on an error; status() tells them apart.
      series.status();
      samples.status();
    }
    if (maxId >= nextSeriesId) {
      throw new StorageException(
          "corrupt store: series id " + maxId + " exists but next_series_id is " + nextSeriesId,
          null);
    }
  }

  private boolean hasAnyKey(ColumnFamilyHandle cf) {
    try (RocksIterator it = rocks.db.newIterator(cf)) {
      it.seekToFirst();
      return it.isValid();
    }
  }

  /** @return the largest stored timestamp of the series, or {@link SeriesRef#NO_SAMPLES} */
  private long lastTimestampMs(RocksIterator samples, long id) {
    samples.seekForPrev(codec.key(id, Long.MAX_VALUE));
    if (samples.isValid()) {
      byte[] key = samples.key();
      if (codec.seriesId(key) == id) {
        return codec.timestampMs(key);
      }
    }
    return SeriesRef.NO_SAMPLES;
  }

  /** @return the options the store was opened with */
  public StoreOptions options() {
    return options;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * {@inheritDoc}
   *
   * <p>Per sample: older than {@code now - retentionMs} → rejected; same timestamp and raw bits as
   * a stored sample or one earlier in this call → duplicate, stored once; same timestamp and
   * different bits → rejected, the stored value kept; otherwise accepted. Series are created only
   * when one of their samples is accepted; an empty label set is rejected. All accepted samples
   * and new series of the call are written in one RocksDB batch with the WAL (fsync per
   * {@link StoreOptions#syncWal()}); the result returns after that write. At most
   * {@value #MAX_LISTED_REJECTIONS} rejections are listed; {@code rejectedCount} counts all.
   *
   * <p>Holds the store-wide append lock for the whole call.
   *
   * @throws StorageException if RocksDB failed or the store is closed; nothing of this call was
   *     written then
   */
  @Override
  public AppendResult append(List<SeriesWrite> writes) throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      appendLock.lock();
      try {
        return appendLocked(writes);
      } finally {
        appendLock.unlock();
      }
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** A series touched by one append: its accepted samples, timestamp → raw bits. */
  private static final class Pending {
    final SeriesRef ref;
    final boolean created;
    final Map<Long, Long> samples = new HashMap<>();

    Pending(SeriesRef ref, boolean created) {
      this.ref = ref;
      this.created = created;
    }
  }

  /** Collects rejections, listing the first few. */
  private static final class Rejections {
    final List<AppendResult.Rejection> listed = new ArrayList<>();
    long count;

    void add(LabelSet series, long timestampMs, String reason) {
      count++;
      if (listed.size() < MAX_LISTED_REJECTIONS) {
        listed.add(
            new AppendResult.Rejection(series, timestampMs, "series " + series + ": " + reason));
      }
    }
  }

  private AppendResult appendLocked(List<SeriesWrite> writes) throws StorageException {
    long nowMs = clock.millis();
    long horizonMs = saturatedSubtract(nowMs, options.retentionMs());

    // Pass 1: samples of known series at or below their max stored timestamp may collide with a
    // stored sample; fetch them all with one multiGet. Newer samples cannot collide (fast path).
    Map<SampleKey, Long> stored = lookUpStored(writes, horizonMs);

    // Pass 2: classify every sample in call order.
    Map<LabelSet, Pending> pending = new LinkedHashMap<>();
    Rejections rejections = new Rejections();
    long duplicates = 0;
    long firstNewId = nextSeriesId;
    long newId = nextSeriesId;
    for (SeriesWrite w : writes) {
      LabelSet labels = w.labels();
      SeriesRef known = index.get(labels);
      for (int i = 0; i < w.count(); i++) {
        long ts = w.timestampsMs()[i];
        long bits = w.valueBits()[i];
        if (labels.size() == 0) {
          rejections.add(labels, ts, "a series without labels cannot be stored");
          continue;
        }
        if (ts < horizonMs) {
          rejections.add(labels, ts, "sample at " + ts + " ms is older than the retention horizon "
              + horizonMs + " ms (now " + nowMs + " ms minus retention " + options.retentionMs()
              + " ms)");
          continue;
        }
        Pending p = pending.get(labels);
        Long earlier = p == null ? null : p.samples.get(ts);
        if (earlier != null) {
          if (earlier == bits) {
            duplicates++;
          } else {
            rejections.add(labels, ts, "sample at " + ts + " ms has value " + hex(bits) + " but "
                + hex(earlier) + " was given earlier in the same append");
          }
          continue;
        }
        if (known != null && ts <= known.maxTimestampMs) {
          Long have = stored.get(new SampleKey(known.id, ts));
          if (have != null) {
            if (have == bits) {
              duplicates++;
            } else {
              rejections.add(labels, ts, "sample at " + ts + " ms has value " + hex(bits)
                  + " but " + hex(have) + " is already stored");
            }
            continue;
          }
        }
        if (p == null) {
          p = known != null
              ? new Pending(known, false)
              : new Pending(new SeriesRef(newId++, labels, SeriesRef.NO_SAMPLES), true);
          pending.put(labels, p);
        }
        p.samples.put(ts, bits);
      }
    }

    long appended = 0;
    long created = newId - firstNewId;
    try (WriteBatch batch = new WriteBatch()) {
      for (Pending p : pending.values()) {
        if (p.created) {
          putSeries(batch, p.ref);
        }
        for (Map.Entry<Long, Long> s : p.samples.entrySet()) {
          batch.put(rocks.samples, codec.key(p.ref.id, s.getKey()), codec.encodeValue(s.getValue()));
          appended++;
        }
      }
      if (created > 0) {
        batch.put(rocks.meta, Keys.META_NEXT_SERIES_ID, Keys.be64(newId));
      }
      if (batch.count() > 0) {
        rocks.db.write(rocks.writeOptions, batch);
      }
    } catch (RocksDBException e) {
      // nextSeriesId was not advanced: the ids of this call are free again.
      throw new StorageException("append of " + appended + " samples (" + created
          + " new series) failed, nothing acknowledged: " + e.getMessage(), e);
    }

    // Durable now: publish new series and raise the max timestamps.
    nextSeriesId = newId;
    long minTs = Long.MAX_VALUE;
    long maxTs = Long.MIN_VALUE;
    for (Pending p : pending.values()) {
      for (long ts : p.samples.keySet()) {
        if (ts > p.ref.maxTimestampMs) {
          p.ref.maxTimestampMs = ts;
        }
        minTs = Math.min(minTs, ts);
        maxTs = Math.max(maxTs, ts);
      }
      if (p.created) {
        index.add(p.ref);
      }
    }
    if (appended > 0) {
      for (AppendListener l : listeners) {
        try {
          l.appended(minTs, maxTs);
        } catch (RuntimeException e) {
          // A listener (a cache) failing must not fail a durable append.
          System.getLogger(TimeSeriesStore.class.getName()).log(System.Logger.Level.WARNING,
              "append listener failed", e);
        }
      }
    }
    return new AppendResult(
        appended, duplicates, created, List.copyOf(rejections.listed), rejections.count);
  }

  /** A sample identity inside one append. */
  private record SampleKey(long seriesId, long timestampMs) {}

  private Map<SampleKey, Long> lookUpStored(List<SeriesWrite> writes, long horizonMs)
      throws StorageException {
    Set<SampleKey> keys = new LinkedHashSet<>();
    for (SeriesWrite w : writes) {
      SeriesRef known = index.get(w.labels());
      if (known == null) {
        continue;
      }
      for (int i = 0; i < w.count(); i++) {
        long ts = w.timestampsMs()[i];
        if (ts >= horizonMs && ts <= known.maxTimestampMs) {
          keys.add(new SampleKey(known.id, ts));
        }
      }
    }
    Map<SampleKey, Long> stored = new HashMap<>();
    if (keys.isEmpty()) {
      return stored;
    }
    List<SampleKey> ordered = new ArrayList<>(keys);
    List<byte[]> rawKeys = new ArrayList<>(ordered.size());
    for (SampleKey k : ordered) {
      rawKeys.add(codec.key(k.seriesId(), k.timestampMs()));
    }
    List<byte[]> values;
    try (ReadOptions ro = new ReadOptions()) {
      values = rocks.db.multiGetAsList(
          ro, Collections.nCopies(rawKeys.size(), rocks.samples), rawKeys);
    } catch (RocksDBException e) {
      throw new StorageException("looking up " + rawKeys.size()
          + " possibly conflicting samples failed, nothing acknowledged: " + e.getMessage(), e);
    }
    for (int i = 0; i < ordered.size(); i++) {
      byte[] v = values.get(i);
      if (v != null) {
        stored.put(ordered.get(i), codec.decodeValue(v));
      }
    }
    return stored;
  }

  private void putSeries(WriteBatch batch, SeriesRef ref) throws RocksDBException {
    byte[] labels = ref.labels.encode();
    byte[] id = Keys.be64(ref.id);
    batch.put(rocks.seriesByLabels, labels, id);
    batch.put(rocks.seriesById, id, labels);
    for (int i = 0; i < ref.labels.size(); i++) {
      batch.put(
          rocks.postings,
          Keys.postingKey(ref.labels.name(i), ref.labels.value(i), ref.id),
          Keys.empty());
    }
  }

  private static String hex(long bits) {
    return String.format("0x%016x", bits);
  }

  private static long saturatedSubtract(long a, long b) {
    long r = a - b;
    // Overflow only when the signs of a and b differ and the result's sign differs from a's.
    return ((a ^ b) & (a ^ r)) < 0 ? Long.MIN_VALUE : r;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

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
    scan(matchers, startMs, endMs, true, (ref, ts, bits) -> out.add(new Series(ref.labels, ts, bits)));
    out.sort((a, b) -> LabelOrder.compare(a.labels(), b.labels()));
    return out;
  }

  /**
   * Lists matching series that have a sample in range, without reading their samples.
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
    scan(matchers, startMs, endMs, false, (ref, ts, bits) -> out.add(ref.labels));
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
    scan(matchers, startMs, endMs, false, (ref, ts, bits) -> names.addAll(ref.labels.toMap().keySet()));
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
    scan(matchers, startMs, endMs, false, (ref, ts, bits) -> {
      String v = ref.labels.get(name);
      if (!v.isEmpty()) {
        values.add(v);
      }
    });
    return new ArrayList<>(values);
  }

  /**
   * Resolves the matchers and visits every matching series with a sample in
   * {@code [startMs, endMs]}, holding the lifecycle read lock.
   */
  private void scan(
      List<Matcher> matchers,
      long startMs,
      long endMs,
      boolean readSamples,
      SampleScanner.SeriesVisitor visitor)
      throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      List<SeriesRef> refs = index.resolve(matchers);
      scanner.scan(refs, startMs, endMs, readSamples, visitor);
    } catch (RocksDBException e) {
      throw new StorageException("reading samples for " + matchers + " in [" + startMs + ", "
          + endMs + "] ms failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Statistics and maintenance

  /**
   * @return the number of series in the index, including series whose samples retention removed
   * @throws StorageException if the store is closed
   */
  public long seriesCount() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return index.size();
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * @return RocksDB's estimate of stored samples ({@code rocksdb.estimate-num-keys} of the samples
   *     column family): approximate, may count deleted or overwritten samples until compaction
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public long sampleCountEstimate() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return rocks.db.getLongProperty(rocks.samples, "rocksdb.estimate-num-keys");
    } catch (RocksDBException e) {
      throw new StorageException("reading rocksdb.estimate-num-keys failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * @return the sum of the sizes of all files under the data directory, in bytes; files that
   *     RocksDB deletes during the walk are skipped
   * @throws StorageException if the directory cannot be read
   */
  public long diskSizeBytes() throws StorageException {
    long[] total = new long[1];
    try {
      Files.walkFileTree(options.dataDir(), new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          total[0] += attrs.size();
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          // Compaction deletes files while we walk; a vanished file has no size to count.
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new StorageException("cannot walk " + options.dataDir() + ": " + e, e);
    }
    return total[0];
  }

  /**
   * Flushes all memtables to SST files and waits for it. Not needed for durability (the WAL
   * provides it); useful before measuring disk size or taking a backup.
   *
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void flush() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
        rocks.db.flush(fo, rocks.allColumnFamilies);
      }
    } catch (RocksDBException e) {
      throw new StorageException("flush failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * RocksDB properties of the samples column family reported by {@link #rocksProperties()}, in
   * that order: live SST bytes, memtable bytes (active and immutable), block cache usage (shared
   * by all column families, so the same for each), estimated keys (= samples), and bytes that
   * compaction still has to rewrite to bring every level under its target size.
   */
  public static final List<String> ROCKS_PROPERTIES = List.of(
      "rocksdb.total-sst-files-size",
      "rocksdb.cur-size-all-mem-tables",
      "rocksdb.block-cache-usage",
      "rocksdb.estimate-num-keys",
      "rocksdb.estimate-pending-compaction-bytes");

  /**
   * @return each of {@link #ROCKS_PROPERTIES} for the samples column family, by name, in that
   *     order; cheap (in-memory counters), suitable for gauges
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public Map<String, Long> rocksProperties() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      Map<String, Long> out = new LinkedHashMap<>();
      for (String name : ROCKS_PROPERTIES) {
        out.put(name, rocks.db.getLongProperty(rocks.samples, name));
      }
      return out;
    } catch (RocksDBException e) {
      throw new StorageException("reading RocksDB properties failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Flushes the memtables, then compacts every column family fully into its bottommost level
   * (rewriting files already there, so they get the bottommost compression) and waits for it.
   * Takes time and I/O proportional to the whole store; for tests, benchmarks and maintenance.
   * Appends and reads may run meanwhile.
   *
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void compact() throws StorageException {
    flush();
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      try (CompactRangeOptions co = new CompactRangeOptions()
          .setExclusiveManualCompaction(true)
          .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
        for (ColumnFamilyHandle cf : rocks.allColumnFamilies) {
          rocks.db.compactRange(cf, null, null, co);
        }
      }
    } catch (RocksDBException e) {
      throw new StorageException("compaction failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Deletes every sample older than {@code nowMs - retentionMs} with one range tombstone per
   * series, written in one batch. The series index and postings are left untouched for now: a
   * series whose samples are all gone stays in {@link #seriesCount()} and is invisible to reads
   * only because it has no sample in range. Takes the append lock.
   *
   * @param nowMs the current time in milliseconds
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void enforceRetention(long nowMs) throws StorageException {
    long horizonMs = saturatedSubtract(nowMs, options.retentionMs());
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      appendLock.lock();
      try (WriteBatch batch = new WriteBatch()) {
        for (SeriesRef ref : index.all()) {
          // Range end is exclusive: removes [MIN_VALUE, horizonMs).
          batch.deleteRange(rocks.samples, codec.key(ref.id, Long.MIN_VALUE),
              codec.key(ref.id, horizonMs));
        }
        if (batch.count() > 0) {
          rocks.db.write(rocks.writeOptions, batch);
        }
      } catch (RocksDBException e) {
        throw new StorageException(
            "deleting samples before " + horizonMs + " ms failed: " + e.getMessage(), e);
      } finally {
        appendLock.unlock();
      }
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private void ensureOpen() throws StorageException {
    if (closed) {
      throw new StorageException("store at " + options.dataDir() + " is closed", null);
    }
  }

  /**
   * Waits for running calls, then closes the database and every native handle exactly once.
   * Later calls of this method do nothing; other methods throw {@link StorageException}.
   */
  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      rocks.close();
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  /** @return whether every native handle was released, for tests */
  boolean nativeHandlesClosed() {
    return rocks.isClosed();
  }
}
