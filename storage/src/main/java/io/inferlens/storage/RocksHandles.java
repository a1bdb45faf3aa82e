package io.inferlens.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.rocksdb.AbstractNativeReference;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Owns the RocksDB instance of one store and every native object it depends on (options, cache,
 * filter, column family handles), and closes them exactly once in reverse order of creation.
 *
 * <p>Thread safety: the handles are thread safe as RocksDB objects are; {@link #close()} must not
 * run concurrently with their use, which {@link TimeSeriesStore} ensures with its lifecycle lock.
 */
final class RocksHandles implements AutoCloseable {

  /**
   * Bloom filter bits per key: 10 bits give about 1% false positives, so the point lookups of
   * backfilled samples (one multiGet per append, {@code TimeSeriesStore.lookUpStored}) rarely read
   * a data block for a key that does not exist. Whole-key, not a prefix filter: the only point
   * lookups are whole (series id, timestamp) keys; range scans do not consult it.
   */
  private static final double BLOOM_BITS_PER_KEY = 10;

  /**
   * Memtable of the samples column family: 64 MiB. A sample costs 24 bytes of key and value plus
   * (estimated, not measured) about 30 bytes of skip-list node, length prefixes and sequence
   * number, so one memtable holds about 1.2 M samples: 3 minutes of 100,000 series scraped every
   * 15 s, or 6-8 s of the flat-out benchmark (150-200 k samples/s measured, docs/BENCHMARKS.md
   * "Store: remote-write ingest"). Smaller means more, smaller L0 files and more compaction work
   * per sample; larger only adds resident memory (RocksDB's default is also 64 MiB).
   */
  private static final long SAMPLES_WRITE_BUFFER_BYTES = 64L << 20;

  /**
   * Memtables of the samples column family: one being filled while up to two are flushed. With
   * two (RocksDB's default) a flat-out writer stalls whenever one flush is not finished before the
   * next memtable fills; the third is there to absorb a flush delayed by compaction on 2 cores
   * (reasoning, stalls were not counted). Bounds the
   * samples memtables to 192 MiB.
   */
  private static final int SAMPLES_MAX_WRITE_BUFFERS = 3;

  /**
   * Memtable of each index column family (series by labels, by id, postings, meta, default): 16
   * MiB. A new series writes roughly 1 KB over these (estimated) (label set twice, one posting per label), so
   * 16 MiB is about 16,000 new series per flush; they grow only with new series and are read only
   * at open, so they do not need the samples' budget. Bounds them to 5 x 2 x 16 = 160 MiB, in
   * practice a few MiB because they are mostly idle.
   */
  private static final long INDEX_WRITE_BUFFER_BYTES = 16L << 20;

  /**
   * Compression per level of every column family: LZ4 on L0 to L5 (cheap to write, which flushes
   * and the upper levels do most often), ZSTD on the bottommost level (set separately below), where
   * about 90% of the data ends with leveled compaction's 10x level ratio. Measured on the bench:
   * 7.89 B/sample settled, 7.09 after a full compaction into the ZSTD level (raw: 24 B/sample).
   * Seven entries = RocksDB's default {@code num_levels}.
   */
  private static final int NUM_LEVELS = 7;

  final RocksDB db;
  final ColumnFamilyHandle seriesByLabels;
  final ColumnFamilyHandle seriesById;
  final ColumnFamilyHandle postings;
  final ColumnFamilyHandle samples;
  final ColumnFamilyHandle meta;
  /** All handles, including the unused default column family, for flush. */
  final List<ColumnFamilyHandle> allColumnFamilies;
  /** WAL enabled; sync per {@link StoreOptions#syncWal()}. */
  final WriteOptions writeOptions;

  /** Closed last-in first-out: handles before the db, the db before its options and cache. */
  private final Deque<AbstractNativeReference> owned;
  private boolean closed;

  private RocksHandles(
      RocksDB db,
      List<ColumnFamilyHandle> handles,
      WriteOptions writeOptions,
      Deque<AbstractNativeReference> owned) {
    this.db = db;
    this.allColumnFamilies = List.copyOf(handles);
    // Same order as the descriptors in open().
    this.seriesByLabels = handles.get(1);
    this.seriesById = handles.get(2);
    this.postings = handles.get(3);
    this.samples = handles.get(4);
    this.meta = handles.get(5);
    this.writeOptions = writeOptions;
    this.owned = owned;
  }

  /**
   * Opens or creates the database in {@code options.dataDir()} with all column families.
   *
   * @throws RocksDBException if RocksDB cannot open it; nothing stays allocated then
   */
  static RocksHandles open(StoreOptions options) throws RocksDBException {
    RocksDB.loadLibrary();
    Deque<AbstractNativeReference> owned = new ArrayDeque<>();
    try {
      // One cache for the data, index and filter blocks of every column family.
      LRUCache cache = push(owned, new LRUCache(options.blockCacheBytes()));
      BloomFilter bloom = push(owned, new BloomFilter(BLOOM_BITS_PER_KEY));
      BlockBasedTableConfig table =
          new BlockBasedTableConfig()
              .setBlockCache(cache)
              .setFilterPolicy(bloom)
              .setWholeKeyFiltering(true)
              .setCacheIndexAndFilterBlocks(true)
              .setPinL0FilterAndIndexBlocksInCache(true);
      ColumnFamilyOptions indexOptions =
          push(owned, tuned(new ColumnFamilyOptions(), table, INDEX_WRITE_BUFFER_BYTES, 2));
      ColumnFamilyOptions samplesOptions =
          push(
              owned,
              tuned(
                      new ColumnFamilyOptions(),
                      table,
                      SAMPLES_WRITE_BUFFER_BYTES,
                      SAMPLES_MAX_WRITE_BUFFERS)
                  // Bottommost filters skipped: about 90% of the filter bytes (1.25 B/sample at 10
                  // bits/key) for lookups that are mostly hits anyway (retried writes).
                  .setOptimizeFiltersForHits(true));
      DBOptions dbOptions =
          push(
              owned,
              new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true));
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, indexOptions));
      for (String name :
          List.of(
              Keys.CF_SERIES_BY_LABELS,
              Keys.CF_SERIES_BY_ID,
              Keys.CF_POSTINGS,
              Keys.CF_SAMPLES,
              Keys.CF_META)) {
        descriptors.add(
            new ColumnFamilyDescriptor(
                name.getBytes(StandardCharsets.UTF_8),
                name.equals(Keys.CF_SAMPLES) ? samplesOptions : indexOptions));
      }
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      Path dir = options.dataDir().toAbsolutePath();
      RocksDB db = push(owned, RocksDB.open(dbOptions, dir.toString(), descriptors, handles));
      for (ColumnFamilyHandle h : handles) {
        push(owned, h);
      }
      WriteOptions writeOptions =
          push(owned, new WriteOptions().setSync(options.syncWal()).setDisableWAL(false));
      return new RocksHandles(db, handles, writeOptions, owned);
    } catch (RocksDBException | RuntimeException e) {
      closeAll(owned);
      throw e;
    }
  }

  /** Applies the table, compression and memtable settings shared by every column family. */
  private static ColumnFamilyOptions tuned(
      ColumnFamilyOptions cf, BlockBasedTableConfig table, long writeBufferBytes, int buffers) {
    List<CompressionType> perLevel = new ArrayList<>();
    for (int i = 0; i < NUM_LEVELS; i++) {
      perLevel.add(CompressionType.LZ4_COMPRESSION);
    }
    return cf.setTableFormatConfig(table)
        .setNumLevels(NUM_LEVELS)
        .setCompressionPerLevel(perLevel)
        .setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION)
        .setWriteBufferSize(writeBufferBytes)
        .setMaxWriteBufferNumber(buffers);
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
    closeAll(owned);
  }

  /** @return whether {@link #close()} ran, for tests that check native resources are released */
  synchronized boolean isClosed() {
    return closed;
  }
}
