package io.inferlens.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The disk reserve of one store and its low-space state: a file of
 * {@link StoreOptions#diskReserveBytes()} bytes, {@value #FILE_NAME} in the data directory, that
 * holds room for RocksDB to open on a full file system.
 *
 * <p>Open: when RocksDB's open fails for lack of space, the reserve is released (deleted) and
 * the open tried again ({@link #releaseForOpen()}): replaying the WAL may write memtables to SST
 * files, and an open writes a new MANIFEST, OPTIONS and WAL file. Once open
 * ({@link #afterOpen()}), the store is in the low-space state if less than
 * {@link #neededBytes()} is free, else the reserve is created if missing.
 *
 * <p>Low-space state: entered at such an open and when a write or memtable flush fails for lack
 * of space ({@link #guard}). Every write and flush through the guard is then refused with a
 * RocksDB {@code IOError/NoSpace} until the file system has {@link #neededBytes()} free: the
 * reserve plus {@link #MARGIN_BYTES} while the reserve is released, the margin alone while it is
 * kept. Then the reserve is recreated and writes pass again. Refusing keeps ingest from taking
 * the released reserve, which the next open on a full disk may need. The reserve is released
 * only by an open that needs it: kept, it serves the next restart too.
 *
 * <p>With a reserve size of 0 nothing of this applies: no file, no state, the guard passes every
 * call. Free space is the file system's usable space for this process
 * ({@link java.nio.file.FileStore#getUsableSpace()}). Thread safe.
 */
final class DiskReserve {

  /** The reserve file's name in the data directory; RocksDB ignores files it did not name. */
  static final String FILE_NAME = "inferlens-disk-reserve";

  /** The file being written; renamed to {@link #FILE_NAME} once complete. */
  static final String PARTIAL_FILE_NAME = FILE_NAME + ".partial";

  /**
   * Free space beyond the reserve that writes need to resume: 32 MiB, room for one head-log
   * memtable (32 MiB) to be flushed, so ingest does not fill the disk again at once.
   */
  static final long MARGIN_BYTES = 32L << 20;

  /** Bytes written per call when creating the reserve: 1 MiB. */
  private static final int WRITE_BLOCK_BYTES = 1 << 20;

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
  private final Path file;
  private final long reserveBytes;
  private final long marginBytes;
  private final FreeSpace freeSpace;
  private volatile boolean lowSpace;
  /** Free bytes when the low-space state was last checked, for its message. */
  private volatile long lastFreeBytes = -1;

  /**
   * @param dir the data directory, existing
   * @param reserveBytes reserve file size in bytes, &ge; 0; 0 disables everything here
   * @param marginBytes free bytes beyond the reserve that writes need to resume, &ge; 0
   * @param freeSpace the file system's usable bytes
   */
  DiskReserve(Path dir, long reserveBytes, long marginBytes, FreeSpace freeSpace) {
    this.dir = dir;
    this.file = dir.resolve(FILE_NAME);
    this.reserveBytes = reserveBytes;
    this.marginBytes = marginBytes;
    this.freeSpace = freeSpace;
  }

  /**
   * @param options the store's options: its data directory (existing) and reserve size
   * @return the reserve of that store, measuring the data directory's file system
   */
  static DiskReserve of(StoreOptions options) {
    Path dir = options.dataDir();
    return new DiskReserve(dir, options.diskReserveBytes(), MARGIN_BYTES,
        () -> Files.getFileStore(dir).getUsableSpace());
  }

  /** @return whether a reserve is configured (size &gt; 0) */
  boolean enabled() {
    return reserveBytes > 0;
  }

  /** @return whether the reserve file is in the data directory now */
  boolean present() {
    return Files.exists(file);
  }

  /** @return whether writes are refused for lack of space */
  boolean lowSpace() {
    return lowSpace;
  }

  /**
   * @return the free bytes writes need to be accepted: the margin, plus the reserve's size
   *     while the reserve is released; 0 without a reserve
   */
  long neededBytes() {
    return !enabled() ? 0 : marginBytes + (present() ? 0 : reserveBytes);
  }

  /**
   * RocksDB's open failed for lack of space: deletes the reserve, so the next attempt has its
   * room, and enters the low-space state. Call only while no other process can hold the store
   * (after an open attempt that did not fail on RocksDB's lock).
   *
   * @return whether there was a reserve to release (so another attempt may succeed)
   * @throws IOException if the reserve cannot be deleted
   */
  synchronized boolean releaseForOpen() throws IOException {
    if (!enabled() || !present()) {
      return false;
    }
    Files.delete(file);
    lowSpace = true;
    LOG.log(System.Logger.Level.WARNING, "the store in {0} could not open for lack of space:"
        + " released the disk reserve of {1} bytes", dir, reserveBytes);
    return true;
  }

  /**
   * After RocksDB opened (its lock held, so no other process uses the directory): removes a
   * partial reserve left by a crash, then enters the low-space state when less than
   * {@link #neededBytes()} is free, or else creates the reserve if it is missing. Does nothing
   * without a reserve. Failures to delete or write are logged, leaving the store low on space.
   */
  synchronized void afterOpen() {
    if (!enabled()) {
      return;
    }
    try {
      Files.deleteIfExists(dir.resolve(PARTIAL_FILE_NAME));
      long free = freeSpace.usableBytes();
      lastFreeBytes = free;
      if (free >= neededBytes()) {
        if (!present()) {
          create();
        }
        lowSpace = false; // released for the open, which then freed WAL files
        return;
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot check or write the disk reserve in {0}: {1}",
          dir, e.toString());
    }
    lowSpace = true;
    LOG.log(System.Logger.Level.WARNING, "only {0} bytes free for the store in {1} (disk"
        + " reserve {2}): writes are refused until {3} bytes are free", lastFreeBytes, dir,
        present() ? "kept" : "released", neededBytes());
  }

  /**
   * Leaves the low-space state if {@link #neededBytes()} is free now, recreating the reserve
   * first (writes {@code reserveBytes} random bytes, then fsync, under this object's lock).
   *
   * @return true if writes are accepted (also when not in the low-space state)
   */
  synchronized boolean tryResume() {
    if (!lowSpace) {
      return true;
    }
    long free;
    try {
      free = freeSpace.usableBytes();
    } catch (IOException e) {
      return false;
    }
    lastFreeBytes = free;
    if (free < neededBytes()) {
      return false;
    }
    if (!present()) {
      try {
        create();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "cannot recreate the disk reserve in {0}: {1}",
            dir, e.toString());
        return false;
      }
    }
    lowSpace = false;
    LOG.log(System.Logger.Level.INFO, "{0} bytes free for the store in {1}: disk reserve of"
        + " {2} bytes in place, writes accepted again", free, dir, reserveBytes);
    return true;
  }

  /** A write or flush failed for lack of space: refuse writes until there is room again. */
  void noSpace() {
    if (enabled()) {
      lowSpace = true;
    }
  }

  /**
   * @return why writes are refused, e.g. {@code disk full: 5242880 bytes free in /data, writes
   *     resume at 100663296 bytes free (disk reserve 67108864 bytes, released, + margin 33554432
   *     bytes)}
   */
  String refusal() {
    boolean kept = present();
    return "disk full: " + lastFreeBytes + " bytes free in " + dir + ", writes resume at "
        + neededBytes() + " bytes free (disk reserve " + reserveBytes + " bytes, "
        + (kept ? "kept" : "released") + ", + margin " + marginBytes + " bytes)";
  }

  /** @return the refusal as RocksDB reports a full disk: IOError, sub code NoSpace */
  RocksDBException refusalException() {
    String message = refusal();
    return new RocksDBException(message,
        new Status(Status.Code.IOError, Status.SubCode.NoSpace, message));
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
   * @return {@code inner} without a reserve; else a facade whose {@code write} and {@code flush}
   *     are refused in the low-space state ({@link #refusalException()}) and enter it when they
   *     fail for lack of space
   */
  RocksFacade guard(RocksFacade inner) {
    if (!enabled()) {
      return inner;
    }
    return new ForwardingRocksFacade(inner) {
      @Override
      public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
        admit();
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
        admit();
        try {
          inner.flush(options, cfs);
        } catch (RocksDBException e) {
          onFailure(e);
          throw e;
        }
      }
    };
  }

  private void admit() throws RocksDBException {
    if (lowSpace && !tryResume()) {
      throw refusalException();
    }
  }

  private void onFailure(RocksDBException e) {
    if (isNoSpace(e)) {
      noSpace();
    }
  }

  /** Writes the reserve under a partial name, syncs it, then renames it into place. */
  private void create() throws IOException {
    Path partial = dir.resolve(PARTIAL_FILE_NAME);
    try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      // Random bytes, not zeros: a compressing file system (ZFS, btrfs) stores zeros in nothing.
      // One random block, its every 4 KiB page stamped with its offset so that no two pages are
      // alike (deduplication): 64 MiB of fresh random bytes took 0.8-1.0 s, this 0.1-0.4 s.
      ByteBuffer block = ByteBuffer.allocate(WRITE_BLOCK_BYTES);
      ThreadLocalRandom.current().nextBytes(block.array());
      long left = reserveBytes;
      long offset = 0;
      while (left > 0) {
        for (int page = 0; page < WRITE_BLOCK_BYTES; page += 4096) {
          block.putLong(page, offset + page);
        }
        offset += WRITE_BLOCK_BYTES;
        block.clear().limit((int) Math.min(WRITE_BLOCK_BYTES, left));
        while (block.hasRemaining()) {
          left -= ch.write(block);
        }
      }
      ch.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(partial);
      throw e;
    }
    Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
  }
}
