package io.inferlens.storage;

import java.time.Clock;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Whether the store can write, judged by the outcome of its most recent RocksDB write: every
 * write batch and memtable flush the store makes goes through {@link #track(RocksFacade)}, a
 * failure (a full disk, an I/O error, RocksDB's read-only mode after a background error) marks
 * the store as unable to write, the next success marks it able again; so does a write refused
 * while the store is low on space, and a store that opens low on space starts marked unable
 * ({@link FreeSpaceFloor}). Readiness
 * ({@code /-/ready}) reports it, and {@link TimeSeriesStore#probeWrite()} makes a write of its own
 * when no sender writes (one backing off after its 503s), so recovery is seen without traffic.
 *
 * <p>Last outcome wins: with writes failing and succeeding concurrently (a disk at the edge of
 * full), the state follows whichever finished last. Thread safe: one volatile field.
 */
public final class WriteHealth {

  /**
   * Why the store cannot write.
   *
   * @param sinceMs when the first failure of the current run of failures happened, epoch
   *     milliseconds by the store's clock
   * @param message RocksDB's message of the most recent failure, e.g.
   *     {@code IO error: No space left on device}
   * @param failures failed writes in the current run, at least 1
   */
  public record Failure(long sinceMs, String message, long failures) {}

  private final Clock clock;
  private volatile Failure failure;

  /** @param clock the source of {@link Failure#sinceMs()} */
  WriteHealth(Clock clock) {
    this.clock = clock;
  }

  /** @return null while the most recent write succeeded (or none was made yet), else why not */
  public Failure failure() {
    return failure;
  }

  void succeeded() {
    if (failure != null) {
      failure = null;
    }
  }

  void failed(RocksDBException e) {
    Failure f = failure;
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    failure = f == null ? new Failure(clock.millis(), message, 1)
        : new Failure(f.sinceMs(), message, f.failures() + 1);
  }

  /**
   * @param inner the facade to pass every operation to
   * @return a facade that records the outcome of each {@code write} and {@code flush} here
   */
  RocksFacade track(RocksFacade inner) {
    return new ForwardingRocksFacade(inner) {
      @Override
      public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
        try {
          inner.write(options, batch);
        } catch (RocksDBException e) {
          failed(e);
          throw e;
        }
        succeeded();
      }

      @Override
      public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs)
          throws RocksDBException {
        try {
          inner.flush(options, cfs);
        } catch (RocksDBException e) {
          failed(e);
          throw e;
        }
        succeeded();
      }
    };
  }
}
