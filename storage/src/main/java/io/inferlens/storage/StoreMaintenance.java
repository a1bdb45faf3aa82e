package io.inferlens.storage;

import io.inferlens.storage.chunk.ChunkCodec;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Statistics and admin operations of a store: counts, sizes, RocksDB properties, memtable flush,
 * full compaction, partition names. Thread safe; each holds the lifecycle read lock.
 */
final class StoreMaintenance {

  private final StoreCore core;
  private final StoreOptions options;
  private final RocksHandles rocks;
  private final SeriesIndex index;
  private final ReentrantReadWriteLock lifecycle;
  private final StoreLocks.RankedLock appendLock;
  private final Map<Long, AtomicLong> partitionSamples;
  static final long DAY_MS = 86_400_000L;

  StoreMaintenance(StoreCore core) {
    this.core = core;
    this.options = core.options;
    this.rocks = core.rocks;
    this.index = core.index;
    this.lifecycle = core.locks.lifecycle;
    this.appendLock = core.locks.append;
    this.partitionSamples = core.partitionSamples;
  }

  /**
   * @return the number of series in the index, including series whose samples retention removed
   *     (their rollups may outlive them)
   * @throws StorageException if the store is closed
   */
  public long seriesCount() throws StorageException {
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
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
      core.ensureOpen();
      long total = core.flushingSamples;
      appendLock.lock();
      try {
        total += core.headSamples;
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
    return core.headSamples + core.flushingSamples;
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

  void flushMemtables() throws StorageException {
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
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
  static final List<String> ROCKS_PROPERTIES = List.of(
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
      core.ensureOpen();
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
  void compactAll() throws StorageException {
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
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
      core.ensureOpen();
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
      core.ensureOpen();
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
