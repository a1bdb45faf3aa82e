package io.inferlens.storage;

import io.inferlens.storage.chunk.ChunkCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.RocksDBException;

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
 * <p>This class keeps the lifecycle (open, close, the background thread) and wires the parts:
 * {@link HeadReplay} (open), {@link HeadAppender} (append), {@link HeadFlusher} (head to
 * chunks), {@link WindowFinalizer} (rollups, compaction policy), {@link ChunkQuerier} and
 * {@link RollupQuerier} (the {@link Querier} read side), {@link MetadataStore} (metric
 * metadata), {@link Retention} and
 * {@link StoreMaintenance}. Lock order: {@link StoreLocks}.
 *
 * <p>Thread safety: thread safe. Appends are serialized by one store-wide lock that makes the
 * conflict check and the write one step. Reads run concurrently with appends, flushes and each
 * other and see every append that returned before they started. Retention drops partitions under
 * a lock that waits for running reads but never for appends. {@link #close()} waits for running
 * calls; calls after it throw {@link StorageException}.
 */
public final class TimeSeriesStore
    implements SampleAppender, Querier, StoreStats, AutoCloseable {

  /** Rejections listed in full per append; the rest are only counted, to bound the response. */
  static final int MAX_LISTED_REJECTIONS = 10;

  /**
   * Chunk window: 2 hours, aligned to the epoch, as Prometheus' head blocks. No chunk spans two
   * windows, so a read of {@code [s, e]} starts at the window holding {@code s} and a window is
   * the unit of finalization. At a 15 s scrape interval a window is 480 samples, where the chunk
   * header costs about 0.04 B/sample (docs/BENCHMARKS.md, "Chunk encoding").
   */
  public static final long WINDOW_MS = 2 * 3_600_000L;

  /** A window is closed this long after its end, as seen by the newest appended sample: 10 min. */
  public static final long CLOSE_GRACE_MS = 10 * 60_000L;

  /** The head is flushed at the latest when its oldest unflushed append is this old: 15 min. */
  public static final long HEAD_MAX_AGE_MS = 15 * 60_000L;

  /**
   * Idle flush: when no append stored a sample for this long (5 s, one background period) and
   * the head holds at least {@link #IDLE_FLUSH_MIN_SAMPLES}, the head is flushed into chunks and
   * the memtables flushed, so that after a burst of ingest the data directory settles to the
   * chunks' size (about 1.5 B/sample) instead of the head log's (about 20 B/sample with the WAL).
   */
  public static final long IDLE_FLUSH_MS = 5_000;

  /**
   * Fewest head samples worth an idle flush: 50,000. Below it the head log and its WAL are about
   * 50,000 x 20 B = 1 MB, less than a RocksDB memtable, and a flush would write many small
   * chunks that finalization merges and re-encodes again.
   */
  public static final long IDLE_FLUSH_MIN_SAMPLES = 50_000;

  /**
   * Timestamps beyond ±2^62 ms (about ±146 million years) are refused, so that window and
   * partition arithmetic never overflows; read ranges are clamped to it.
   */
  public static final long MAX_ABS_TIMESTAMP_MS = 1L << 62;

  /** Samples per head-flush write batch; see {@link HeadFlusher#FLUSH_BATCH_SAMPLES}. */
  static final int FLUSH_BATCH_SAMPLES = HeadFlusher.FLUSH_BATCH_SAMPLES;

  /**
   * RocksDB properties reported by {@link #rocksProperties()}, each summed over every column
   * family; see {@link StoreMaintenance#ROCKS_PROPERTIES}.
   */
  public static final List<String> ROCKS_PROPERTIES = StoreMaintenance.ROCKS_PROPERTIES;

  private static final System.Logger LOG = System.getLogger(TimeSeriesStore.class.getName());

  /** A chunk window of one series: series id, window start in milliseconds. */
  record WindowKey(long seriesId, long windowStartMs) {}

  private final StoreCore core;
  private final HeadAppender appender;
  /** The head flusher; package-private for the tests' {@code beforeFlushBatch} hook. */
  final HeadFlusher flusher;
  private final WindowFinalizer finalizer;
  private final ChunkQuerier chunks;
  private final RollupQuerier rollups;
  private final MetadataStore metadata;
  private final JournalStore journal;
  private final Retention retention;
  private final StoreMaintenance maintenance;
  private final WriteHealth health;
  private final CardinalityStats cardinality;
  private final CardinalitySampler cardinalitySampler;
  /** The background thread; package-private so tests run its tick with a fake clock. */
  final StoreBackground background;

  private TimeSeriesStore(StoreOptions options, Clock clock, RocksHandles rocks,
      WriteHealth health, FreeSpaceFloor floor) {
    this.core = new StoreCore(options, clock, rocks, floor);
    this.health = health;
    this.flusher = new HeadFlusher(core);
    this.maintenance = new StoreMaintenance(core);
    this.finalizer = new WindowFinalizer(core);
    this.background = new StoreBackground(core, flusher, finalizer, maintenance);
    this.appender = new HeadAppender(core, background);
    this.chunks = new ChunkQuerier(core);
    this.rollups = new RollupQuerier(core, chunks);
    this.metadata = new MetadataStore(core);
    this.journal = new JournalStore(core);
    this.retention = new Retention(core);
    this.cardinality = new CardinalityStats(core);
    this.cardinalitySampler = new CardinalitySampler(core);
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
   * <p>With {@link StoreOptions#minFreeDiskBytes()} &gt; 0 and less than that free, the store
   * opens refusing writes, {@link #writeHealth()} saying why, until there is room again
   * ({@code FreeSpaceFloor}). An open itself needs some free space (32 KiB measured after a
   * stop at the floor, up to 16 MiB after memtable flushes failed on a full disk); without it it fails with a {@link StorageException} saying how
   * many bytes are free. A disk reserve file left by an earlier version is deleted first.
   *
   * @param options where and how
   * @param clock the source of "now" (milliseconds) for the retention check in {@link #append},
   *     the head's age and idleness, and closing windows
   * @return the open store; the caller must {@link #close()} it
   * @throws StorageException if the directory cannot be created, RocksDB fails to open (for
   *     lack of space too), the data has an unknown format version or the index or head log is
   *     inconsistent
   */
  public static TimeSeriesStore open(StoreOptions options, Clock clock) throws StorageException {
    return open(options, clock, db -> db, null);
  }

  /**
   * As {@link #open(StoreOptions, Clock)}, the RocksDB block cache and memtable ceiling taken
   * from {@code memory}, which other stores of the process share (one store per tenant);
   * {@link StoreOptions#blockCacheBytes()} is then ignored, the shared cache's size counts.
   *
   * @param options where and how
   * @param clock the source of "now", milliseconds
   * @param memory the shared cache and write buffer manager; must outlive this store; null: the
   *     store creates its own, as {@link #open(StoreOptions, Clock)}
   * @return the open store; the caller must {@link #close()} it before closing {@code memory}
   * @throws StorageException as {@link #open(StoreOptions, Clock)}
   */
  public static TimeSeriesStore open(StoreOptions options, Clock clock, RocksMemory memory)
      throws StorageException {
    return open(options, clock, db -> db, memory);
  }

  /** As {@link #open(StoreOptions, Clock, java.util.function.UnaryOperator, RocksMemory)}. */
  static TimeSeriesStore open(StoreOptions options, Clock clock,
      java.util.function.UnaryOperator<RocksFacade> wrap) throws StorageException {
    return open(options, clock, wrap, null);
  }

  /**
   * {@link #open(StoreOptions, Clock)} with the RocksDB facade wrapped, so tests can inject
   * failed writes or a full disk.
   *
   * @param wrap given the real facade, returns the one the store uses
   * @param memory the shared block cache and memtable ceiling, or null for the store's own
   */
  static TimeSeriesStore open(StoreOptions options, Clock clock,
      java.util.function.UnaryOperator<RocksFacade> wrap, RocksMemory memory)
      throws StorageException {
    Path dir = options.dataDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StorageException("cannot create data directory " + dir + ": " + e, e);
    }
    // Before RocksDB's lock, so an open on a full disk gets its 64 MiB: only an earlier
    // version running on the same directory at once could miss it, and it recreates it.
    FreeSpaceFloor.deleteLegacyReserve(dir);
    FreeSpaceFloor floor;
    try {
      floor = FreeSpaceFloor.of(options);
    } catch (IOException e) {
      throw new StorageException("cannot find the file system of " + dir + ": " + e, e);
    }
    // Outermost, so it sees what the store sees, injected failures and refusals included.
    WriteHealth health = new WriteHealth(clock);
    java.util.function.UnaryOperator<RocksFacade> facade =
        real -> health.track(floor.guard(wrap.apply(real)));
    RocksHandles rocks;
    try {
      rocks = RocksHandles.open(options, facade, memory);
    } catch (RocksDBException e) {
      if (FreeSpaceFloor.isNoSpace(e)) {
        throw new StorageException(FreeSpaceFloor.openFailure(dir, e, usableBytes(dir)), e);
      }
      throw new StorageException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
    }
    floor.afterOpen();
    if (floor.lowSpace()) {
      health.failed(floor.refusalException()); // not ready from the start, saying why
    }
    TimeSeriesStore store = new TimeSeriesStore(options, clock, rocks, health, floor);
    long startNs = System.nanoTime();
    try {
      new HeadReplay(store.core).load();
      store.core.active.loadFromHead(clock.millis());
      store.metadata.load();
    } catch (StorageException | RuntimeException e) {
      store.background.shutdown();
      rocks.close();
      throw e;
    } catch (RocksDBException e) {
      store.background.shutdown();
      rocks.close();
      throw new StorageException("cannot read the index in " + dir + ": " + e.getMessage(), e);
    }
    // An operator waiting for readiness after a restart sees what the open did.
    LOG.log(System.Logger.Level.INFO, "store {0} opened in {1} ms: {2} series, {3} head samples"
        + " replayed from the head log, {4} partitions, metadata of {5} metric families", dir,
        (System.nanoTime() - startNs) / 1_000_000, store.core.index.size(),
        store.core.headSamples, rocks.allPartitions().size(), store.metadata.familyCount());
    store.background.start();
    return store;
  }

  /** @return the usable bytes of {@code dir}'s file system, -1 if it cannot be read */
  private static long usableBytes(Path dir) {
    try {
      return Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      return -1;
    }
  }

  /** @return the options the store was opened with */
  public StoreOptions options() {
    return core.options;
  }

  /**
   * @return whether the store can write: the outcome of its most recent RocksDB write or
   *     memtable flush, see {@link WriteHealth}
   */
  public WriteHealth writeHealth() {
    return health;
  }

  /**
   * Writes one tiny batch through the same path as appends (RocksDB's WAL and memtable, synced
   * as {@code --wal-sync} says): a delete of the {@code meta} key {@code write_probe}, which no
   * record ever holds, so nothing is stored but a tombstone compaction drops. Its outcome updates
   * {@link #writeHealth()} as any write does; readiness calls it while the store cannot write,
   * to see it recover without a sender's write. While the store is low on space the write is
   * admitted only once the free space is back above its floor plus margin
   * ({@code FreeSpaceFloor}).
   *
   * @throws StorageException if the write fails (e.g. the disk is still full) or the store is
   *     closed
   */
  public void probeWrite() throws StorageException {
    core.locks.lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      try (org.rocksdb.WriteBatch batch = new org.rocksdb.WriteBatch()) {
        batch.delete(core.rocks.meta, Keys.META_WRITE_PROBE);
        core.rocks.db.write(core.rocks.writeOptions, batch);
      } catch (RocksDBException e) {
        throw new StorageException("probe write failed: " + e.getMessage(), e);
      }
    } finally {
      core.locks.lifecycle.readLock().unlock();
    }
  }

  /** @return this store's read side, for code that should not see writes or the lifecycle */
  public Querier querier() {
    return this;
  }


  /** {@inheritDoc} See {@link HeadAppender#append}. */
  @Override
  public AppendResult append(List<SeriesWrite> writes) throws StorageException {
    return appender.append(writes);
  }

  /**
   * Moves every head sample into chunks; see {@link HeadFlusher#flushHead()}.
   *
   * @throws StorageException if RocksDB fails or the store is closed; the samples then stay in
   *     the head, and the log still holds them
   */
  public void flushHead() throws StorageException {
    flusher.flushHead();
  }

  /**
   * Finalizes windows whose chunks changed; see {@link WindowFinalizer}.
   *
   * @param all finalize open windows too (tests, benchmarks, {@link #flush()})
   * @return how many windows were finalized
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public int finalizeWindows(boolean all) throws StorageException {
    return finalizer.finalizeWindows(all, false);
  }

  /** {@inheritDoc} See {@link MetadataStore}. */
  @Override
  public int appendMetadata(List<MetricMetadata> entries) throws StorageException {
    return metadata.append(entries);
  }

  @Override
  public Map<String, List<MetricMetadata>> metadata(String metricOrNull, int limit,
      int limitPerMetric) throws StorageException {
    return metadata.query(metricOrNull, limit, limitPerMetric);
  }

  @Override
  public void addAppendListener(AppendListener listener) {
    core.listeners.add(listener);
  }

  @Override
  public long newestSampleMs() {
    return core.maxSeenMs;
  }

  @Override
  public List<Series> select(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    return chunks.select(matchers, startMs, endMs);
  }

  @Override
  public void selectEach(List<Matcher> matchers, long startMs, long endMs,
      SeriesVisitor visitor) throws StorageException {
    chunks.selectEach(matchers, startMs, endMs, visitor);
  }

  @Override
  public List<LabelSet> series(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    return chunks.series(matchers, startMs, endMs);
  }

  @Override
  public List<String> labelNames(List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    return chunks.labelNames(matchers, startMs, endMs);
  }

  @Override
  public List<String> labelValues(String name, List<Matcher> matchers, long startMs, long endMs)
      throws StorageException {
    return chunks.labelValues(name, matchers, startMs, endMs);
  }

  @Override
  public List<RollupSeries> selectRollups(
      List<Matcher> matchers, long startMs, long endMs, Resolution resolution)
      throws StorageException {
    return rollups.selectRollups(matchers, startMs, endMs, resolution);
  }

  @Override
  public List<RollupSeries> selectRollups(List<Matcher> matchers, long startMs, long endMs,
      Resolution resolution, Set<RollupColumn> columns) throws StorageException {
    return rollups.selectRollups(matchers, startMs, endMs, resolution, columns);
  }

  @Override
  public long seriesCount() throws StorageException {
    return maintenance.seriesCount();
  }

  @Override
  public long activeSeriesCount() {
    return core.active.count();
  }

  @Override
  public TsdbStatus tsdbStatus(int limit) throws StorageException {
    core.ensureOpen();
    return cardinality.compute(limit);
  }

  @Override
  public java.util.List<MetricCardinality> metricCardinality(java.util.List<String> targetLabels,
      int maxMetrics) throws StorageException {
    core.ensureOpen();
    return cardinalitySampler.sample(targetLabels, maxMetrics);
  }

  @Override
  public SeriesLimits seriesLimits() {
    return core.active.limits();
  }

  @Override
  public long sampleCountEstimate() throws StorageException {
    return maintenance.sampleCountEstimate();
  }

  @Override
  public long headSampleCount() {
    return maintenance.headSampleCount();
  }

  @Override
  public long diskSizeBytes() throws StorageException {
    return maintenance.diskSizeBytes();
  }

  @Override
  public Map<String, Long> rocksProperties() throws StorageException {
    return maintenance.rocksProperties();
  }

  @Override
  public Map<String, Long> bytesByKind() throws StorageException {
    return maintenance.bytesByKind();
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
    maintenance.flushMemtables();
  }

  /**
   * {@link #flush()}, then compacts every column family fully into its bottommost level and
   * waits for it. Time and I/O proportional to the whole store; appends and reads may run.
   *
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void compact() throws StorageException {
    flush();
    maintenance.compactAll();
  }

  /**
   * Drops whole partitions past their retention; see {@link Retention#enforceRetention(long)}.
   *
   * Incident journal records that started before the 1-hour rollups' horizon go too.
   *
   * @param nowMs the current time in milliseconds
   * @return partitions dropped, all kinds
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public int enforceRetention(long nowMs) throws StorageException {
    int dropped = retention.enforceRetention(nowMs);
    journal.dropBefore(StoreCore.saturatedSubtract(nowMs, options().rollup1hRetentionMs()));
    return dropped;
  }

  /**
   * @return the incident journal's record store; its records follow the 1-hour rollups'
   *     retention ({@link #enforceRetention})
   */
  public JournalStore journal() {
    return journal;
  }

  /**
   * @return the column family names of the partitions, ascending per kind; for tests and the
   *     admin API
   * @throws StorageException if the store is closed
   */
  public List<String> partitionNames() throws StorageException {
    return maintenance.partitionNames();
  }

  /**
   * Stops the background thread, waits for running calls, then closes the database and every
   * native handle exactly once. The head is not flushed: the head log replays it at the next
   * open. Later calls of this method do nothing; other methods throw {@link StorageException}.
   */
  @Override
  public void close() {
    background.shutdown();
    core.locks.lifecycle.writeLock().lock();
    try {
      if (core.closed) {
        return;
      }
      core.closed = true;
      core.rocks.close();
      appender.clearStoredWindows();
    } finally {
      core.locks.lifecycle.writeLock().unlock();
    }
  }

  /** @return the start of the chunk window holding {@code ts}, milliseconds */
  static long windowStart(long ts) {
    return StoreCore.windowStart(ts);
  }

  /** Tests only: memtable records of the chunk partition holding {@code timestampMs}. */
  long chunkPartitionMemtableEntries(long timestampMs) throws RocksDBException {
    return maintenance.chunkPartitionMemtableEntries(timestampMs);
  }

  /** Tests only: the append path's cache of decoded chunk windows (read under no lock). */
  StoredWindowCache storedWindows() {
    return appender.storedWindows();
  }

  /** Tests only: samples held by chunk records, duplicates included. */
  long chunkSamplesStored() throws StorageException {
    return maintenance.chunkSamplesStored();
  }

  /** @return whether every native handle was released, for tests */
  boolean nativeHandlesClosed() {
    return core.rocks.isClosed();
  }

  /** @return the partition sample counters by partition start, for tests */
  Map<Long, Long> partitionSampleCounts() {
    return maintenance.partitionSampleCounts();
  }
}
