package io.inferlens.storage;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The free-space floor of one store ({@link StoreOptions#minFreeDiskBytes()}): free space that
 * the store's writes never take, as VictoriaMetrics's {@code -storage.minFreeDiskSpaceBytes}.
 * Nothing is written to disk for it: the room a restart needs is kept by refusing writes, not by
 * a file.
 *
 * <p>Admission rule ({@link #guard}): a write batch of {@code b} bytes
 * ({@link WriteBatch#getDataSize()}) is admitted while {@code free - written - b >= floor}, where
 * {@code free} is the file system's usable space for this process at the last reading and
 * {@code written} the bytes of the batches admitted since. The reading is taken again (one
 * {@code statfs}) when it is 1 s old ({@link #CHECK_INTERVAL_NS}) or 1 MiB of batches were
 * admitted since ({@link #CHECK_BYTES}), so a batch never passes on a reading older than that.
 * Space RocksDB takes on its own (memtable flushes, compactions) between two readings is not
 * estimated: the floor covers it.
 *
 * <p>Low-space state: entered when a batch is refused by that rule, when an open finds less than
 * the floor free, or when a RocksDB write or memtable flush fails for lack of space. While in it
 * every write batch is refused with a RocksDB {@code IOError/NoSpace} ({@link #refusal}) until
 * {@code floor + margin} bytes are free (the margin so that a resumed store does not flap between
 * accepting and refusing at the floor); checked on each refused write, probe write and background
 * tick ({@link #writable()}), on readings at most 1 s old. Memtable flushes are never refused
 * here: they turn WAL files into smaller SST files, and keeping the WAL within the memtables is
 * what keeps an open cheap (about 1 MiB free needed, measured; see {@link #openFailure}).
 *
 * <p>With a floor of 0 nothing of this applies: the guard passes every call. Thread safe.
 */
final class FreeSpaceFloor {

  /**
   * The disk reserve file an earlier version kept in the data directory, 64 MiB of no data; it
   * and its {@code .partial} are deleted at open.
   */
  static final String LEGACY_RESERVE_FILE = "inferlens-disk-reserve";

  /**
   * Hysteresis beyond the floor that writes need to resume: 32 MiB, at most the floor itself.
   * One head-log memtable (32 MiB): a resumed store can fill and flush one before it reaches the
   * floor again, so it does not flap per request.
   */
  static final long MARGIN_BYTES = 32L << 20;

  /** Most age of a free-space reading a write is admitted on: 1 s, in nanoseconds. */
  static final long CHECK_INTERVAL_NS = 1_000_000_000L;

  /** Most batch bytes admitted on one free-space reading: 1 MiB. */
  static final long CHECK_BYTES = 1L << 20;

  /**
   * Free bytes an open needed in our measurements: a store SIGKILLed at the floor (its WAL fits
   * the memtables, which {@code avoid_flush_during_recovery} keeps in memory) opened with 64 KiB
   * free and took 32 KiB ({@code FullDiskRestartTest}, 2,000-series head); up to 16 MiB when
   * the WAL had outgrown the memtables (flushes that failed on a full disk), as RocksDB then
   * writes them all to SST files at open.
   */
  static final String OPEN_NEEDS = "under 1 MiB after a stop at the floor, 32 KiB measured; up"
      + " to 16 MiB when memtable flushes had failed on a full disk";

  private static final System.Logger LOG = System.getLogger(TimeSeriesStore.class.getName());

  /** The usable bytes of the file system holding a directory; tests substitute their own. */
  @FunctionalInterface
  interface FreeSpace {
    /**
     * @return usable bytes now, &ge; 0
     * @throws IOException if the file system cannot be asked
     */
    long usableBytes() throws IOException;
  }

  private final Path dir;
  private final long floorBytes;
  private final long marginBytes;
  private final FreeSpace freeSpace;
  private final LongSupplier nanoTime;
  private volatile boolean lowSpace;
  // The last reading; guarded by this.
  private boolean read;
  private long readAtNs;
  private long lastFreeBytes = -1;
  private long writtenSince;
  private boolean warnedUnreadable;

  /**
   * @param dir the data directory, for messages
   * @param floorBytes free bytes writes never take, &ge; 0; 0 disables everything here
   * @param marginBytes free bytes beyond the floor that writes need to resume, &ge; 0
   * @param freeSpace the file system's usable bytes
   * @param nanoTime a monotonic clock in nanoseconds ({@link System#nanoTime()})
   */
  FreeSpaceFloor(Path dir, long floorBytes, long marginBytes, FreeSpace freeSpace,
      LongSupplier nanoTime) {
    this.dir = dir;
    this.floorBytes = floorBytes;
    this.marginBytes = marginBytes;
    this.freeSpace = freeSpace;
    this.nanoTime = nanoTime;
  }

  /**
   * @param options the store's options: its data directory (existing) and floor
   * @return the floor of that store, reading the data directory's file system
   * @throws IOException if the directory's file system cannot be found
   */
  static FreeSpaceFloor of(StoreOptions options) throws IOException {
    Path dir = options.dataDir();
    // One FileStore: getFileStore reads the mount table, getUsableSpace is one statfs.
    FileStore store = Files.getFileStore(dir);
    long floor = options.minFreeDiskBytes();
    return new FreeSpaceFloor(dir, floor, Math.min(MARGIN_BYTES, floor), store::getUsableSpace,
        System::nanoTime);
  }

  /**
   * Deletes the disk reserve file (and its {@code .partial}) that an earlier version kept in
   * the data directory, so it wastes no disk; logs what was freed.
   *
   * @param dir the data directory
   */
  static void deleteLegacyReserve(Path dir) {
    for (String name : List.of(LEGACY_RESERVE_FILE, LEGACY_RESERVE_FILE + ".partial")) {
      Path p = dir.resolve(name);
      try {
        long size = Files.exists(p) ? Files.size(p) : 0;
        if (Files.deleteIfExists(p)) {
          LOG.log(System.Logger.Level.INFO, "deleted {0} ({1} bytes) left by an earlier version:"
              + " the store keeps free space instead of a file", p, size);
        }
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "cannot delete {0}: {1}", p, e.toString());
      }
    }
  }

  /** @return whether a floor is configured (&gt; 0) */
  boolean enabled() {
    return floorBytes > 0;
  }

  /** @return whether writes are refused for lack of space */
  boolean lowSpace() {
    return lowSpace;
  }

  /**
   * After RocksDB opened: enters the low-space state when less than the floor is free (a fresh
   * reading). Does nothing without a floor.
   */
  synchronized void afterOpen() {
    if (!enabled()) {
      return;
    }
    read = false;
    if (!writable()) {
      LOG.log(System.Logger.Level.WARNING, "{0}: writes are refused until then", refusal());
    }
  }

  /**
   * Re-evaluates the state on a reading at most 1 s old, as a write of 0 bytes would: leaves the
   * low-space state at {@code floor + margin} free, enters it below the floor.
   *
   * @return true if writes are accepted now (always without a floor)
   */
  synchronized boolean writable() {
    return !enabled() || check(0);
  }

  /** A write or flush failed for lack of space: refuse writes until there is room again. */
  synchronized void noSpace() {
    if (enabled() && !lowSpace) {
      lowSpace = true;
      read = false; // the next check reads the file system again
      LOG.log(System.Logger.Level.WARNING, "a write to the store in {0} failed for lack of"
          + " space: writes are refused until {1} bytes are free", dir, floorBytes + marginBytes);
    }
  }

  /**
   * @return why writes are refused, e.g. {@code disk full: 5242880 bytes free in /data, under
   *     the floor of 67108864 bytes kept free; writes resume at 100663296 bytes free (floor +
   *     margin 33554432 bytes)}
   */
  synchronized String refusal() {
    return "disk full: " + lastFreeBytes + " bytes free in " + dir + ", under the floor of "
        + floorBytes + " bytes kept free; writes resume at " + (floorBytes + marginBytes)
        + " bytes free (floor + margin " + marginBytes + " bytes)";
  }

  /** @return the refusal as RocksDB reports a full disk: IOError, sub code NoSpace */
  RocksDBException refusalException() {
    String message = refusal();
    return new RocksDBException(message,
        new Status(Status.Code.IOError, Status.SubCode.NoSpace, message));
  }

  /**
   * @param dir the data directory
   * @param e RocksDB's failure to open, for lack of space ({@link #isNoSpace})
   * @param usableBytes the free bytes now, or -1 if unknown
   * @return the message for it: how much is free and how much an open needs
   */
  static String openFailure(Path dir, RocksDBException e, long usableBytes) {
    return "cannot open RocksDB in " + dir + " for lack of space: " + usableBytes
        + " bytes free, and an open needs a few MiB at most (" + OPEN_NEEDS + "): free some"
        + " space and start again. RocksDB: " + e.getMessage();
  }

  /**
   * @param e a RocksDB failure
   * @return whether it is for lack of space: sub code NoSpace or {@code ENOSPC}'s message
   */
  static boolean isNoSpace(RocksDBException e) {
    Status s = e.getStatus();
    if (s != null && s.getSubCode() == Status.SubCode.NoSpace) {
      return true;
    }
    String m = e.getMessage();
    return m != null && m.contains("No space left on device");
  }

  /**
   * @param inner the facade to pass operations to
   * @return {@code inner} without a floor; else a facade whose {@code write} is refused by the
   *     admission rule ({@link #refusalException()}) and whose {@code write} and {@code flush}
   *     enter the low-space state when they fail for lack of space; flushes are never refused
   */
  RocksFacade guard(RocksFacade inner) {
    if (!enabled()) {
      return inner;
    }
    return new ForwardingRocksFacade(inner) {
      @Override
      public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
        admit(batch.getDataSize());
        try {
          inner.write(options, batch);
        } catch (RocksDBException e) {
          onFailure(e);
          throw e;
        }
      }

      @Override
      public void flush(FlushOptions options, List<ColumnFamilyHandle> cfs)
          throws RocksDBException {
        try {
          inner.flush(options, cfs);
        } catch (RocksDBException e) {
          onFailure(e);
          throw e;
        }
      }
    };
  }

  private synchronized void admit(long bytes) throws RocksDBException {
    if (!check(bytes)) {
      throw refusalException();
    }
    writtenSince += bytes;
  }

  /** The admission rule for {@code bytes} more, updating the state; caller holds this. */
  private boolean check(long bytes) {
    long free = estimate();
    if (lowSpace && free >= floorBytes + marginBytes) {
      lowSpace = false;
      LOG.log(System.Logger.Level.INFO, "{0} bytes free for the store in {1}: writes accepted"
          + " again", free, dir);
    }
    if (!lowSpace && free - bytes >= floorBytes) {
      return true;
    }
    if (!lowSpace) {
      lowSpace = true;
      LOG.log(System.Logger.Level.WARNING, "{0}", refusal());
    }
    return false;
  }

  /** Free bytes: the last reading less what was admitted since, read again when stale. */
  private long estimate() {
    long now = nanoTime.getAsLong();
    if (!read || now - readAtNs >= CHECK_INTERVAL_NS || writtenSince >= CHECK_BYTES) {
      try {
        lastFreeBytes = freeSpace.usableBytes();
        warnedUnreadable = false;
      } catch (IOException e) {
        // Unknown: not refused here; RocksDB's own failures still enter the low-space state.
        if (!warnedUnreadable) {
          warnedUnreadable = true;
          LOG.log(System.Logger.Level.WARNING, "cannot read the free space of {0}: {1}", dir,
              e.toString());
        }
        return Long.MAX_VALUE;
      }
      read = true;
      readAtNs = now;
      writtenSince = 0;
    }
    return lastFreeBytes - writtenSince;
  }

  private void onFailure(RocksDBException e) {
    if (isNoSpace(e)) {
      noSpace();
    }
  }
}
