package io.inferlens.storage;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * For the api module's tests: a real store whose RocksDB writes fail with a full disk's error
 * while a flag is set, through the same {@link RocksFacade} seam as storage's
 * {@code FaultInjectionTest} (this class lives in the storage package for that package-private
 * seam; on the test class path the package spans both modules).
 */
public final class FailingStores {

  private FailingStores() {}

  /**
   * @param options where and how
   * @param clock the store's clock
   * @param failWrites while true, every write batch and memtable flush fails with RocksDB's
   *     {@code IO error: No space left on device}
   * @return the open store
   * @throws StorageException if it cannot be opened
   */
  public static TimeSeriesStore open(StoreOptions options, Clock clock, AtomicBoolean failWrites)
      throws StorageException {
    return TimeSeriesStore.open(options, clock, real -> new Full(real, failWrites));
  }

  /** Passes everything to the real database but writes and flushes while the disk is "full". */
  private static final class Full extends ForwardingRocksFacade {
    private final AtomicBoolean full;

    Full(RocksFacade real, AtomicBoolean full) {
      super(real);
      this.full = full;
    }

    private void check() throws RocksDBException {
      if (full.get()) {
        throw new RocksDBException("IO error: No space left on device");
      }
    }

    @Override
    public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
      check();
      inner.write(options, batch);
    }

    @Override
    public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs)
        throws RocksDBException {
      check();
      inner.flush(options, cfs);
    }
  }
}
