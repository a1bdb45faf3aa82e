package io.inferlens.storage;

import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * The RocksDB memory that several stores of one process share: one block cache (data, index and
 * filter blocks) and one write buffer manager that charges every memtable to that cache and
 * caps them all at {@value #ALL_MEMTABLES_BYTES} bytes. A store opened without one
 * ({@link TimeSeriesStore#open(StoreOptions, java.time.Clock)}) creates its own with the same
 * sizes; a server holding one store per tenant passes one of these to each
 * ({@link TimeSeriesStore#open(StoreOptions, java.time.Clock, RocksMemory)}), so memory stays
 * bounded by the cache size whatever the number of tenants, as RocksDB's documentation advises
 * for several instances in one process (the wiki's "Write Buffer Manager" page).
 *
 * <p>Lifecycle: the creator closes it after every store using it is closed; closing it while a
 * store is open would free native memory that store still uses. Thread safe.
 */
public final class RocksMemory implements AutoCloseable {

  /**
   * Ceiling on all memtables together, charged to the block cache: 80 MiB, the head log's two
   * memtables and a few partitions'. Without it every partition a backfill touches could hold its
   * own memtables; at 256 MiB the s100k-240 bench peaked at 107 MiB of memtables and 842 MiB RSS.
   */
  static final long ALL_MEMTABLES_BYTES = 80L << 20;

  final LRUCache cache;
  final WriteBufferManager memtables;
  private boolean closed;

  private RocksMemory(long blockCacheBytes) {
    RocksDB.loadLibrary();
    this.cache = new LRUCache(blockCacheBytes);
    this.memtables = new WriteBufferManager(ALL_MEMTABLES_BYTES, cache);
  }

  /**
   * @param blockCacheBytes size of the shared block cache in bytes, &ge; 0 (the memtables'
   *     charges count against it too)
   * @return new shared memory; the caller closes it after the stores that use it
   * @throws IllegalArgumentException if {@code blockCacheBytes} &lt; 0
   */
  public static RocksMemory create(long blockCacheBytes) {
    if (blockCacheBytes < 0) {
      throw new IllegalArgumentException("blockCacheBytes must be >= 0, got " + blockCacheBytes);
    }
    return new RocksMemory(blockCacheBytes);
  }

  /** @return bytes in the shared block cache now, memtable charges included */
  public long usageBytes() {
    return cache.getUsage();
  }

  /** Frees the cache and the write buffer manager; later calls do nothing. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    memtables.close();
    cache.close();
  }
}
