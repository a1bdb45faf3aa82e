package io.inferlens.storage;

import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A {@link RocksFacade} that passes every operation to another one: a wrapper overrides only the
 * operations it watches or fails ({@link WriteHealth#track}, the fault-injecting facades of the
 * tests), with RocksDB's signatures and exceptions unchanged.
 */
abstract class ForwardingRocksFacade implements RocksFacade {

  /** The facade operations go to. */
  protected final RocksFacade inner;

  /** @param inner the facade to pass every operation to */
  protected ForwardingRocksFacade(RocksFacade inner) {
    this.inner = inner;
  }

  @Override
  public byte[] get(ColumnFamilyHandle cf, byte[] key) throws RocksDBException {
    return inner.get(cf, key);
  }

  @Override
  public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
    inner.write(options, batch);
  }

  @Override
  public RocksIterator newIterator(ColumnFamilyHandle cf) {
    return inner.newIterator(cf);
  }

  @Override
  public void compactRange(ColumnFamilyHandle cf, byte[] from, byte[] to)
      throws RocksDBException {
    inner.compactRange(cf, from, to);
  }

  @Override
  public void compactRange(ColumnFamilyHandle cf, byte[] from, byte[] to,
      CompactRangeOptions options) throws RocksDBException {
    inner.compactRange(cf, from, to, options);
  }

  @Override
  public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs) throws RocksDBException {
    inner.flush(options, cfs);
  }

  @Override
  public long getLongProperty(ColumnFamilyHandle cf, String property) throws RocksDBException {
    return inner.getLongProperty(cf, property);
  }

  @Override
  public ColumnFamilyHandle createColumnFamily(ColumnFamilyDescriptor descriptor)
      throws RocksDBException {
    return inner.createColumnFamily(descriptor);
  }

  @Override
  public void dropColumnFamily(ColumnFamilyHandle cf) throws RocksDBException {
    inner.dropColumnFamily(cf);
  }
}
