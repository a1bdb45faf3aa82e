package io.inferlens.storage;

import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The RocksDB operations the store uses, and no others: point reads, write batches (puts,
 * deletes and range deletes go through a {@link WriteBatch}), iterators, manual compaction,
 * memtable flush, properties, and creating or dropping a partition's column family. Each has
 * RocksDB's signature and semantics, so a test can wrap {@link #of(RocksDB)} to fail a write or
 * report a full disk ({@link RocksDBException}) at a chosen point.
 *
 * <p>Thread safety: as RocksDB's, every method may be called concurrently. Handles must be live
 * (see {@link RocksHandles#partitionLock}).
 */
interface RocksFacade {

  /** @return the value of {@code key} in {@code cf}, or null; see {@link RocksDB#get} */
  byte[] get(ColumnFamilyHandle cf, byte[] key) throws RocksDBException;

  /** Writes the batch atomically; see {@link RocksDB#write(WriteOptions, WriteBatch)}. */
  void write(WriteOptions options, WriteBatch batch) throws RocksDBException;

  /** @return a new iterator the caller closes; see {@link RocksDB#newIterator} */
  RocksIterator newIterator(ColumnFamilyHandle cf);

  /** Compacts {@code [from, to)} of {@code cf}; null bounds mean the whole column family. */
  void compactRange(ColumnFamilyHandle cf, byte[] from, byte[] to) throws RocksDBException;

  /** As {@link #compactRange(ColumnFamilyHandle, byte[], byte[])} with options. */
  void compactRange(ColumnFamilyHandle cf, byte[] from, byte[] to, CompactRangeOptions options)
      throws RocksDBException;

  /** Flushes the memtables of the column families to SST files. */
  void flush(FlushOptions options, List<ColumnFamilyHandle> cfs) throws RocksDBException;

  /** @return a numeric RocksDB property of {@code cf}, e.g. {@code rocksdb.estimate-num-keys} */
  long getLongProperty(ColumnFamilyHandle cf, String property) throws RocksDBException;

  /** @return a new column family's handle, which the caller closes */
  ColumnFamilyHandle createColumnFamily(ColumnFamilyDescriptor descriptor)
      throws RocksDBException;

  /** Drops a column family (its files are deleted); the handle is still to be closed. */
  void dropColumnFamily(ColumnFamilyHandle cf) throws RocksDBException;

  /** @return the facade over a real database, which stays owned by the caller */
  static RocksFacade of(RocksDB db) {
    return new RocksFacade() {
      @Override
      public byte[] get(ColumnFamilyHandle cf, byte[] key) throws RocksDBException {
        return db.get(cf, key);
      }

      @Override
      public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
        db.write(options, batch);
      }

      @Override
      public RocksIterator newIterator(ColumnFamilyHandle cf) {
        return db.newIterator(cf);
      }

      @Override
      public void compactRange(ColumnFamilyHandle cf, byte[] from, byte[] to)
          throws RocksDBException {
        db.compactRange(cf, from, to);
      }

      @Override
      public void compactRange(ColumnFamilyHandle cf, byte[] from, byte[] to,
          CompactRangeOptions options) throws RocksDBException {
        db.compactRange(cf, from, to, options);
      }

      @Override
      public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs)
          throws RocksDBException {
        db.flush(options, cfs);
      }

      @Override
      public long getLongProperty(ColumnFamilyHandle cf, String property)
          throws RocksDBException {
        return db.getLongProperty(cf, property);
      }

      @Override
      public ColumnFamilyHandle createColumnFamily(ColumnFamilyDescriptor descriptor)
          throws RocksDBException {
        return db.createColumnFamily(descriptor);
      }

      @Override
      public void dropColumnFamily(ColumnFamilyHandle cf) throws RocksDBException {
        db.dropColumnFamily(cf);
      }
    };
  }
}
