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
 * The floor's rules with a simulated free space and clock: writes admitted while the floor stays
 * free, refused under it until floor + margin is free, flushes never refused, a write failing
 * for lack of space refusing the next ones, free space read at most once a second or per MiB
 * written, and the earlier version's reserve file deleted.
 */
class FreeSpaceFloorTest {

  private static final long FLOOR = 1L << 20;
  private static final long MARGIN = 256L << 10;

  @TempDir Path dir;
  private final AtomicLong free = new AtomicLong(100L << 20);
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicLong nowNs = new AtomicLong();
  /** Writes and flushes that reached the facade below the guard. */
  private final AtomicInteger passed = new AtomicInteger();
  /** Set to make the facade below the guard fail the next write or flush. */
  private RocksDBException nextFailure;

  static {
    RocksDB.loadLibrary(); // Status and RocksDBException need no native code, WriteBatch does
  }

  private FreeSpaceFloor floor(long bytes) {
    return new FreeSpaceFloor(dir, bytes, MARGIN, () -> {
      reads.incrementAndGet();
      return free.get();
    }, nowNs::get);
  }

  private void failNext() throws RocksDBException {
    RocksDBException f = nextFailure;
    nextFailure = null;
    if (f != null) {
      throw f;
    }
    passed.incrementAndGet();
  }

