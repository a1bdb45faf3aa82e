package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The reserve's rules with a simulated free space: created when there is room, released for an
 * open that failed for lack of space, writes refused until the margin (plus the reserve once
 * released) is free, a write failing for lack of space refusing the next ones while the reserve
 * is kept.
 */
class DiskReserveTest {

  private static final long RESERVE = 1L << 20;
  private static final long MARGIN = 256L << 10;

  @TempDir Path dir;
  private final AtomicLong free = new AtomicLong(100L << 20);
  /** Writes that reached the facade below the guard. */
  private final AtomicInteger passed = new AtomicInteger();
  /** Set to make the facade below the guard fail the next write. */
  private RocksDBException nextFailure;

  static {
    RocksDB.loadLibrary(); // Status and RocksDBException need no native code, WriteBatch does
  }

  private DiskReserve reserve(long bytes) {
    return new DiskReserve(dir, bytes, MARGIN, free::get);
  }

  private RocksFacade below() {
    return new ForwardingRocksFacade(null) {
      @Override
      public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
        RocksDBException f = nextFailure;
        nextFailure = null;
        if (f != null) {
          throw f;
        }
        passed.incrementAndGet();
      }

      @Override
      public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs) {
        passed.incrementAndGet();
      }
    };
  }

  private static void write(RocksFacade db) throws RocksDBException {
    try (WriteOptions o = new WriteOptions(); WriteBatch b = new WriteBatch()) {
      db.write(o, b);
    }
  }

  private Path file() {
    return dir.resolve(DiskReserve.FILE_NAME);
  }

  @Test
  void createdAtOpenWhenThereIsRoomAndWritesPass() throws Exception {
    DiskReserve r = reserve(RESERVE);
    r.afterOpen();
    assertThat(Files.size(file())).isEqualTo(RESERVE);
    assertThat(r.lowSpace()).isFalse();
    assertThat(r.neededBytes()).isEqualTo(MARGIN);
    write(r.guard(below()));
    assertThat(passed).hasValue(1);
  }

  @Test
  void releasedByAnOpenFailingOnAFullDiskAndWritesRefusedUntilReserveAndMarginAreFree()
      throws Exception {
    DiskReserve r = reserve(RESERVE);
    r.afterOpen();
    free.set(MARGIN - 1); // the disk filled while the reserve was kept
    assertThat(r.releaseForOpen()).isTrue();
    assertThat(r.releaseForOpen()).as("nothing left to release").isFalse();
    r.afterOpen();
    assertThat(file()).doesNotExist();
    assertThat(r.lowSpace()).isTrue();
    assertThat(r.neededBytes()).isEqualTo(RESERVE + MARGIN);
    free.addAndGet(RESERVE); // what releasing it gave back
    RocksFacade db = r.guard(below());
    assertThatThrownBy(() -> write(db)).isInstanceOfSatisfying(RocksDBException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.IOError);
      assertThat(e.getStatus().getSubCode()).isEqualTo(Status.SubCode.NoSpace);
      assertThat(DiskReserve.isNoSpace(e)).isTrue();
      assertThat(e.getMessage()).isEqualTo("disk full: " + (RESERVE + MARGIN - 1)
          + " bytes free in " + dir + ", writes resume at " + (RESERVE + MARGIN)
          + " bytes free (disk reserve " + RESERVE + " bytes, released, + margin " + MARGIN
          + " bytes)");
    });
    assertThatThrownBy(() -> db.flush(null, List.of())).isInstanceOf(RocksDBException.class);
    assertThat(passed).hasValue(0);

    free.set(RESERVE + MARGIN); // the operator freed space
    write(db);
    assertThat(passed).hasValue(1);
    assertThat(r.lowSpace()).isFalse();
    assertThat(Files.size(file())).isEqualTo(RESERVE);
  }

  @Test
  void anOpenWithoutTheMarginFreeKeepsTheReserveAndRefusesWrites() throws Exception {
    DiskReserve r = reserve(RESERVE);
    r.afterOpen();
    free.set(MARGIN - 1);
    r.afterOpen(); // a restart that RocksDB managed without the reserve's room
    assertThat(Files.size(file())).isEqualTo(RESERVE);
    assertThat(r.lowSpace()).isTrue();
    assertThat(r.neededBytes()).isEqualTo(MARGIN);
    assertThat(r.refusal()).contains("disk reserve " + RESERVE + " bytes, kept");
    free.set(MARGIN);
    assertThat(r.tryResume()).isTrue();
  }

  @Test
  void aWriteFailingForLackOfSpaceRefusesTheNextOnesAndKeepsTheReserve() throws Exception {
    DiskReserve r = reserve(RESERVE);
    r.afterOpen();
    RocksFacade db = r.guard(below());
    free.set(0);
    RocksDBException enospc = new RocksDBException("While appending to file:"
        + " /data/000021.log: No space left on device");
    nextFailure = enospc;
    assertThatThrownBy(() -> write(db)).isSameAs(enospc);
    assertThat(r.lowSpace()).isTrue();
    assertThat(file()).exists();
    free.set(MARGIN - 1);
    assertThatThrownBy(() -> write(db)).hasMessageContaining("writes resume at " + MARGIN);
    free.set(MARGIN);
    write(db);
    assertThat(r.lowSpace()).isFalse();
    assertThat(passed).hasValue(1);
  }

  @Test
  void otherFailuresLeaveWritesAccepted() throws Exception {
    DiskReserve r = reserve(RESERVE);
    r.afterOpen();
    RocksFacade db = r.guard(below());
    nextFailure = new RocksDBException("IO error: injected");
    assertThatThrownBy(() -> write(db)).hasMessage("IO error: injected");
    assertThat(r.lowSpace()).isFalse();
    write(db);
    assertThat(passed).hasValue(1);
  }

  @Test
  void openWithoutReserveAndNoRoomStartsLowOnSpace() throws Exception {
    free.set(MARGIN); // enough for the margin, not for the reserve too
    DiskReserve r = reserve(RESERVE);
    assertThat(r.releaseForOpen()).isFalse();
    r.afterOpen();
    assertThat(file()).doesNotExist();
    assertThat(r.lowSpace()).isTrue();
    assertThat(r.tryResume()).isFalse();
    free.set(RESERVE + MARGIN);
    assertThat(r.tryResume()).isTrue();
    assertThat(Files.size(file())).isEqualTo(RESERVE);
  }

  @Test
  void aPartialReserveLeftByACrashIsRemovedAtOpen() throws Exception {
    Files.write(dir.resolve(DiskReserve.PARTIAL_FILE_NAME), new byte[1000]);
    reserve(RESERVE).afterOpen();
    assertThat(dir.resolve(DiskReserve.PARTIAL_FILE_NAME)).doesNotExist();
    assertThat(Files.size(file())).isEqualTo(RESERVE);
  }

  @Test
  void sizeZeroMeansNoFileAndNoRefusals() throws Exception {
    free.set(0);
    DiskReserve r = reserve(0);
    r.afterOpen();
    assertThat(r.releaseForOpen()).isFalse();
    assertThat(file()).doesNotExist();
    RocksFacade inner = below();
    assertThat(r.guard(inner)).isSameAs(inner);
    r.noSpace();
    assertThat(r.lowSpace()).isFalse();
    assertThat(r.neededBytes()).isZero();
  }
}
