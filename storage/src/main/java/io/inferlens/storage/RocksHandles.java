package io.inferlens.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.AbstractNativeReference;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Logger;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * Owns the RocksDB instance of one store and every native object it depends on (options, cache,
 * filter, write buffer manager, column family handles; the cache and write buffer manager unless
 * a {@link RocksMemory} shared by several stores provides them), and closes them exactly once in
 * reverse order of creation. Besides the fixed column families it keeps the time partitions
 * ({@link PartitionKind}), created on first write and dropped by retention.
 *
 * <p>Thread safety: the handles are thread safe as RocksDB objects are. Partition handles are
 * guarded by {@link #partitionLock}: hold its read lock while using a handle from
 * {@link #partition} or {@link #partitions}, since {@link #dropPartition} (write lock) closes it.
 * {@link #close()} must not run concurrently with any use, which {@link TimeSeriesStore} ensures
 * with its lifecycle lock.
 */
final class RocksHandles implements AutoCloseable {

  /**
   * Bloom filter bits per key: about 1% false positives, so a backfill's lookup of a chunk window
   * that does not exist rarely reads a data block.
   */
  private static final double BLOOM_BITS_PER_KEY = 10;

  /**
   * Memtable of the head log: 32 MiB. A logged sample costs about 10-12 bytes, so this holds
   * more than the head's default budget of 2 M samples ({@link TimeSeriesStore#HEAD_MAX_SAMPLES});
   * the head is flushed and the log truncated by a range delete about when the memtable fills, so
   * most of the log never reaches an SST file (a flush drops keys covered by a range tombstone).
   */
  private static final long HEAD_LOG_WRITE_BUFFER_BYTES = 32L << 20;

  /**
   * Memtable of each partition: 8 MiB. Chunks arrive in bursts of a head flush (about 1.5
   * B/sample, so 2 M samples are 3 MiB), so one memtable holds a few flushes.
   */
  private static final long PARTITION_WRITE_BUFFER_BYTES = 8L << 20;

  /**
   * Arena block of every memtable of a store that shares its memory with others (one tenant's of
   * many, {@link RocksMemory}): 256 KiB, so a small tenant's memtables hold a few blocks, not
   * RocksDB's default of a write buffer's eighth per block.
   */
  static final long TENANT_ARENA_BLOCK_BYTES = 256L << 10;

  /** Memtable of each index column family: 4 MiB; they grow only with new series. */
  private static final long INDEX_WRITE_BUFFER_BYTES = 4L << 20;

  /**
   * Data block size of the chunk and rollup partitions: 32 KiB instead of RocksDB's 4 KiB, for
   * compression across neighbouring records (figures where {@link #open} builds the options).
   */
  static final long PARTITION_BLOCK_BYTES = 32L << 10;

  /**
   * Levels of every column family (RocksDB's default), LZ4 above and ZSTD at the bottom. For the
   * partitions too, although chunk values are already compressed: keys, chunk headers and rollup
   * blocks still shrink, and without it the settled store (before data reaches the bottom level)
   * measured 2.62 instead of 2.01 B/sample on s2k-2880 and 5.08 instead of 2.94 on s100k-240, at
   * no measurable ingest CPU (docs/BENCHMARKS.md, "Store format 2").
   */
  private static final int NUM_LEVELS = 7;

  /** The database, through the facade the store was opened with. */
  final RocksFacade db;
  final ColumnFamilyHandle seriesById;
  final ColumnFamilyHandle meta;
  /** Incident journal of the analysis: opaque records by start time, see {@link JournalStore}. */
  final ColumnFamilyHandle journal;
  final ColumnFamilyHandle headLog;
  /** The fixed handles, including the unused default column family. */
  final List<ColumnFamilyHandle> fixedColumnFamilies;
  /** WAL enabled; sync per {@link StoreOptions#syncWal()}. */
  final WriteOptions writeOptions;
  /** Read-held while a partition handle is in use, write-held to create or drop one. */
  final ReentrantReadWriteLock partitionLock = new ReentrantReadWriteLock();

  private final ColumnFamilyOptions partitionOptions;
  private final ColumnFamilyOptions rollupOptions;
  private final Map<PartitionKind, TreeMap<Long, ColumnFamilyHandle>> partitions = new TreeMap<>();

  /** Closed last-in first-out: handles before the db, the db before its options and cache. */
  private final Deque<AbstractNativeReference> owned;
  private boolean closed;

  private RocksHandles(
      RocksFacade db,
      List<ColumnFamilyHandle> fixed,
      WriteOptions writeOptions,
      ColumnFamilyOptions partitionOptions,
      ColumnFamilyOptions rollupOptions,
      Deque<AbstractNativeReference> owned) {
    this.db = db;
    this.fixedColumnFamilies = List.copyOf(fixed);
    // Same order as FIXED in open().
    this.seriesById = fixed.get(1);
    this.meta = fixed.get(2);
    this.headLog = fixed.get(3);
    this.journal = fixed.get(4);
    this.writeOptions = writeOptions;
    this.partitionOptions = partitionOptions;
    this.rollupOptions = rollupOptions;
    this.owned = owned;
    for (PartitionKind k : PartitionKind.values()) {
      partitions.put(k, new TreeMap<>());
    }
  }

  private static final List<String> FIXED =
      List.of(
          Keys.CF_SERIES_BY_ID,
          Keys.CF_META,
          Keys.CF_HEAD_LOG,
          Keys.CF_JOURNAL);

  /**
   * Opens or creates the database in {@code options.dataDir()} with the fixed column families and
   * every partition found on disk.
   *
   * @throws RocksDBException if RocksDB cannot open it, or a column family is neither fixed nor a
   *     partition (a store of another format); nothing stays allocated then
   */
  static RocksHandles open(StoreOptions options) throws RocksDBException {
    return open(options, db -> db);
  }

  /**
   * As {@link #open(StoreOptions)}, the store's operations going through {@code wrap} applied to
   * the real facade (tests inject failures there).
   */
  static RocksHandles open(StoreOptions options,
      java.util.function.UnaryOperator<RocksFacade> wrap) throws RocksDBException {
    return open(options, wrap, null);
  }

  /**
   * As {@link #open(StoreOptions, java.util.function.UnaryOperator)}, the block cache and the
   * memtable ceiling taken from {@code shared} (not closed with these handles), or created and
   * owned when it is null.
   */
  static RocksHandles open(StoreOptions options,
      java.util.function.UnaryOperator<RocksFacade> wrap, RocksMemory shared)
      throws RocksDBException {
    RocksDB.loadLibrary();
    Deque<AbstractNativeReference> owned = new ArrayDeque<>();
    try {
      // One cache for the data, index and filter blocks of every column family (of every store
      // sharing it), the memtables charged to it.
      LRUCache cache;
      WriteBufferManager memtables;
      if (shared != null) {
        cache = shared.cache;
        memtables = shared.memtables;
      } else {
        cache = push(owned, new LRUCache(options.blockCacheBytes()));
        memtables = push(owned,
            new WriteBufferManager(RocksMemory.ALL_MEMTABLES_BYTES, cache));
      }
      BloomFilter bloom = push(owned, new BloomFilter(BLOOM_BITS_PER_KEY));
      BlockBasedTableConfig table =
          new BlockBasedTableConfig()
              .setBlockCache(cache)
              .setFilterPolicy(bloom)
              .setWholeKeyFiltering(true)
              .setCacheIndexAndFilterBlocks(true)
              .setPinL0FilterAndIndexBlocksInCache(true);
      ColumnFamilyOptions indexOptions =
          push(owned, tuned(new ColumnFamilyOptions(), table, INDEX_WRITE_BUFFER_BYTES,
              CompressionType.LZ4_COMPRESSION));
      ColumnFamilyOptions logOptions =
          push(owned, tuned(new ColumnFamilyOptions(), table, HEAD_LOG_WRITE_BUFFER_BYTES,
              CompressionType.LZ4_COMPRESSION));
      // Partitions: 32 KiB blocks instead of RocksDB's 4 KiB. Chunks of a few hundred bytes and
      // rollup blocks of ~150 repeat their neighbours' header fields (same window start, grid
      // interval) and compress better in bigger blocks, with fewer index entries. s2k-2880
      // bench, settled: chunks 7.23 MB at 4 KiB, 6.60 at 16, 6.37 at 32; 5 m rollups 2.33,
      // 2.10, 2.06 (64 KiB: 2.04). A point lookup (backfill check) decompresses 32 KiB instead
      // of 4; 30 days of one series still read in under 4 ms (QueryBenchmark).
      BlockBasedTableConfig partitionTable =
          new BlockBasedTableConfig()
              .setBlockCache(cache)
              .setFilterPolicy(bloom)
              .setWholeKeyFiltering(true)
              .setCacheIndexAndFilterBlocks(true)
              .setPinL0FilterAndIndexBlocksInCache(true)
              .setBlockSize(PARTITION_BLOCK_BYTES);
      // Chunks: ZSTD on every level too. A burst's chunks stay in L0/L1 until a compaction
      // reaches the bottom, and LZ4 there left the settled s2k-2880 store at 1.64-1.65 B/sample
      // against 1.6 for VictoriaMetrics (docs/BENCHMARKS.md, "Fast by default"); chunks are
      // written by the background flush and finalization only, so ZSTD's extra CPU is off the
      // append path.
      ColumnFamilyOptions partitionOptions =
          push(owned, tuned(new ColumnFamilyOptions(), partitionTable,
              PARTITION_WRITE_BUFFER_BYTES, CompressionType.ZSTD_COMPRESSION)
              // Bottommost filters skipped: lookups there are mostly hits (backfill checks).
              .setOptimizeFiltersForHits(true));
      // Rollup blocks are written once per finalized window and read in ranges: ZSTD on every
      // level costs little CPU there and saves LZ4's ~7 % until data reaches the bottom.
      ColumnFamilyOptions rollupOptions =
          push(owned, tuned(new ColumnFamilyOptions(), partitionTable,
              PARTITION_WRITE_BUFFER_BYTES, CompressionType.ZSTD_COMPRESSION)
              .setOptimizeFiltersForHits(true));
      if (shared != null) {
        // One store of many (a tenant's): memtables grow in small arena blocks. RocksDB's
        // default is an eighth of the write buffer (4 MiB for the head log), so 100 tenants'
        // first appends took more than the shared 80 MiB ceiling at once and the write buffer
        // manager flushed memtables all the time (docs/BENCHMARKS.md, "Tenants").
        for (ColumnFamilyOptions o : List.of(indexOptions, logOptions, partitionOptions,
            rollupOptions)) {
          o.setArenaBlockSize(TENANT_ARENA_BLOCK_BYTES);
        }
      }
      // RocksDB's warnings and errors go to the service's log, where an operator looks, and no
      // LOG file grows in the data directory: its INFO lines came to ~180 KB per simulated day,
      // and even at WARN its header (every column family's options) was ~140 KB on the bench.
      RocksLog rocksLog = push(owned, new RocksLog());
      DBOptions dbOptions =
          push(owned, new DBOptions()
              .setCreateIfMissing(true)
              .setCreateMissingColumnFamilies(true)
              .setWriteBufferManager(memtables)
              .setLogger(rocksLog)
              // No fallocate. RocksDB preallocates each WAL file to 1.1 × the largest memtable
              // (35 MiB for the head log's 32) and the MANIFEST to 4 MiB: a tenant that writes
              // a few thousand samples never fills them (100 tenants held 3.9 GiB of disk for
              // 1.8 M samples, docs/BENCHMARKS.md, "Tenants"), and on a nearly full disk the
              // new WAL and MANIFEST of an open took that room from the SST files the open
              // writes. Durability is the WAL's sync, which this does not change.
              .setAllowFAllocate(false)
              // Replayed WAL records stay in the memtables (their WAL files kept) instead of
              // being written to SST files at open: a store killed on a full disk then opened
              // with under 1 MiB free unless a memtable overflows in the replay (then RocksDB
              // flushes them all, which took up to 16 MiB: see FreeSpaceFloor).
              .setAvoidFlushDuringRecovery(true));

      Path dir = options.dataDir().toAbsolutePath();
      List<byte[]> existing;
      try (Options listOptions = new Options()) {
        existing = RocksDB.listColumnFamilies(listOptions, dir.toString());
      }
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, indexOptions));
      for (String name : FIXED) {
        descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8),
            name.equals(Keys.CF_HEAD_LOG) ? logOptions : indexOptions));
      }
      List<PartitionKind> partKinds = new ArrayList<>();
      List<Long> partStarts = new ArrayList<>();
      List<byte[]> legacy = new ArrayList<>();
      for (byte[] raw : existing) {
        String name = new String(raw, StandardCharsets.UTF_8);
        if (name.equals("default") || FIXED.contains(name)) {
          continue;
        }
        if (Keys.LEGACY_INDEX_COLUMN_FAMILIES.contains(name)) {
          legacy.add(raw);
          continue;
        }
        PartitionKind kind = kindOf(name);
        if (kind == null) {
          throw new RocksDBException("column family '" + name + "' in " + dir
              + " is not part of storage format " + Keys.FORMAT_VERSION
              + ": not an InferLens store of this version");
        }
        partKinds.add(kind);
        partStarts.add(kind.parseStart(name));
        descriptors.add(new ColumnFamilyDescriptor(raw,
            kind == PartitionKind.CHUNKS ? partitionOptions : rollupOptions));
      }
      for (byte[] raw : legacy) {
        descriptors.add(new ColumnFamilyDescriptor(raw, indexOptions)); // opened to be dropped
      }
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB db = push(owned, RocksDB.open(dbOptions, dir.toString(), descriptors, handles));
      for (ColumnFamilyHandle h : handles.subList(handles.size() - legacy.size(), handles.size())) {
        try (h) {
          db.dropColumnFamily(h); // derived data nothing reads: see Keys.LEGACY_INDEX_...
        }
      }
      WriteOptions writeOptions =
          push(owned, new WriteOptions().setSync(options.syncWal()).setDisableWAL(false));
      int fixedCount = 1 + FIXED.size();
      for (int i = 0; i < fixedCount; i++) {
        push(owned, handles.get(i));
      }
      RocksHandles rocks = new RocksHandles(
          wrap.apply(RocksFacade.of(db)), handles.subList(0, fixedCount), writeOptions, partitionOptions, rollupOptions,
          owned);
      for (int i = 0; i < partKinds.size(); i++) {
        rocks.partitions.get(partKinds.get(i)).put(partStarts.get(i), handles.get(fixedCount + i));
      }
      return rocks;
    } catch (RocksDBException | RuntimeException e) {
      closeAll(owned);
      throw e;
    }
  }

  private static PartitionKind kindOf(String name) {
    for (PartitionKind k : PartitionKind.values()) {
      if (k.parseStart(name) != Long.MIN_VALUE) {
        return k;
      }
    }
    return null;
  }

  /**
   * @return the partition of {@code kind} that holds {@code timestampMs}, or null if it does not
   *     exist; the caller holds {@link #partitionLock}'s read lock while using it
   */
  ColumnFamilyHandle partition(PartitionKind kind, long timestampMs) {
    synchronized (partitions) {
      return partitions.get(kind).get(kind.partitionStart(timestampMs));
    }
  }

  /**
   * Returns the partition holding {@code timestampMs}, creating it if missing. The caller holds
   * {@link #partitionLock}'s read lock (creation is serialized here, not by that lock).
   *
   * @throws RocksDBException if RocksDB cannot create the column family
   */
  ColumnFamilyHandle partitionForWrite(PartitionKind kind, long timestampMs)
      throws RocksDBException {
    long start = kind.partitionStart(timestampMs);
    synchronized (partitions) {
      ColumnFamilyHandle h = partitions.get(kind).get(start);
      if (h == null) {
        h = db.createColumnFamily(new ColumnFamilyDescriptor(
            kind.name(start).getBytes(StandardCharsets.UTF_8),
            kind == PartitionKind.CHUNKS ? partitionOptions : rollupOptions));
        partitions.get(kind).put(start, h);
      }
      return h;
    }
  }

  /**
   * @return the partitions of {@code kind} that may hold timestamps in {@code [fromMs, toMs]},
   *     ascending by start, as a fresh map start → handle; the caller holds the read lock
   */
  TreeMap<Long, ColumnFamilyHandle> partitions(PartitionKind kind, long fromMs, long toMs) {
    synchronized (partitions) {
      if (toMs < fromMs) {
        return new TreeMap<>();
      }
      return new TreeMap<>(partitions.get(kind)
          .subMap(kind.partitionStart(fromMs), true, kind.partitionStart(toMs), true));
    }
  }

  /** @return every partition handle of every kind, fresh list; the caller holds the read lock */
  List<ColumnFamilyHandle> allPartitions() {
    synchronized (partitions) {
      List<ColumnFamilyHandle> out = new ArrayList<>();
      for (TreeMap<Long, ColumnFamilyHandle> m : partitions.values()) {
        out.addAll(m.values());
      }
      return out;
    }
  }

  /**
   * Drops every partition of {@code kind} that ends at or before {@code horizonMs}, under the
   * write lock of {@link #partitionLock} (so it waits for running reads of any partition).
   *
   * @return the starts of the dropped partitions, milliseconds
   * @throws RocksDBException if RocksDB fails; partitions dropped before the failure stay dropped
   */
  List<Long> dropPartitionsBefore(PartitionKind kind, long horizonMs) throws RocksDBException {
    List<Long> dropped = new ArrayList<>();
    partitionLock.writeLock().lock();
    try {
      synchronized (partitions) {
        TreeMap<Long, ColumnFamilyHandle> m = partitions.get(kind);
        while (!m.isEmpty() && m.firstKey() + kind.lengthMs <= horizonMs) {
          Map.Entry<Long, ColumnFamilyHandle> e = m.firstEntry();
          db.dropColumnFamily(e.getValue());
          e.getValue().close();
          m.remove(e.getKey());
          dropped.add(e.getKey());
        }
      }
    } finally {
      partitionLock.writeLock().unlock();
    }
    return dropped;
  }

  /** @return the fixed column families and every partition, fresh list; hold the read lock */
  List<ColumnFamilyHandle> allColumnFamilies() {
    List<ColumnFamilyHandle> out = new ArrayList<>(fixedColumnFamilies);
    out.addAll(allPartitions());
    return out;
  }

  /** Applies the table, compression and memtable settings shared by every column family. */
  private static ColumnFamilyOptions tuned(
      ColumnFamilyOptions cf, BlockBasedTableConfig table, long writeBufferBytes,
      CompressionType upper) {
    List<CompressionType> perLevel = new ArrayList<>();
    for (int i = 0; i < NUM_LEVELS; i++) {
      perLevel.add(upper);
    }
    return cf.setTableFormatConfig(table)
        .setNumLevels(NUM_LEVELS)
        .setCompressionPerLevel(perLevel)
        .setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION)
        .setWriteBufferSize(writeBufferBytes)
        .setMaxWriteBufferNumber(2);
  }

  /** RocksDB's info log at WARN and above, to the System.Logger "io.inferlens.rocksdb". */
  private static final class RocksLog extends Logger {
    private static final System.Logger OUT = System.getLogger("io.inferlens.rocksdb");

    RocksLog() {
      super(InfoLogLevel.WARN_LEVEL);
    }

    @Override
    protected void log(InfoLogLevel level, String message) {
      switch (level) {
        case WARN_LEVEL -> OUT.log(System.Logger.Level.WARNING, message);
        case ERROR_LEVEL, FATAL_LEVEL -> OUT.log(System.Logger.Level.ERROR, message);
        default -> { } // the header (options dump) and anything below WARN
      }
    }
  }

  private static <T extends AbstractNativeReference> T push(
      Deque<AbstractNativeReference> owned, T ref) {
    owned.push(ref);
    return ref;
  }

  private static void closeAll(Deque<AbstractNativeReference> owned) {
    while (!owned.isEmpty()) {
      owned.pop().close();
    }
  }

  /** Closes every native object once; later calls do nothing. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (partitions) {
      for (TreeMap<Long, ColumnFamilyHandle> m : partitions.values()) {
        for (ColumnFamilyHandle h : m.values()) {
          h.close();
        }
        m.clear();
      }
    }
    // Partition handles must close before the db, which is on the deque below the fixed handles.
    closeAll(owned);
  }

  /** @return whether {@link #close()} ran, for tests that check native resources are released */
  synchronized boolean isClosed() {
    return closed;
  }
}
