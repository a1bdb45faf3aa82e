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
   * backfilled samples rarely read a data block for a key that does not exist.
   */
  private static final double BLOOM_BITS_PER_KEY = 10;

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
      LRUCache cache = push(owned, new LRUCache(options.blockCacheBytes()));
      BloomFilter bloom = push(owned, new BloomFilter(BLOOM_BITS_PER_KEY));
      BlockBasedTableConfig table =
          new BlockBasedTableConfig()
              .setBlockCache(cache)
              .setFilterPolicy(bloom)
              .setCacheIndexAndFilterBlocks(true);
      ColumnFamilyOptions cfOptions =
          push(owned, new ColumnFamilyOptions().setTableFormatConfig(table));
      DBOptions dbOptions =
          push(
              owned,
              new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true));
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
      for (String name :
          List.of(
              Keys.CF_SERIES_BY_LABELS,
              Keys.CF_SERIES_BY_ID,
              Keys.CF_POSTINGS,
              Keys.CF_SAMPLES,
              Keys.CF_META)) {
        descriptors.add(
            new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), cfOptions));
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
