package io.inferlens.storage;

import io.inferlens.storage.chunk.ChunkCodec;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The durable time-series store: a head of recent samples in memory, made durable by a head log
 * in RocksDB, flushed into compressed chunks ({@link ChunkCodec}) in day-partitioned column
 * families, plus 5-minute and 1-hour rollups in their own partitions. The layout is
 * {@code storage/FORMAT.md} (format version 2).
 *
 * <p>Life of a sample: {@link #append} checks it (retention horizon, duplicate, conflict) and
 * writes it in one RocksDB batch (with RocksDB's WAL) to the head log; then it joins the series'
 * head buffer. When the head holds {@link StoreOptions#headMaxSamples()} samples, or its oldest
 * sample has waited {@link #HEAD_MAX_AGE_MS}, a background flush encodes every head buffer into
 * chunks cut at {@link #WINDOW_MS} windows and, with its last write batch, truncates the log.
 * Once a window is closed (the newest data is {@link #CLOSE_GRACE_MS} past its end) it is
 * finalized: its chunks merged into one and its rollups written. Backfill into any window of the retention is
 * accepted; it lands in a new chunk and the window is finalized again.
 *
 * <p>Time: every timestamp and duration is in milliseconds; range bounds are inclusive. The
 * retention horizon of {@link #append} comes from the {@link Clock} given to {@link #open}.
 *
 * <p>Thread safety: thread safe. Appends are serialized by one store-wide lock that makes the
 * conflict check and the write one step. Reads run concurrently with appends, flushes and each
 * other and see every append that returned before they started. Retention drops partitions under
 * a lock that waits for running reads but never for appends. {@link #close()} waits for running
 * calls; calls after it throw {@link StorageException}.
 */
public final class TimeSeriesStore implements SampleAppender, AutoCloseable {

  /** Rejections listed in full per append; the rest are only counted, to bound the response. */
  static final int MAX_LISTED_REJECTIONS = 10;

  /**
   * Chunk window: 2 hours, aligned to the epoch, as Prometheus' head blocks. No chunk spans two
   * windows, so a read of {@code [s, e]} starts at the window holding {@code s} and a window is
   * the unit of finalization. At a 15 s scrape interval a window is 480 samples, where the chunk
   * header costs about 0.04 B/sample (docs/BENCHMARKS.md, "Chunk encoding").
   */
  public static final long WINDOW_MS = 2 * 3_600_000L;

  /** A window is closed this long after its end, as seen by the newest appended sample. */
  public static final long CLOSE_GRACE_MS = 10 * 60_000L;

  /** The head is flushed at the latest when its oldest unflushed append is this old: 15 min. */
  public static final long HEAD_MAX_AGE_MS = 15 * 60_000L;

  /** How often the background thread checks for head age, closed windows: 5 s. */
  private static final long BACKGROUND_PERIOD_MS = 5_000;

  /**
   * Timestamps beyond ±2^62 ms (about ±146 million years) are refused, so that window and
   * partition arithmetic never overflows; read ranges are clamped to it.
   */
  public static final long MAX_ABS_TIMESTAMP_MS = 1L << 62;

  /** Head-flush pieces shorter than this are encoded without planning, see writeChunk. */
  private static final int FAST_ENCODE_BELOW = 120;

  /** Windows finalized per RocksDB batch, so a batch stays a few MiB. */
  private static final int FINALIZE_BATCH_WINDOWS = 2_000;

  private static final System.Logger LOG = System.getLogger(TimeSeriesStore.class.getName());

  private final StoreOptions options;
  private final Clock clock;
  private final RocksHandles rocks;
  private final SeriesIndex index = new SeriesIndex();
  /** Serializes appends: conflict check and write happen as one step. */
  private final ReentrantLock appendLock = new ReentrantLock();
  /** One head flush at a time. */
  private final ReentrantLock flushLock = new ReentrantLock();
  /** One finalization pass at a time. */
  private final ReentrantLock finalizeLock = new ReentrantLock();
  private final java.util.concurrent.CopyOnWriteArrayList<AppendListener> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Read-held by every operation, write-held by close, so close never frees handles in use. */
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private final HeadLog logRecord = new HeadLog();
  private final ChunkCodec appendCodec = new ChunkCodec();
  private final ScheduledExecutorService background;
  /** Windows with chunks written since they were last finalized: (series id, window start). */
  private final WindowMarks unfinalized = new WindowMarks();

  /** Most {@link Pending} kept between appends: a remote-write request has ~2,000 series. */
  private static final int MAX_POOLED_PENDING = 16_384;

  /** Reusable {@link Pending}s; guarded by {@link #appendLock}. */
  private final List<Pending> pendingPool = new ArrayList<>();

  /** The series of the running append, in first-seen order; guarded by {@link #appendLock}. */
  private final List<Pending> pendingInCall = new ArrayList<>();
  /** Samples written to each chunk partition (by start), an estimate after crash replays. */
  private final Map<Long, AtomicLong> partitionSamples = new ConcurrentHashMap<>();

  /** Next series id to assign; guarded by {@link #appendLock}. */
  private long nextSeriesId;
  /** Next head-log sequence number; guarded by {@link #appendLock}. */
  private long nextLogSeq;
  /** Head samples appended since the last flush's cut; guarded by {@link #appendLock}. */
  private long headSamples;
  /** Wall-clock ms when the active head got its first sample; guarded by {@link #appendLock}. */
  private long headSinceMs = Long.MAX_VALUE;
  /**
   * Whether head samples may already be in chunks: after a flush failed between two batches, or
   * at open after one was cut short ({@link Keys#META_FLUSH_PARTIAL}). The next flush then merges
   * each window with its stored chunks instead of putting its chunks blindly: a chunk is keyed by
   * its first timestamp, and a re-flushed one could otherwise replace a chunk that finalization
   * had merged meanwhile, and with it the window's older samples. Guarded by {@link #flushLock}.
   */
  private boolean headMayOverlapChunks;
  /** Head samples before the cut of the flush in progress: written, not yet dropped. */
  private volatile long flushingSamples;
  /**
   * Incremented after each head flush batch wrote its chunks, before the flush drops their samples
   * from the head: a window's chunks read in one append call are reused only while it is unchanged.
   */
  private volatile long chunkEpoch;
  /** Newest sample timestamp ever appended, milliseconds. */
  private volatile long maxSeenMs = Long.MIN_VALUE;
  private Future<?> pendingFlush;
  private volatile boolean closed;

  /** The samples of one window's chunks, read while {@link #chunkEpoch} was {@code epoch}. */
  private record CachedWindow(long epoch, SampleRun run) {}

  /** A chunk window of one series. */
  record WindowKey(long seriesId, long windowStartMs) {}

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

  private TimeSeriesStore(StoreOptions options, Clock clock, RocksHandles rocks) {
    this.options = options;
    this.clock = clock;
    this.rocks = rocks;
    this.background = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "inferlens-store-background");
      t.setDaemon(true);
      return t;
    });
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
   * needed, rebuilds the in-memory index (time proportional to the number of series and
   * partitions) and replays the head log into the head (proportional to the samples not yet
   * flushed, at most about {@link StoreOptions#headMaxSamples()} plus one flush).
   *
   * @param options where and how
   * @param clock the source of "now" for the retention check in {@link #append} and the head's
   *     age
   * @return the open store; the caller must {@link #close()} it
   * @throws StorageException if the directory cannot be created, RocksDB fails to open, the data
   *     has an unknown format version or the index or head log is inconsistent
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
    long startNs = System.nanoTime();
    try {
      store.load();
    } catch (StorageException | RuntimeException e) {
      store.background.shutdownNow();
      rocks.close();
      throw e;
    } catch (RocksDBException e) {
      store.background.shutdownNow();
      rocks.close();
      throw new StorageException("cannot read the index in " + dir + ": " + e.getMessage(), e);
    }
    // An operator waiting for readiness after a restart sees what the open did.
    LOG.log(System.Logger.Level.INFO, "store {0} opened in {1} ms: {2} series, {3} head samples"
        + " replayed from the head log, {4} partitions", dir,
        (System.nanoTime() - startNs) / 1_000_000, store.index.size(), store.headSamples,
        rocks.allPartitions().size());
    store.background.scheduleWithFixedDelay(store::backgroundTick, BACKGROUND_PERIOD_MS,
        BACKGROUND_PERIOD_MS, TimeUnit.MILLISECONDS);
    return store;
  }

  /** Checks the format version (or initializes a new store), rebuilds the index, replays the log. */
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
    try (RocksIterator series = rocks.db.newIterator(rocks.seriesById)) {
      // series_by_id iterates in ascending id order, which Postings requires.
      for (series.seekToFirst(); series.isValid(); series.next()) {
        long id = Keys.getBe64(series.key(), 0);
        SeriesRef ref = new SeriesRef(id, LabelSet.decode(series.value()), SeriesRef.NO_SAMPLES);
        index.add(ref);
        maxId = id;
      }
      series.status();
    }
    if (maxId >= nextSeriesId) {
      throw new StorageException(
          "corrupt store: series id " + maxId + " exists but next_series_id is " + nextSeriesId,
          null);
    }
    loadPartitions();
    replayHeadLog();
    headMayOverlapChunks = rocks.db.get(rocks.meta, Keys.META_FLUSH_PARTIAL) != null;
  }

  /** Reads each chunk partition's presence markers, pending windows and sample counter. */
  private void loadPartitions() throws RocksDBException {
    for (Map.Entry<Long, ColumnFamilyHandle> p :
        rocks.partitions(PartitionKind.CHUNKS, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2)
            .entrySet()) {
      long start = p.getKey();
      long end = start + PartitionKind.CHUNKS.lengthMs - 1;
      ColumnFamilyHandle cf = p.getValue();
      byte[] count = rocks.db.get(cf, Keys.PARTITION_SAMPLE_COUNT);
      partitionSamples.put(start, new AtomicLong(count == null ? 0 : Keys.getBe64(count, 0)));
      try (RocksIterator it = rocks.db.newIterator(cf)) {
        for (it.seek(new byte[] {Keys.PREFIX_PRESENT}); it.isValid(); it.next()) {
          byte[] k = it.key();
          if (k[0] != Keys.PREFIX_PRESENT) {
            break;
          }
          SeriesRef ref = index.byId(Keys.keySeriesId(k));
          if (ref != null) {
            ref.widenBounds(start, end);
            ref.presenceDay = Math.max(ref.presenceDay, Math.floorDiv(start, 86_400_000L));
          }
        }
        it.status();
        for (it.seek(new byte[] {Keys.PREFIX_UNFINALIZED}); it.isValid(); it.next()) {
          byte[] k = it.key();
          if (k[0] != Keys.PREFIX_UNFINALIZED) {
            break;
          }
          unfinalized.add(Keys.keySeriesId(k), Keys.keyTimestampMs(k));
        }
        it.status();
      }
    }
  }

  /** Replays the head log into the head buffers, in sequence order. */
  private void replayHeadLog() throws RocksDBException, StorageException {
    byte[] floor = rocks.db.get(rocks.meta, Keys.META_LOG_FLOOR);
    nextLogSeq = floor == null ? 0 : Keys.getBe64(floor, 0);
    long[] replayed = {0};
    try (RocksIterator it = rocks.db.newIterator(rocks.headLog)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        long seq = Keys.getBe64(it.key(), 0);
        nextLogSeq = Math.max(nextLogSeq, seq + 1);
        try {
          HeadLog.decode(it.value(), (id, ts, bits) -> {
            SeriesRef ref = index.byId(id);
            if (ref == null) {
              throw new IllegalStateException("head-log record " + seq + " names series " + id
                  + ", which is not in series_by_id");
            }
            if (ref.head == null) {
              ref.head = new HeadBuffer();
            }
            if (ref.head.bitsAt(ts) == null) {
              ref.head.add(ts, bits);
              ref.widenBounds(ts, ts);
              replayed[0]++;
              if (ts > maxSeenMs) {
                maxSeenMs = ts;
              }
            }
          });
        } catch (IllegalStateException e) {
          throw new StorageException("corrupt store: " + e.getMessage(), e);
        }
      }
      it.status();
    }
    headSamples = replayed[0];
    if (headSamples > 0) {
      headSinceMs = clock.millis();
    }
  }

  private boolean hasAnyKey(ColumnFamilyHandle cf) {
    try (RocksIterator it = rocks.db.newIterator(cf)) {
      it.seekToFirst();
      return it.isValid();
    }
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
   * when one of their samples is accepted; an empty label set is rejected. The accepted samples
   * (one head-log record) and new series of the call are written in one RocksDB batch with the
   * WAL (fsync per {@link StoreOptions#syncWal()}); the result returns after that write. At most
   * {@value #MAX_LISTED_REJECTIONS} rejections are listed; {@code rejectedCount} counts all.
   *
   * <p>Holds the store-wide append lock for the whole call. A sample newer than everything stored
   * for its series costs no read; an older one (backfill) reads the chunks of its window once per
   * call. When the head is over twice {@link StoreOptions#headMaxSamples()} because flushes fall
   * behind, the call waits for the running flush before returning (back-pressure).
   *
   * @throws StorageException if RocksDB failed or the store is closed; nothing of this call was
   *     written then
   */
  @Override
  public AppendResult append(List<SeriesWrite> writes) throws StorageException {
    Future<?> wait = null;
    AppendResult result;
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      appendLock.lock();
      try {
        result = appendLocked(writes);
        if (headSamples >= options.headMaxSamples()) {
          wait = requestFlush();
          if (headSamples + flushingSamples < 2L * options.headMaxSamples()) {
            wait = null;
          }
        }
      } finally {
        appendLock.unlock();
      }
    } finally {
      lifecycle.readLock().unlock();
    }
    if (wait != null) {
      awaitQuietly(wait);
    }
    return result;
  }

  /**
   * A series touched by one append: its accepted samples in call order. Instances are pooled
   * across calls under the append lock ({@link #pendingPool}), so a call allocates nothing per
   * series once the pool has grown to the calls' series count.
   */
  static final class Pending {
    SeriesRef ref;
    boolean created;
    long[] ts = new long[4];
    long[] bits = new long[4];
    int n;
    long maxTs;
    /** Built only when a sample arrives out of order within the call. */
    Map<Long, Long> byTs;

    Pending reset(SeriesRef ref, boolean created) {
      this.ref = ref;
      this.created = created;
      n = 0;
      maxTs = Long.MIN_VALUE;
      byTs = null;
      return this;
    }

    Long get(long t) {
      if (n == 0 || t > maxTs) {
        return null;
      }
      if (byTs == null) {
        byTs = new HashMap<>();
        for (int i = 0; i < n; i++) {
          byTs.put(ts[i], bits[i]);
        }
      }
      return byTs.get(t);
    }

    void add(long t, long b) {
      if (n == ts.length) {
        ts = java.util.Arrays.copyOf(ts, n * 2);
        bits = java.util.Arrays.copyOf(bits, n * 2);
      }
      ts[n] = t;
      bits[n] = b;
      n++;
      maxTs = Math.max(maxTs, t);
      if (byTs != null) {
        byTs.put(t, b);
      }
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
    // Series of this call in first-seen order. A known series finds its Pending through
    // SeriesRef.pending (no hashing of ten-odd label strings per series); new ones by label set.
    List<Pending> pending = pendingInCall;
    try {
      return appendLocked(writes, pending);
    } finally {
      for (Pending p : pending) {
        p.ref.pending = null;
        p.ref = null;
        if (p.ts.length > 1024) { // a rare long series: do not keep its arrays
          p.ts = new long[4];
          p.bits = new long[4];
        }
      }
      pending.clear();
      if (pendingPool.size() > MAX_POOLED_PENDING) {
        pendingPool.subList(MAX_POOLED_PENDING, pendingPool.size()).clear();
      }
    }
  }

  /**
   * The state of one append call's collect phase. The call is split into small methods (collect
   * one series, write the log record, fill one head) rather than one long one with nested loops:
   * C2 compiled the long one about ten times (an OSR compile per loop, then recompiles), each with
   * the callees inlined, which was a fifth of all JIT time on the 10-second {@code s2k-2880} run.
   */
  private static final class CallState {
    final long nowMs;
    final long horizonMs;
    final Map<WindowKey, CachedWindow> windowCache = new HashMap<>();
    final Rejections rejections = new Rejections();
    Map<LabelSet, Pending> newSeries;
    long duplicates;
    long newId;

    CallState(long nowMs, long horizonMs, long newId) {
      this.nowMs = nowMs;
      this.horizonMs = horizonMs;
      this.newId = newId;
    }
  }

  /** @param pending empty; filled with the call's series, whose {@code ref.pending} is set */
  private AppendResult appendLocked(List<SeriesWrite> writes, List<Pending> pending)
      throws StorageException {
    long nowMs = clock.millis();
    long firstNewId = nextSeriesId;
    CallState call = new CallState(
        nowMs, saturatedSubtract(nowMs, options.retentionMs()), firstNewId);
    touchSink += touch(writes);
    try {
      for (int i = 0, n = writes.size(); i < n; i++) {
        collectSeries(writes.get(i), call, pending);
      }
    } catch (RocksDBException e) {
      throw new StorageException("looking up possibly conflicting samples failed, nothing"
          + " acknowledged: " + e.getMessage(), e);
    }
    long appended = writeLogRecord(pending, call.newId, firstNewId);

    // Durable now: publish new series, fill the head, raise the max timestamps.
    nextSeriesId = call.newId;
    long minTs = Long.MAX_VALUE;
    long maxTs = Long.MIN_VALUE;
    for (int i = 0, n = pending.size(); i < n; i++) {
      Pending p = pending.get(i);
      minTs = Math.min(minTs, fillHead(p));
      maxTs = Math.max(maxTs, p.maxTs);
    }
    if (appended > 0) {
      published(nowMs, appended, minTs, maxTs);
    }
    return new AppendResult(appended, call.duplicates, call.newId - firstNewId,
        List.copyOf(call.rejections.listed), call.rejections.count);
  }

  /** Keeps the touch pass's loads from being optimized away; its value means nothing. */
  private long touchSink;

  /**
   * Loads each known series' label set, ref and head stream byte in one tight loop before the
   * per-series work. At 100,000 series these are cache misses (JFR: the index lookup alone was
   * 10 % of ingest samples), which the per-series code takes one after another; here the loads
   * of different series are independent, so the CPU overlaps them.
   */
  private static long touch(List<SeriesWrite> writes) {
    long sum = 0;
    for (int i = 0, n = writes.size(); i < n; i++) {
      SeriesRef ref = writes.get(i).labels().indexRef;
      if (ref != null) {
        HeadBuffer head = ref.head;
        sum += head != null ? head.touch() : ref.id;
      }
    }
    return sum;
  }

  /** Collects the acceptable samples of one series write into its {@link Pending}. */
  private void collectSeries(SeriesWrite w, CallState call, List<Pending> pending)
      throws RocksDBException, StorageException {
    LabelSet labels = w.labels();
    SeriesRef known = index.get(labels);
    Pending p;
    if (known != null) {
      p = known.pending;
    } else {
      p = call.newSeries == null ? null : call.newSeries.get(labels);
      if (p != null) {
        known = p.ref;
      }
    }
    if (known != null && !known.maxKnown) {
      loadMaxTimestamp(known);
    }
    long[] tss = w.timestampsMs();
    long[] vbs = w.valueBits();
    for (int i = 0, n = w.count(); i < n; i++) {
      long ts = tss[i];
      long bits = vbs[i];
      if (labels.size() == 0 || ts < call.horizonMs || ts < -MAX_ABS_TIMESTAMP_MS
          || ts > MAX_ABS_TIMESTAMP_MS) {
        rejectOutOfRange(call, labels, ts);
        continue;
      }
      if (p != null && p.n > 0 && ts <= p.maxTs && isRepeatInCall(call, labels, p, ts, bits)) {
        continue;
      }
      if (known != null && !(p != null && p.created) && ts <= known.maxTimestampMs
          && isStored(call, labels, known, ts, bits)) {
        continue;
      }
      if (p == null) {
        p = startPending(call, pending, known, labels);
        known = p.ref;
      }
      p.add(ts, bits);
    }
  }

  /** Rejects a sample of a label-less series or outside the accepted time range. */
  private void rejectOutOfRange(CallState call, LabelSet labels, long ts) {
    if (labels.size() == 0) {
      call.rejections.add(labels, ts, "a series without labels cannot be stored");
    } else if (ts < -MAX_ABS_TIMESTAMP_MS || ts > MAX_ABS_TIMESTAMP_MS) {
      call.rejections.add(labels, ts, "sample at " + ts + " ms is outside the supported range"
          + " of +-2^62 ms");
    } else {
      call.rejections.add(labels, ts, "sample at " + ts + " ms is older than the retention"
          + " horizon " + call.horizonMs + " ms (now " + call.nowMs + " ms minus retention "
          + options.retentionMs() + " ms)");
    }
  }

  /**
   * @return whether the same call already gave a sample at {@code ts} (counted as a duplicate
   *     if equal, rejected otherwise)
   */
  private static boolean isRepeatInCall(
      CallState call, LabelSet labels, Pending p, long ts, long bits) {
    return duplicateOrConflict(call, labels, ts, bits, p.get(ts),
        " was given earlier in the same append");
  }

  /**
   * @return whether a sample at {@code ts} is already stored (counted as a duplicate if equal,
   *     rejected otherwise)
   */
  private boolean isStored(CallState call, LabelSet labels, SeriesRef known, long ts, long bits)
      throws RocksDBException {
    return duplicateOrConflict(call, labels, ts, bits, storedBits(known, ts, call.windowCache),
        " is already stored");
  }

  /**
   * Counts a sample equal to an {@code earlier} one at its timestamp as a duplicate, or rejects
   * it when the raw bits differ.
   *
   * @return false when there is no earlier sample
   */
  private static boolean duplicateOrConflict(
      CallState call, LabelSet labels, long ts, long bits, Long earlier, String where) {
    if (earlier == null) {
      return false;
    }
    if (earlier == bits) {
      call.duplicates++;
    } else {
      call.rejections.add(labels, ts, "sample at " + ts + " ms has value " + shownValue(bits)
          + " but " + shownValue(earlier) + where);
    }
    return true;
  }

  /** Takes a pooled {@link Pending} for the series, creating the series if it is new. */
  private Pending startPending(
      CallState call, List<Pending> pending, SeriesRef known, LabelSet labels) {
    int pooled = pending.size();
    if (pooled == pendingPool.size()) {
      pendingPool.add(new Pending());
    }
    Pending p = pendingPool.get(pooled);
    if (known != null) {
      p.reset(known, false);
    } else {
      SeriesRef ref = new SeriesRef(call.newId++, labels, SeriesRef.NO_SAMPLES);
      ref.maxKnown = true;
      p.reset(ref, true);
      if (call.newSeries == null) {
        call.newSeries = new HashMap<>();
      }
      call.newSeries.put(labels, p);
    }
    p.ref.pending = p;
    pending.add(p);
    return p;
  }

  /**
   * Writes the call's head-log record, new series and next series id in one RocksDB batch.
   *
   * @return the number of samples made durable
   * @throws StorageException if RocksDB failed; nothing of the call was written then
   */
  private long writeLogRecord(List<Pending> pending, long newId, long firstNewId)
      throws StorageException {
    long appended = 0;
    long seq = nextLogSeq;
    try (WriteBatch batch = new WriteBatch()) {
      logRecord.reset();
      for (int i = 0, n = pending.size(); i < n; i++) {
        Pending p = pending.get(i);
        if (p.created) {
          putSeries(batch, p.ref);
        }
        logRecord.addSeries(p.ref.id, p.ts, p.bits, p.n);
        appended += p.n;
      }
      if (!logRecord.isEmpty()) {
        batch.put(rocks.headLog, Keys.be64(seq), logRecord.toBytes());
      }
      if (newId > firstNewId) {
        batch.put(rocks.meta, Keys.META_NEXT_SERIES_ID, Keys.be64(newId));
      }
      if (batch.count() > 0) {
        rocks.db.write(rocks.writeOptions, batch);
      }
    } catch (RocksDBException e) {
      // nextSeriesId and nextLogSeq were not advanced: this call left no trace.
      throw new StorageException("append of " + appended + " samples (" + (newId - firstNewId)
          + " new series) failed, nothing acknowledged: " + e.getMessage(), e);
    }
    if (appended > 0) {
      nextLogSeq = seq + 1;
    }
    return appended;
  }

  /**
   * Moves one durable {@link Pending} into its series' head, widens its bounds and publishes a
   * new series in the index.
   *
   * @return the smallest timestamp added, ms
   */
  private long fillHead(Pending p) {
    SeriesRef ref = p.ref;
    long pMin = Long.MAX_VALUE;
    long[] ts = p.ts;
    long[] bits = p.bits;
    synchronized (ref) {
      HeadBuffer head = ref.head;
      if (head == null) {
        head = new HeadBuffer();
        ref.head = head;
      }
      for (int i = 0, n = p.n; i < n; i++) {
        head.add(ts[i], bits[i]);
        pMin = Math.min(pMin, ts[i]);
      }
    }
    ref.widenBounds(pMin, p.maxTs);
    if (p.maxTs > ref.maxTimestampMs) {
      ref.maxTimestampMs = p.maxTs;
    }
    if (p.created) {
      index.add(ref);
    }
    return pMin;
  }

  /** Accounts a durable append in the head and tells the listeners. */
  private void published(long nowMs, long appended, long minTs, long maxTs) {
    if (headSamples == 0) {
      headSinceMs = nowMs;
    }
    headSamples += appended;
    if (maxTs > maxSeenMs) {
      maxSeenMs = maxTs;
    }
    for (AppendListener l : listeners) {
      try {
        l.appended(minTs, maxTs);
      } catch (RuntimeException e) {
        // A listener (a cache) failing must not fail a durable append.
        LOG.log(System.Logger.Level.WARNING, "append listener failed", e);
      }
    }
  }

  /**
   * Sets {@code ref.maxTimestampMs} after a restart from the head and the series' newest chunk
   * window. Under the append lock.
   */
  private void loadMaxTimestamp(SeriesRef ref) throws StorageException {
    long max = SeriesRef.NO_SAMPLES;
    synchronized (ref) {
      if (ref.head != null) {
        max = Math.max(max, ref.head.maxTimestampMs());
      }
    }
    if (ref.presenceDay != Long.MIN_VALUE) {
      long dayStart = ref.presenceDay * 86_400_000L;
      SampleRun run = new SampleRun(512);
      rocks.partitionLock.readLock().lock();
      try {
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, dayStart);
        if (cf != null) {
          long lastChunk = Long.MIN_VALUE;
          try (RocksIterator it = rocks.db.newIterator(cf)) {
            it.seekForPrev(Keys.dataKey(ref.id, Long.MAX_VALUE));
            if (it.isValid() && it.key()[0] == Keys.PREFIX_DATA
                && Keys.keySeriesId(it.key()) == ref.id) {
              lastChunk = Keys.keyTimestampMs(it.key());
            }
            it.status();
          }
          if (lastChunk != Long.MIN_VALUE) {
            long ws = windowStart(lastChunk);
            readChunks(cf, ref.id, ws, ws + WINDOW_MS - 1, run, false);
          }
        }
      } catch (RocksDBException e) {
        throw new StorageException("reading the newest chunk of " + ref + " failed: "
            + e.getMessage(), e);
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      for (int i = 0; i < run.size(); i++) {
        max = Math.max(max, run.timestampMs(i));
      }
    }
    ref.maxTimestampMs = max;
    ref.maxKnown = true;
  }

  /**
   * @return the raw bits stored for {@code ts} in the series' head or chunks, or null. Checks the
   *     head before the chunks, so a concurrent flush moving samples from one to the other cannot
   *     hide a sample (it writes the chunks before it drops them from the head).
   */
  private Long storedBits(SeriesRef ref, long ts, Map<WindowKey, CachedWindow> cache)
      throws RocksDBException {
    synchronized (ref) {
      if (ref.head != null) {
        Long b = ref.head.bitsAt(ts);
        if (b != null) {
          return b;
        }
      }
    }
    // Read after the head check: if a flush dropped samples from the head since, the epoch moved.
    long epoch = chunkEpoch;
    long ws = windowStart(ts);
    WindowKey key = new WindowKey(ref.id, ws);
    CachedWindow cached = cache.get(key);
    SampleRun run = cached != null && cached.epoch == epoch ? cached.run : null;
    if (run == null) {
      run = new SampleRun(64);
      rocks.partitionLock.readLock().lock();
      try {
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, ws);
        if (cf != null) {
          readChunks(cf, ref.id, ws, ws + WINDOW_MS - 1, run, false);
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      run.sortAndDedupe();
      cache.put(key, new CachedWindow(epoch, run));
    }
    int i = java.util.Arrays.binarySearch(run.timestampsArray(), 0, run.size(), ts);
    return i >= 0 ? run.valueBits(i) : null;
  }

  private void putSeries(WriteBatch batch, SeriesRef ref) throws RocksDBException {
    // The one durable form of the index: label sets by id. Lookups by labels and postings
    // live in memory, rebuilt from it at open.
    batch.put(rocks.seriesById, Keys.be64(ref.id), ref.labels.encode());
  }

  /**
   * @return the value for a person and its raw bits, which decide conflicts: "42.0
   *     (0x4045000000000000)", "stale marker (0x7ff0000000000002)", "NaN (0x7ff8000000000000)"
   */
  private static String shownValue(long bits) {
    double v = Double.longBitsToDouble(bits);
    String shown = bits == RollupBlock.STALE_NAN_BITS ? "stale marker" : Double.toString(v);
    return shown + " (" + String.format("0x%016x", bits) + ")";
  }

  private static long saturatedSubtract(long a, long b) {
    long r = a - b;
    // Overflow only when the signs of a and b differ and the result's sign differs from a's.
    return ((a ^ b) & (a ^ r)) < 0 ? Long.MIN_VALUE : r;
  }

  /** @return the start of the chunk window holding {@code ts}, milliseconds */
  static long windowStart(long ts) {
    return Math.floorDiv(ts, WINDOW_MS) * WINDOW_MS;
  }

  // ---------------------------------------------------------------------------------------------
  // Head flush and window finalization

  /** Schedules a head flush unless one is already queued; under the append lock. */
  private Future<?> requestFlush() {
    if (pendingFlush == null || pendingFlush.isDone()) {
      try {
        pendingFlush = background.submit(() -> {
          try {
            flushHead();
          } catch (StorageException e) {
            LOG.log(System.Logger.Level.ERROR, "head flush failed; the head log keeps the"
                + " samples and the next flush retries", e);
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        // close() stopped the background thread: the head log keeps the samples for next open.
        return java.util.concurrent.CompletableFuture.completedFuture(null);
      }
    }
    return pendingFlush;
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // Logged by the task itself.
    }
  }

  /** The periodic background work: flush an old head, finalize closed windows. */
  private void backgroundTick() {
    try {
      if (closed) {
        return;
      }
      boolean old;
      appendLock.lock();
      try {
        old = headSamples > 0 && clock.millis() - headSinceMs >= HEAD_MAX_AGE_MS;
      } finally {
        appendLock.unlock();
      }
      if (old) {
        flushHead();
      }
      finalizeWindows(false);
    } catch (StorageException | RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "background head flush or finalization failed", e);
    }
  }

  /**
   * Moves every head sample into chunks: marks a cut in each series' head buffer under the append
   * lock (a few milliseconds for 100,000 series), encodes the samples before the cut into chunks
   * cut at {@link #WINDOW_MS}, writes the chunks and the windows to finalize in RocksDB batches of
   * about 200,000 samples, the last of which truncates the head log (a crash before it replays
   * samples already in chunks; finalization drops such duplicates), and then drops those samples
   * from the head. Appends go on meanwhile, into the same buffers after the cut: one buffer per
   * series instead of a second one per series for the flush (~27 MB of heap at 100,000 series).
   * A series whose buffer stayed empty since the last flush gives it up.
   * Samples older than the retention horizon are dropped instead of written. Reads see the
   * samples throughout, in the head until the chunks are written.
   *
   * @throws StorageException if RocksDB fails or the store is closed; the samples then stay in
   *     the head, and the log still holds them
   */
  public void flushHead() throws StorageException {
    lifecycle.readLock().lock();
    flushLock.lock();
    try {
      ensureOpen();
      List<SeriesRef> refs = new ArrayList<>();
      int[] cuts = new int[64];
      long seqCut;
      appendLock.lock();
      try {
        seqCut = nextLogSeq;
        for (SeriesRef ref : index.all()) {
          synchronized (ref) {
            HeadBuffer head = ref.head;
            if (head == null) {
              continue;
            }
            if (head.size() == 0) {
              ref.head = null; // idle since the last flush: a churned-away series frees it
              continue;
            }
            if (refs.size() == cuts.length) {
              cuts = java.util.Arrays.copyOf(cuts, 2 * cuts.length);
            }
            cuts[refs.size()] = head.cut();
            refs.add(ref);
          }
        }
        flushingSamples = headSamples;
        headSamples = 0;
        headSinceMs = Long.MAX_VALUE;
      } finally {
        appendLock.unlock();
      }
      if (refs.isEmpty()) {
        return;
      }
      boolean merging = headMayOverlapChunks;
      try {
        writeChunks(refs, cuts, seqCut, merging);
      } catch (RocksDBException | RuntimeException e) {
        headMayOverlapChunks = true; // batches before the failure may be written
        restoreFlushing(refs);
        throw new StorageException("head flush of " + refs.size() + " series failed, the head"
            + " log keeps their samples: " + e.getMessage(), e);
      }
      boolean dropped = false;
      try {
        for (int i = 0, n = refs.size(); i < n; i++) {
          SeriesRef ref = refs.get(i);
          synchronized (ref) {
            ref.head.dropFirst(cuts[i]); // only this thread sets a flushed ref's head to null
          }
        }
        dropped = true;
      } finally {
        // Samples left in the head are in chunks too: the next flush must merge, not put.
        headMayOverlapChunks = !dropped || (headMayOverlapChunks && !merging);
      }
      flushingSamples = 0;
      compactTruncatedLog(seqCut);
    } finally {
      flushLock.unlock();
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Log records usually die in the memtable (the range delete of a flush covers them before it
   * is written out), but a memtable flushed between two head flushes puts records in an SST
   * file, where they would stay until RocksDB happens to compact it. Compacting the truncated
   * range drops them at once (measured: 19 MB of a 34 MB store after the s2k-2880 bench).
   */
  private void compactTruncatedLog(long seqCut) {
    try {
      if (rocks.db.getLongProperty(rocks.headLog, "rocksdb.total-sst-files-size") > 0) {
        rocks.db.compactRange(rocks.headLog, Keys.be64(0), Keys.be64(seqCut));
      }
    } catch (RocksDBException e) {
      LOG.log(System.Logger.Level.WARNING, "compacting the truncated head log failed; RocksDB"
          + " will drop the records in a later compaction", e);
    }
  }

  /** Counts the samples of a failed flush, which stayed in the head, as head samples again. */
  private void restoreFlushing(List<SeriesRef> refs) {
    appendLock.lock();
    try {
      for (SeriesRef ref : refs) {
        synchronized (ref) {
          ref.head.uncut();
        }
      }
      headSamples += flushingSamples;
      headSinceMs = Math.min(headSinceMs, clock.millis());
      flushingSamples = 0;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Series ids and window starts of the chunks a head flush writes, marked unfinalized once the
   * batch is durable; reused across flushes (guarded by {@link #flushLock}) instead of an object
   * per chunk that lived through the whole flush (100,000 per flush on the 100,000-series bench).
   */
  private long[] flushWindowIds = new long[1024];
  private long[] flushWindowStarts = new long[1024];

  private void writeChunks(List<SeriesRef> refs, int[] cuts, long seqCut, boolean merging)
      throws RocksDBException {
    FlushScratch f = new FlushScratch(saturatedSubtract(clock.millis(), options.retentionMs()));
    rocks.partitionLock.readLock().lock();
    try (WriteBatch batch = new WriteBatch()) {
      // Deleted again by the last batch; when that is the first, the delete wins.
      batch.put(rocks.meta, Keys.META_FLUSH_PARTIAL, Keys.be64(seqCut));
      for (int i = 0, n = refs.size(); i < n; i++) {
        SeriesRef ref = refs.get(i);
        f.samplesInBatch += merging ? flushSeriesMerging(batch, f, ref, cuts[i])
            : flushSeries(batch, f, ref, cuts[i]);
        if (f.samplesInBatch >= FLUSH_BATCH_SAMPLES) {
          if (beforeFlushBatch != null) {
            beforeFlushBatch.run();
          }
          writeFlushBatch(batch, f);
        }
      }
      for (Map.Entry<Long, Long> e : f.addedPerPartition.entrySet()) {
        AtomicLong c = partitionSamples.computeIfAbsent(e.getKey(), k -> new AtomicLong());
        long total = c.addAndGet(e.getValue());
        batch.put(rocks.partitionForWrite(PartitionKind.CHUNKS, e.getKey()),
            Keys.PARTITION_SAMPLE_COUNT, Keys.be64(total));
      }
      batch.deleteRange(rocks.headLog, Keys.be64(0), Keys.be64(seqCut));
      batch.put(rocks.meta, Keys.META_LOG_FLOOR, Keys.be64(seqCut));
      batch.delete(rocks.meta, Keys.META_FLUSH_PARTIAL);
      writeFlushBatch(batch, f);
    } finally {
      rocks.partitionLock.readLock().unlock();
    }
  }

  /**
   * Samples per head-flush write batch. A flush of the 100,000-series bench's 2 M head samples
   * made one native batch of ~15 MB (its buffer grows by doubling) and a memtable insert of as
   * much; pieces of this size keep both to a few MB. Pieces are safe: the head log is truncated
   * only by the last one, and a crash or failure before it replays samples that are already in
   * chunks, which finalization merges away as duplicates.
   */
  static final int FLUSH_BATCH_SAMPLES = 200_000;

  /** Tests only: runs before each head-flush batch but the last is written (may throw). */
  volatile Runnable beforeFlushBatch;

  /** Writes one piece of a head flush and publishes its windows as unfinalized. */
  private void writeFlushBatch(WriteBatch batch, FlushScratch f) throws RocksDBException {
    if (batch.count() > 0) {
      rocks.db.write(rocks.writeOptions, batch);
      batch.clear();
    }
    chunkEpoch++;
    for (int i = 0; i < f.windows; i++) {
      unfinalized.add(flushWindowIds[i], flushWindowStarts[i]);
    }
    f.windows = 0;
    f.samplesInBatch = 0;
    for (int i = 0; i < f.presenceCount; i++) {
      SeriesRef ref = f.presenceRefs[i];
      ref.presenceDay = Math.max(ref.presenceDay, f.presenceDays[i]);
      f.presenceRefs[i] = null;
    }
    f.presenceCount = 0;
  }

  /** Scratch state of one {@link #writeChunks} call. */
  private static final class FlushScratch {
    final long horizonMs;
    final ChunkCodec codec = new ChunkCodec();
    final Map<Long, Long> addedPerPartition = new HashMap<>();
    long[] ts = new long[256];
    long[] bits = new long[256];
    /** Windows of the current batch, in {@link #flushWindowIds} / {@link #flushWindowStarts}. */
    int windows;
    int samplesInBatch;
    /** Presence keys put in the current batch: (series, day) pairs, applied once it is written. */
    SeriesRef[] presenceRefs = new SeriesRef[64];
    long[] presenceDays = new long[64];
    int presenceCount;

    FlushScratch(long horizonMs) {
      this.horizonMs = horizonMs;
    }

    /** @return whether the batch's last presence key was this series' for this day */
    boolean lastPresence(SeriesRef ref, long day) {
      int last = presenceCount - 1;
      return last >= 0 && presenceRefs[last] == ref && presenceDays[last] == day;
    }

    void addPresence(SeriesRef ref, long day) {
      if (presenceCount == presenceRefs.length) {
        presenceRefs = java.util.Arrays.copyOf(presenceRefs, 2 * presenceCount);
        presenceDays = java.util.Arrays.copyOf(presenceDays, 2 * presenceCount);
      }
      presenceRefs[presenceCount] = ref;
      presenceDays[presenceCount] = day;
      presenceCount++;
    }
  }

  /**
   * Cuts the first {@code n} head samples of one series (those before the flush's cut) into a
   * chunk per window and adds them to the batch. Kept apart from {@link #writeChunks} (and the
   * cut loop in {@link #chunkEnd}) so that C2 compiles it once as a method instead of
   * on-stack-replacing the flush loop several times.
   */
  private int flushSeries(WriteBatch batch, FlushScratch f, SeriesRef ref, int n)
      throws RocksDBException {
    if (n > f.ts.length) {
      f.ts = new long[Math.max(n, 2 * f.ts.length)];
      f.bits = new long[f.ts.length];
    }
    long[] ts = f.ts;
    long[] bits = f.bits;
    synchronized (ref) { // appends go on after the cut
      ref.head.decodePrefix(n, ts, bits);
    }
    int from = 0;
    while (from < n) {
      long ws = windowStart(ts[from]);
      int to = chunkEnd(ts, from, n, ws + WINDOW_MS);
      if (ts[to - 1] >= f.horizonMs) {
        // Retention runs by whole partitions; a few samples before the horizon are kept.
        writeChunk(batch, f, ref, ts, bits, from, to, ws);
        noteWindow(f, ref, ws, to - from);
      }
      from = to;
    }
    return n;
  }

  /** Counts a flushed window's samples and remembers it for finalization. */
  private void noteWindow(FlushScratch f, SeriesRef ref, long ws, int samples) {
    f.addedPerPartition.merge(PartitionKind.CHUNKS.partitionStart(ws), (long) samples,
        Long::sum);
    int w = f.windows;
    if (w == flushWindowIds.length) {
      flushWindowIds = java.util.Arrays.copyOf(flushWindowIds, 2 * w);
      flushWindowStarts = java.util.Arrays.copyOf(flushWindowStarts, 2 * w);
    }
    flushWindowIds[w] = ref.id;
    flushWindowStarts[w] = ws;
    f.windows = w + 1;
  }

  /**
   * {@link #flushSeries} when the head may hold samples that are in chunks already
   * ({@link #headMayOverlapChunks}): each window's head samples are merged with the window's
   * stored chunks, which are deleted, and written again as chunks of at most
   * {@link ChunkCodec#MAX_SAMPLES}, as finalization does. One seek per series and window, only in
   * the first flush after a failed or cut-short one.
   */
  private int flushSeriesMerging(WriteBatch batch, FlushScratch f, SeriesRef ref, int n)
      throws RocksDBException {
    long[] ts = new long[n];
    long[] bits = new long[n];
    synchronized (ref) {
      ref.head.decodePrefix(n, ts, bits);
    }
    SampleRun run = new SampleRun(64);
    List<byte[]> keys = new ArrayList<>();
    int from = 0;
    while (from < n) {
      long ws = windowStart(ts[from]);
      int to = from + 1;
      while (to < n && ts[to] < ws + WINDOW_MS) {
        to++;
      }
      if (ts[to - 1] >= f.horizonMs) {
        run.clear();
        keys.clear();
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, ws);
        if (cf != null) {
          readChunks(cf, ref.id, ws, ws + WINDOW_MS - 1, run, false, keys);
          for (byte[] k : keys) {
            batch.delete(cf, k); // a put of the same key later in the batch wins
          }
        }
        for (int i = from; i < to; i++) {
          run.add(ts[i], bits[i]);
        }
        run.sortAndDedupe();
        long[] t = run.timestampsArray();
        long[] b = run.valuesArray();
        for (int p = 0; p < run.size(); p += ChunkCodec.MAX_SAMPLES) {
          int q = Math.min(run.size(), p + ChunkCodec.MAX_SAMPLES);
          writeChunk(batch, f, ref, t, b, p, q, ws);
        }
        noteWindow(f, ref, ws, to - from);
      }
      from = to;
    }
    return n;
  }

  /**
   * @return the end (exclusive) of the chunk starting at {@code from}: the first sample at or
   *     after {@code windowEndMs}, or {@link ChunkCodec#MAX_SAMPLES} samples on, or {@code n}
   */
  private static int chunkEnd(long[] ts, int from, int n, long windowEndMs) {
    int limit = Math.min(n, from + ChunkCodec.MAX_SAMPLES);
    int to = from + 1;
    while (to < limit && ts[to] < windowEndMs) {
      to++;
    }
    return to;
  }

  private void writeChunk(WriteBatch batch, FlushScratch f, SeriesRef ref, long[] ts,
      long[] bits, int from, int to, long ws) throws RocksDBException {
    ChunkCodec codec = f.codec;
    long[] t = from == 0 ? ts : java.util.Arrays.copyOfRange(ts, from, to);
    long[] b = from == 0 ? bits : java.util.Arrays.copyOfRange(bits, from, to);
    ColumnFamilyHandle cf = rocks.partitionForWrite(PartitionKind.CHUNKS, ws);
    int n = to - from;
    // Short pieces are almost always fragments that finalization merges and re-encodes: skip the
    // search for the smallest value coding for them (it costs more than the bytes it saves).
    byte[] chunk = n < FAST_ENCODE_BELOW ? codec.encodeFast(t, b, n) : codec.encode(t, b, n);
    batch.put(cf, Keys.dataKey(ref.id, t[0]), chunk);
    // A window still marked (in memory, so its stored mark too) needs no second mark: every
    // flush of a live series hits the same window, and these puts were half of a flush's
    // records. Finalization deletes a stored mark only under flushLock, which this flush holds.
    if (!unfinalized.contains(ref.id, ws)) {
      batch.put(cf, Keys.unfinalizedKey(ref.id, ws), Keys.empty());
    }
    long day = Math.floorDiv(ws, 86_400_000L);
    if (ref.presenceDay != day && !f.lastPresence(ref, day)) {
      batch.put(cf, Keys.presentKey(ref.id), Keys.empty());
      // Remembered on the series only once the batch is written (writeFlushBatch): a failed
      // write must not leave the series believing its presence key is stored.
      f.addPresence(ref, day);
    }
  }

  /**
   * Finalizes windows whose chunks changed since they were last finalized: merges each window's
   * chunks into one (dropping any sample a crash replay wrote twice) and writes its 5-minute and
   * 1-hour rollups. Only closed windows (ended {@link #CLOSE_GRACE_MS} before the newest sample
   * and before now), unless {@code all}.
   *
   * @param all finalize open windows too (tests, benchmarks, {@link #flush()})
   * @return how many windows were finalized
   * @throws StorageException if RocksDB fails or the store is closed; windows not yet written
   *     stay pending
   */
  public int finalizeWindows(boolean all) throws StorageException {
    lifecycle.readLock().lock();
    finalizeLock.lock();
    try {
      ensureOpen();
      long closedBefore = Math.min(maxSeenMs, clock.millis()) - CLOSE_GRACE_MS;
      // Ordered by window start, then series id.
      List<WindowKey> due =
          unfinalized.upTo(all ? Long.MAX_VALUE : saturatedSubtract(closedBefore, WINDOW_MS));
      ChunkCodec codec = new ChunkCodec();
      for (int from = 0; from < due.size(); from += FINALIZE_BATCH_WINDOWS) {
        List<WindowKey> part = due.subList(from, Math.min(due.size(), from + FINALIZE_BATCH_WINDOWS));
        // Cleared before reading: a flush that adds a chunk meanwhile marks the window again.
        for (WindowKey w : part) {
          unfinalized.remove(w.seriesId(), w.windowStartMs());
        }
        try {
          finalizeBatch(part, codec);
        } catch (RocksDBException | RuntimeException e) {
          for (WindowKey w : part) {
            unfinalized.add(w.seriesId(), w.windowStartMs());
          }
          throw new StorageException("finalizing " + part.size() + " chunk windows failed: "
              + e.getMessage(), e);
        }
      }
      compactRewrittenPartitions();
      return due.size();
    } finally {
      finalizeLock.unlock();
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Records superseded by finalization since the last compaction, per partition: chunk fragments
   * merged into one, and 1-hour day blocks replaced by their merge with a newer window. Deleted
   * or overwritten bytes stay in SST files until a compaction: on the 100,000-series bench (12
   * fragments a window) the settled store was 2.7 times its compacted size, and its 1-hour
   * partition, written once per window, settled at 7.7 MB against 3.1 MB compacted when RocksDB
   * happened not to compact it. A partition is compacted after the pass once its superseded
   * records reach half its estimated keys (RocksDB's {@code rocksdb.estimate-num-keys}), and at
   * least {@link #COMPACT_AFTER_REWRITES}: then about a third or more of its bytes are garbage,
   * so the extra writing stays within a few times the data written, for 2,000 series as for
   * 100,000 (a fixed 100,000 never compacted the s2k-2880 bench's 12,000 rewritten chunks, whose
   * settled store stayed 19 % over its compacted size). A 1-hour partition grows by a day block
   * per series a day while every window supersedes one, so it is compacted about every
   * {@code days/2} passes: about two days' worth of 1-hour blocks rewritten per pass.
   */
  private final Map<ColumnFamilyHandle, Long> rewrittenRecords = new HashMap<>();

  /** Fewest rewritten chunks that make a partition worth compacting after a finalization pass. */
  private static final long COMPACT_AFTER_REWRITES = 1_000;

  private void compactRewrittenPartitions() {
    rocks.partitionLock.readLock().lock();
    try (CompactRangeOptions co = new CompactRangeOptions()
        .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
      java.util.Set<ColumnFamilyHandle> live = new java.util.HashSet<>(rocks.allPartitions());
      var it = rewrittenRecords.entrySet().iterator();
      while (it.hasNext()) {
        var e = it.next();
        if (!live.contains(e.getKey())) {
          it.remove(); // dropped by retention
        } else if (e.getValue() >= COMPACT_AFTER_REWRITES && e.getValue()
            >= rocks.db.getLongProperty(e.getKey(), "rocksdb.estimate-num-keys") / 2) {
          rocks.db.compactRange(e.getKey(), null, null, co);
          it.remove();
        }
      }
    } catch (RocksDBException e) {
      LOG.log(System.Logger.Level.WARNING, "compacting finalized partitions failed; RocksDB"
          + " will reclaim the space in later compactions", e);
    } finally {
      rocks.partitionLock.readLock().unlock();
    }
  }

  private void finalizeBatch(List<WindowKey> windows, ChunkCodec codec) throws RocksDBException {
    // Lock order as in flushHead: flushLock, then the partition read lock (a queued retention
    // drop would otherwise block one of two threads holding the other lock).
    flushLock.lock();
    rocks.partitionLock.readLock().lock();
    // One iterator per partition for the whole batch (windows come sorted by start). Created
    // after the batch's marks were cleared, so it sees every chunk whose mark was cleared.
    Map<ColumnFamilyHandle, RocksIterator> iterators = new HashMap<>();
    List<WindowKey> marks = new ArrayList<>();
    try (WriteBatch batch = new WriteBatch()) {
      SampleRun run = new SampleRun(1024);
      List<byte[]> keys = new ArrayList<>();
      for (WindowKey w : windows) {
        long ws = w.windowStartMs();
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, ws);
        if (cf == null) {
          continue; // dropped by retention meanwhile
        }
        run.clear();
        keys.clear();
        RocksIterator it = iterators.computeIfAbsent(cf, rocks.db::newIterator);
        int chunks = readChunks(it, w.seriesId(), ws, ws + WINDOW_MS - 1, run, false, keys);
        marks.add(w);
        if (chunks == 0) {
          continue;
        }
        int before = run.size();
        run.sortAndDedupe();
        if (chunks > 1 || run.size() != before) {
          for (byte[] k : keys) {
            batch.delete(cf, k);
          }
          rewrittenRecords.merge(cf, (long) keys.size(), Long::sum);
          long[] ts = run.timestampsArray();
          long[] bits = run.valuesArray();
          for (int from = 0; from < run.size(); from += ChunkCodec.MAX_SAMPLES) {
            int to = Math.min(run.size(), from + ChunkCodec.MAX_SAMPLES);
            long[] t = java.util.Arrays.copyOfRange(ts, from, to);
            long[] b = java.util.Arrays.copyOfRange(bits, from, to);
            // A put after a delete of the same key in one batch wins: the merged chunk stays.
            batch.put(cf, Keys.dataKey(w.seriesId(), t[0]), codec.encode(t, b, to - from));
          }
        }
        RollupBlock r5 = RollupBlock.compute(run.timestampsArray(), run.valuesArray(), run.size(),
            Resolution.FIVE_MINUTES.intervalMs());
        batch.put(rocks.partitionForWrite(PartitionKind.ROLLUP_5M, ws),
            Keys.dataKey(w.seriesId(), ws), r5.encode(codec));
        RollupBlock r1 = RollupBlock.compute(run.timestampsArray(), run.valuesArray(), run.size(),
            Resolution.ONE_HOUR.intervalMs());
        long day = Math.floorDiv(ws, 86_400_000L) * 86_400_000L;
        ColumnFamilyHandle hourCf = rocks.partitionForWrite(PartitionKind.ROLLUP_1H, day);
        byte[] dayKey = Keys.dataKey(w.seriesId(), day);
        byte[] old = pendingDayBlocks.get(new WindowKey(w.seriesId(), day));
        if (old == null) {
          old = rocks.db.get(hourCf, dayKey);
          if (old != null) {
            // The stored day block is superseded (one in this batch is not: a memtable flush
            // keeps only its newest version).
            rewrittenRecords.merge(hourCf, 1L, Long::sum);
          }
        }
        RollupBlock merged = old == null ? r1 : RollupBlock.decode(old).mergedWith(r1);
        byte[] enc = merged.encode(codec);
        pendingDayBlocks.put(new WindowKey(w.seriesId(), day), enc);
        batch.put(hourCf, dayKey, enc);
      }
      // A head flush writes chunks and their marks under flushLock, which this batch holds: a
      // mark a flush put back since the pass cleared it is kept.
      for (WindowKey w : marks) {
        if (!unfinalized.contains(w.seriesId(), w.windowStartMs())) {
          ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, w.windowStartMs());
          if (cf != null) {
            batch.delete(cf, Keys.unfinalizedKey(w.seriesId(), w.windowStartMs()));
          }
        }
      }
      rocks.db.write(rocks.writeOptions, batch);
    } finally {
      for (RocksIterator it : iterators.values()) {
        it.close();
      }
      pendingDayBlocks.clear();
      rocks.partitionLock.readLock().unlock();
      flushLock.unlock();
    }
  }

  /** Day blocks of 1 h rollups written earlier in the same finalize batch (not yet readable). */
  private final Map<WindowKey, byte[]> pendingDayBlocks = new HashMap<>();

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** Chunk decode scratch of one reading thread. */
  private static final ThreadLocal<long[][]> SCRATCH = ThreadLocal.withInitial(
      () -> new long[][] {new long[ChunkCodec.MAX_SAMPLES], new long[ChunkCodec.MAX_SAMPLES]});

  private int readChunks(ColumnFamilyHandle cf, long id, long startMs, long endMs, SampleRun out,
      boolean firstOnly) throws RocksDBException {
    return readChunks(cf, id, startMs, endMs, out, firstOnly, null);
  }

  /**
   * Decodes the chunks of series {@code id} in one partition that may hold samples in
   * {@code [startMs, endMs]} and appends those samples to {@code out}.
   *
   * @param firstOnly stop after the first chunk that contributed a sample (existence checks)
   * @param keysOut if not null, receives the key of every chunk read
   * @return the number of chunks read
   */
  private int readChunks(ColumnFamilyHandle cf, long id, long startMs, long endMs, SampleRun out,
      boolean firstOnly, List<byte[]> keysOut) throws RocksDBException {
    try (RocksIterator it = rocks.db.newIterator(cf)) {
      return readChunks(it, id, startMs, endMs, out, firstOnly, keysOut);
    }
  }

  /**
   * As above with an iterator over the partition, reused across series: one iterator per
   * partition per read instead of one per series (iterator creation costs microseconds, which adds
   * up over thousands of series).
   */
  private static int readChunks(RocksIterator it, long id, long startMs, long endMs,
      SampleRun out, boolean firstOnly, List<byte[]> keysOut) throws RocksDBException {
    byte[] upper = endMs == Long.MAX_VALUE ? Keys.dataKey(id + 1, Long.MIN_VALUE)
        : Keys.dataKey(id, endMs + 1);
    long[][] scratch = SCRATCH.get();
    int chunks = 0;
    for (it.seek(Keys.dataKey(id, windowStart(startMs))); it.isValid(); it.next()) {
      byte[] key = it.key();
      if (java.util.Arrays.compareUnsigned(key, upper) >= 0) {
        break;
      }
      int n = ChunkCodec.decode(it.value(), scratch[0], scratch[1]);
      chunks++;
      if (keysOut != null) {
        keysOut.add(key);
      }
      int before = out.size();
      out.addRange(scratch[0], scratch[1], n, startMs, endMs);
      if (firstOnly && out.size() > before) {
        break;
      }
    }
    it.status();
    return chunks;
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
  private interface RunVisitor {
    void visit(SeriesRef ref, SampleRun run);
  }

  /**
   * Resolves the matchers, skips series whose time bounds miss the range, and visits every
   * remaining series with a sample in {@code [startMs, endMs]}: head first, then the chunk
   * partitions of the range, oldest first.
   */
  private void scan(List<Matcher> matchers, long startMsIn, long endMsIn, boolean existsOnly,
      RunVisitor visitor) throws StorageException {
    long startMs = Math.max(startMsIn, -MAX_ABS_TIMESTAMP_MS);
    long endMs = Math.min(endMsIn, MAX_ABS_TIMESTAMP_MS);
    lifecycle.readLock().lock();
    try {
      ensureOpen();
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
      SampleRun[] runs = new SampleRun[refs.size()];
      boolean[] found = new boolean[refs.size()];
      for (int i = 0; i < refs.size(); i++) {
        SeriesRef ref = refs.get(i);
        SampleRun run = new SampleRun(16);
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
            rocks.partitions(PartitionKind.CHUNKS, windowStart(startMs), endMs).values()) {
          try (RocksIterator it = rocks.db.newIterator(cf)) {
            for (int i = 0; i < refs.size(); i++) {
              if (existsOnly && found[i]) {
                continue;
              }
              readChunks(it, refs.get(i).id, startMs, endMs, runs[i], existsOnly, null);
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
    } catch (RocksDBException e) {
      throw new StorageException("reading samples for " + matchers + " in [" + startMs + ", "
          + endMs + "] ms failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
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
    long startMs = Math.max(startMsIn, -MAX_ABS_TIMESTAMP_MS);
    long endMs = Math.min(endMsIn, MAX_ABS_TIMESTAMP_MS);
    long iv = resolution.intervalMs();
    long from = Math.floorDiv(startMs, iv) * iv;
    List<RollupSeries> out = new ArrayList<>();
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      if (endMs < startMs) {
        return out;
      }
      List<SeriesRef> refs = index.resolve(matchers);
      RollupBlock.Builder[] builders = new RollupBlock.Builder[refs.size()];
      long[] coveredUntil = new long[refs.size()];
      java.util.Arrays.fill(coveredUntil, Long.MIN_VALUE);
      PartitionKind kind = resolution.partitions;
      // 5 m blocks are keyed by window start, 1 h blocks by day start.
      long blockMs = resolution == Resolution.FIVE_MINUTES ? WINDOW_MS : 86_400_000L;
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
                      windowStart(b.starts[k]) + WINDOW_MS);
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
          rawFrom = Math.max(from, Math.min(rawFrom, windowStart(headMin)));
        }
        if (rawFrom > endMs || !ref.mayHaveSamples(rawFrom, endMs)) {
          continue;
        }
        List<Series> raw = new ArrayList<>();
        scanRefs(List.of(ref), rawFrom, endMs, (r, run) -> raw.add(
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

  /** {@link #scan} for known refs, under the caller's lifecycle read lock. */
  private void scanRefs(List<SeriesRef> refs, long startMs, long endMs, RunVisitor visitor)
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
            rocks.partitions(PartitionKind.CHUNKS, windowStart(startMs), endMs).values()) {
          readChunks(cf, ref.id, startMs, endMs, run, false);
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

  // ---------------------------------------------------------------------------------------------
  // Statistics and maintenance

  /**
   * @return the number of series in the index, including series whose samples retention removed
   *     (their rollups may outlive them)
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
   * @return stored raw samples: the head plus what head flushes wrote to the chunk partitions
   *     still kept; an estimate, since a crash between a flush and the log truncation counts
   *     the replayed samples twice until their window is finalized
   * @throws StorageException if the store is closed
   */
  public long sampleCountEstimate() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      long total = flushingSamples;
      appendLock.lock();
      try {
        total += headSamples;
      } finally {
        appendLock.unlock();
      }
      for (AtomicLong c : partitionSamples.values()) {
        total += c.get();
      }
      return total;
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** @return samples in the head (appended, not yet in chunks), for metrics */
  public long headSampleCount() {
    return headSamples + flushingSamples;
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
   * Flushes the head into chunks, finalizes every pending window (rollups included, open windows
   * too) and flushes all RocksDB memtables to SST files, waiting for each. Not needed for
   * durability (the head log and RocksDB's WAL provide it); for measuring disk size, backups and
   * tests.
   *
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void flush() throws StorageException {
    flushHead();
    finalizeWindows(true);
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      rocks.partitionLock.readLock().lock();
      try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
        rocks.db.flush(fo, rocks.allColumnFamilies());
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
    } catch (RocksDBException e) {
      throw new StorageException("flush failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private static final String BLOCK_CACHE_USAGE = "rocksdb.block-cache-usage";

  /**
   * RocksDB properties reported by {@link #rocksProperties()}, each summed over every column
   * family (fixed and partitions): live SST bytes, memtable bytes (active and immutable), block
   * cache usage, estimated keys (chunks, rollup blocks, head-log records and index entries), and
   * bytes compaction still has to rewrite. The block cache is one cache shared by every column
   * family, whose property each column family reports whole, so it is read once, not summed; it
   * includes the memtable memory that the write buffer manager charges to the cache.
   */
  public static final List<String> ROCKS_PROPERTIES = List.of(
      "rocksdb.total-sst-files-size",
      "rocksdb.cur-size-all-mem-tables",
      BLOCK_CACHE_USAGE,
      "rocksdb.estimate-num-keys",
      "rocksdb.estimate-pending-compaction-bytes");

  /**
   * @return each of {@link #ROCKS_PROPERTIES} summed over all column families, by name, in that
   *     order; cheap (in-memory counters), suitable for gauges
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public Map<String, Long> rocksProperties() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      Map<String, Long> out = new LinkedHashMap<>();
      rocks.partitionLock.readLock().lock();
      try {
        List<ColumnFamilyHandle> cfs = rocks.allColumnFamilies();
        for (String name : ROCKS_PROPERTIES) {
          long sum = 0;
          if (name.equals(BLOCK_CACHE_USAGE)) {
            sum = rocks.db.getLongProperty(cfs.get(0), name); // shared: summing counted it N times
          } else {
            for (ColumnFamilyHandle cf : cfs) {
              sum += rocks.db.getLongProperty(cf, name);
            }
          }
          out.put(name, sum);
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      return out;
    } catch (RocksDBException e) {
      throw new StorageException("reading RocksDB properties failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * {@link #flush()}, then compacts every column family fully into its bottommost level
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
      rocks.partitionLock.readLock().lock();
      try (CompactRangeOptions co = new CompactRangeOptions()
          .setExclusiveManualCompaction(true)
          .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
        for (ColumnFamilyHandle cf : rocks.allColumnFamilies()) {
          rocks.db.compactRange(cf, null, null, co);
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
    } catch (RocksDBException e) {
      throw new StorageException("compaction failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Drops whole partitions past their retention: raw chunk days that ended at or before
   * {@code nowMs - retentionMs}, 5-minute rollup partitions before {@code nowMs -
   * rollup5mRetentionMs}, 1-hour ones before {@code nowMs - rollup1hRetentionMs}. A drop is a
   * metadata operation (no compaction); it waits for running reads of partitions but not for
   * appends, which never write to a partition older than the horizon. Series stay in the index
   * (their rollups may outlive their samples) and reads skip them by their time bounds.
   *
   * @param nowMs the current time in milliseconds
   * @return partitions dropped, all kinds
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public int enforceRetention(long nowMs) throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      int dropped = 0;
      for (long start : rocks.dropPartitionsBefore(PartitionKind.CHUNKS,
          saturatedSubtract(nowMs, options.retentionMs()))) {
        partitionSamples.remove(start);
        long end = start + PartitionKind.CHUNKS.lengthMs;
        unfinalized.removeWindows(start, end);
        dropped++;
      }
      dropped += rocks.dropPartitionsBefore(PartitionKind.ROLLUP_5M,
          saturatedSubtract(nowMs, options.rollup5mRetentionMs())).size();
      dropped += rocks.dropPartitionsBefore(PartitionKind.ROLLUP_1H,
          saturatedSubtract(nowMs, options.rollup1hRetentionMs())).size();
      return dropped;
    } catch (RocksDBException e) {
      throw new StorageException("dropping partitions before retention failed: "
          + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Bytes RocksDB holds per kind of data: live SST files plus memtables, summed over the column
   * families of each kind. Keys: {@code chunks}, {@code rollup5m}, {@code rollup1h} (the
   * partitions), {@code head_log}, {@code index} (series, postings, meta). RocksDB's own files
   * (WAL, manifest, options) are not included; {@link #diskSizeBytes()} has everything.
   *
   * @return bytes by kind, in that order
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public Map<String, Long> bytesByKind() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      Map<String, Long> out = new LinkedHashMap<>();
      rocks.partitionLock.readLock().lock();
      try {
        for (PartitionKind k : PartitionKind.values()) {
          long sum = 0;
          for (ColumnFamilyHandle cf :
              rocks.partitions(k, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2).values()) {
            sum += cfBytes(cf);
          }
          out.put(k.prefix, sum);
        }
        out.put(Keys.CF_HEAD_LOG, cfBytes(rocks.headLog));
        long idx = 0;
        for (ColumnFamilyHandle cf : rocks.fixedColumnFamilies) {
          if (cf != rocks.headLog) {
            idx += cfBytes(cf);
          }
        }
        out.put("index", idx);
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      return out;
    } catch (RocksDBException e) {
      throw new StorageException("reading RocksDB sizes failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private long cfBytes(ColumnFamilyHandle cf) throws RocksDBException {
    return rocks.db.getLongProperty(cf, "rocksdb.total-sst-files-size")
        + rocks.db.getLongProperty(cf, "rocksdb.cur-size-all-mem-tables");
  }

  /**
   * @return the column family names of the partitions, ascending per kind; for tests and the
   *     admin API
   * @throws StorageException if the store is closed
   */
  public List<String> partitionNames() throws StorageException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      List<String> out = new ArrayList<>();
      rocks.partitionLock.readLock().lock();
      try {
        for (PartitionKind k : PartitionKind.values()) {
          for (long start : rocks.partitions(k, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2)
              .keySet()) {
            out.add(k.name(start));
          }
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      return out;
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
   * Stops the background thread, waits for running calls, then closes the database and every
   * native handle exactly once. The head is not flushed: the head log replays it at the next
   * open. Later calls of this method do nothing; other methods throw {@link StorageException}.
   */
  @Override
  public void close() {
    background.shutdown();
    try {
      if (!background.awaitTermination(60, TimeUnit.SECONDS)) {
        background.shutdownNow();
      }
    } catch (InterruptedException e) {
      background.shutdownNow();
      Thread.currentThread().interrupt();
    }
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

  /**
   * Tests only: records (puts, deletes and overwrites, not keys) in the memtables of the chunk
   * partition holding {@code timestampMs}, 0 when it does not exist.
   */
  long chunkPartitionMemtableEntries(long timestampMs) throws RocksDBException {
    ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, timestampMs);
    return cf == null ? 0 : rocks.db.getLongProperty(cf, "rocksdb.num-entries-active-mem-table")
        + rocks.db.getLongProperty(cf, "rocksdb.num-entries-imm-mem-tables");
  }

  /**
   * Tests only: samples held by chunk records of every chunk partition, duplicates included
   * (what finalization has not merged yet).
   */
  long chunkSamplesStored() throws StorageException {
    long total = 0;
    rocks.partitionLock.readLock().lock();
    try {
      for (ColumnFamilyHandle cf : rocks.partitions(PartitionKind.CHUNKS, Long.MIN_VALUE / 4,
          Long.MAX_VALUE / 4).values()) {
        try (RocksIterator it = rocks.db.newIterator(cf)) {
          for (it.seek(new byte[] {Keys.PREFIX_DATA}); it.isValid(); it.next()) {
            if (it.key()[0] != Keys.PREFIX_DATA) {
              break;
            }
            total += ChunkCodec.count(it.value());
          }
        }
      }
    } finally {
      rocks.partitionLock.readLock().unlock();
    }
    return total;
  }

  /** @return whether every native handle was released, for tests */
  boolean nativeHandlesClosed() {
    return rocks.isClosed();
  }

  /** @return the partition sample counters by partition start, for tests */
  Map<Long, Long> partitionSampleCounts() {
    Map<Long, Long> out = new TreeMap<>();
    partitionSamples.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }
}