  private RocksFacade below() {
    return new ForwardingRocksFacade(null) {
      @Override
      public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
        failNext();
      }

      @Override
      public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs)
          throws RocksDBException {
        failNext();
      }
    };
  }

  /** Writes one batch of about {@code bytes} bytes. */
  private static void write(RocksFacade db, int bytes) throws RocksDBException {
    try (WriteOptions o = new WriteOptions(); WriteBatch b = new WriteBatch()) {
      if (bytes > 0) {
        b.put(new byte[] {1}, new byte[bytes]);
      }
      db.write(o, b);
    }
  }

  private void advanceSeconds(long s) {
    nowNs.addAndGet(s * FreeSpaceFloor.CHECK_INTERVAL_NS);
  }

  @Test
  void writesPassAboveTheFloorAndAreRefusedUnderItUntilFloorPlusMarginIsFree()
      throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    f.afterOpen();
    assertThat(f.lowSpace()).isFalse();
    RocksFacade db = f.guard(below());
    write(db, 0);
    assertThat(passed).hasValue(1);

    free.set(FLOOR - 1); // another process filled the disk
    advanceSeconds(1);
    assertThatThrownBy(() -> write(db, 0)).isInstanceOfSatisfying(RocksDBException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.IOError);
      assertThat(e.getStatus().getSubCode()).isEqualTo(Status.SubCode.NoSpace);
      assertThat(FreeSpaceFloor.isNoSpace(e)).isTrue();
      assertThat(e.getMessage()).isEqualTo("disk full: " + (FLOOR - 1) + " bytes free in " + dir
          + ", under the floor of " + FLOOR + " bytes kept free; writes resume at "
          + (FLOOR + MARGIN) + " bytes free (floor + margin " + MARGIN + " bytes)");
    });
    assertThat(f.lowSpace()).isTrue();

    free.set(FLOOR + MARGIN - 1); // above the floor, not above the margin: still refused
    advanceSeconds(1);
    assertThatThrownBy(() -> write(db, 0)).hasMessageContaining("writes resume at");
    assertThat(f.writable()).isFalse();
    assertThat(passed).hasValue(1);

    free.set(FLOOR + MARGIN); // the operator freed space
    advanceSeconds(1);
    write(db, 0);
    assertThat(passed).hasValue(2);
    assertThat(f.lowSpace()).isFalse();
  }

  @Test
  void flushesAreNeverRefusedByTheFloor() throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    free.set(0);
    f.afterOpen();
    assertThat(f.lowSpace()).as("an open with less than the floor free").isTrue();
    RocksFacade db = f.guard(below());
    assertThatThrownBy(() -> write(db, 0)).isInstanceOf(RocksDBException.class);
    db.flush(null, List.of()); // frees WAL files: must run
    assertThat(passed).hasValue(1);
  }

  @Test
  void aBatchIsRefusedWhenItWouldTakeTheFloor() throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    free.set(FLOOR + 100_000);
    f.afterOpen();
    RocksFacade db = f.guard(below());
    write(db, 60_000);
    // The reading is fresh: the 60 KB admitted count against it, so 60 KB more would cross.
    assertThatThrownBy(() -> write(db, 60_000)).hasMessageContaining("disk full");
    assertThat(passed).hasValue(1);
    assertThat(reads).as("one reading for both").hasValue(1);
  }

  @Test
  void freeSpaceIsReadOncePerSecondOrPerMibWritten() throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    f.afterOpen();
    RocksFacade db = f.guard(below());
    int before = reads.get();
    for (int i = 0; i < 100; i++) {
      write(db, 1000); // 100 KB in all, within one second
    }
    assertThat(reads.get() - before).as("readings for 100 small writes").isEqualTo(0);
    advanceSeconds(1);
    write(db, 1000);
    assertThat(reads.get() - before).as("a reading a second old is not used").isEqualTo(1);
    for (int i = 0; i < 3; i++) {
      write(db, 600_000);
    }
    assertThat(reads.get() - before).as("and not after 1 MiB of batches").isEqualTo(2);
  }

  @Test
  void aWriteFailingForLackOfSpaceRefusesTheNextOnes() throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    f.afterOpen();
    RocksFacade db = f.guard(below());
    free.set(0);
    RocksDBException enospc = new RocksDBException("While appending to file:"
        + " /data/000021.log: No space left on device");
    nextFailure = enospc;
    assertThatThrownBy(() -> write(db, 0)).isSameAs(enospc); // on a reading still fresh
    assertThat(f.lowSpace()).isTrue();
    free.set(FLOOR + MARGIN - 1);
    assertThatThrownBy(() -> write(db, 0)).hasMessageContaining("writes resume at "
        + (FLOOR + MARGIN));
    free.set(FLOOR + MARGIN);
    advanceSeconds(1);
    assertThat(f.writable()).isTrue();
    write(db, 0);
    assertThat(passed).hasValue(1);
  }

  @Test
  void aFlushFailingForLackOfSpaceRefusesWrites() throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    f.afterOpen();
    RocksFacade db = f.guard(below());
    nextFailure = new RocksDBException("IO error: No space left on device");
    assertThatThrownBy(() -> db.flush(null, List.of())).isInstanceOf(RocksDBException.class);
    free.set(FLOOR); // read again at once after the failure: under floor + margin
    assertThatThrownBy(() -> write(db, 0)).hasMessageContaining("disk full: " + FLOOR);
  }

  @Test
  void otherFailuresLeaveWritesAccepted() throws Exception {
    FreeSpaceFloor f = floor(FLOOR);
    f.afterOpen();
    RocksFacade db = f.guard(below());
    nextFailure = new RocksDBException("IO error: injected");
    assertThatThrownBy(() -> write(db, 0)).hasMessage("IO error: injected");
    assertThat(f.lowSpace()).isFalse();
    write(db, 0);
    assertThat(passed).hasValue(1);
  }

  @Test
  void floorZeroMeansNoRefusals() throws Exception {
    free.set(0);
    FreeSpaceFloor f = floor(0);
    f.afterOpen();
    RocksFacade inner = below();
    assertThat(f.guard(inner)).isSameAs(inner);
    f.noSpace();
    assertThat(f.lowSpace()).isFalse();
    assertThat(f.writable()).isTrue();
    assertThat(reads).hasValue(0);
  }

  @Test
  void theEarlierVersionsReserveFileIsDeleted() throws Exception {
    Files.write(dir.resolve(FreeSpaceFloor.LEGACY_RESERVE_FILE), new byte[1000]);
    Files.write(dir.resolve(FreeSpaceFloor.LEGACY_RESERVE_FILE + ".partial"), new byte[10]);
    FreeSpaceFloor.deleteLegacyReserve(dir);
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aStoreOpenDeletesTheReserveFileAndWritesNoFileOfItsOwn() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    Files.write(data.resolve(FreeSpaceFloor.LEGACY_RESERVE_FILE), new byte[1000]);
    try (TimeSeriesStore store = TimeSeriesStore.open(
        StoreOptions.defaults(data).withMinFreeDiskBytes(FLOOR))) {
      assertThat(store.writeHealth().failure()).isNull();
    }
    assertThat(data.resolve(FreeSpaceFloor.LEGACY_RESERVE_FILE)).doesNotExist();
  }
}
