package io.inferlens.storage;

import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The store's locks and their one order. A thread holding a lock may take only locks later in
 * this list (re-taking one it holds is fine):
 *
 * <ol>
 *   <li>{@link #lifecycle} (read by every operation, write by close), so close never frees a
 *       native handle in use;
 *   <li>{@link #finalize}: one finalization pass at a time ({@link WindowFinalizer});
 *   <li>{@link #flush}: one head flush at a time ({@link HeadFlusher}); finalization takes it per
 *       batch, so a flush and a finalization batch never interleave their marks;
 *   <li>{@link #append}: serializes appends ({@link HeadAppender}), conflict check and write as
 *       one step; the flush takes it briefly to cut the head;
 *   <li>{@link RocksHandles#partitionLock} (read while a partition handle is used, write by
 *       {@link Retention} to drop one);
 *   <li>the monitor of a {@link SeriesRef} (its head buffer), a leaf: nothing is taken under it.
 * </ol>
 *
 * <p>{@link #metadata} stands apart: it is taken under the lifecycle read lock only, by metric
 * metadata appends ({@link MetadataStore}), and no other lock is taken under it.
 *
 * <p>Ranks 2-4 are {@link RankedLock}s: with assertions enabled (the tests) taking one out of
 * order throws {@link AssertionError}, so the order is checked, not only written here. Methods
 * that need a lock held say so in their name ({@code ...Locked}) and assert it with
 * {@link RankedLock#assertHeld()}.
 */
final class StoreLocks {

  /** Rank of {@link #finalize}. */
  static final int RANK_FINALIZE = 1;
  /** Rank of {@link #flush}. */
  static final int RANK_FLUSH = 2;
  /** Rank of {@link #append}. */
  static final int RANK_APPEND = 3;

  /** Rank 0: read-held by every operation, write-held by close. */
  final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  /** Rank 1: one finalization pass at a time. */
  final RankedLock finalize = new RankedLock(RANK_FINALIZE, "finalize");
  /** Rank 2: one head flush at a time. */
  final RankedLock flush = new RankedLock(RANK_FLUSH, "flush");
  /** Rank 3: serializes appends. */
  final RankedLock append = new RankedLock(RANK_APPEND, "append");
  /** Serializes metric metadata appends; a leaf under the lifecycle read lock. */
  final ReentrantLock metadata = new ReentrantLock();

  /** A reentrant mutex with a rank in the store's lock order, checked under assertions. */
  static final class RankedLock {
    /** Per thread: bit r set while the thread holds the lock of rank r. */
    private static final ThreadLocal<int[]> HELD = ThreadLocal.withInitial(() -> new int[1]);

    private final ReentrantLock lock = new ReentrantLock();
    private final int rank;
    private final String name;

    RankedLock(int rank, String name) {
      this.rank = rank;
      this.name = name;
    }

    /** Takes the lock; under assertions, fails if the thread holds a lock of a higher rank. */
    void lock() {
      assert orderOk() : "lock order: " + name + " (rank " + rank + ") taken while holding"
          + " a later lock, ranks held 0b" + Integer.toBinaryString(HELD.get()[0]);
      lock.lock();
      assert mark();
    }

    /** Releases the lock taken by {@link #lock()}. */
    void unlock() {
      lock.unlock();
      assert unmark();
    }

    /** Fails under assertions unless the calling thread holds this lock. */
    void assertHeld() {
      assert lock.isHeldByCurrentThread() : name + " lock not held";
    }

    private boolean orderOk() {
      return lock.isHeldByCurrentThread() || (HELD.get()[0] >>> (rank + 1)) == 0;
    }

    private boolean mark() {
      HELD.get()[0] |= 1 << rank;
      return true;
    }

    private boolean unmark() {
      if (!lock.isHeldByCurrentThread()) {
        HELD.get()[0] &= ~(1 << rank);
      }
      return true;
    }
  }
}
