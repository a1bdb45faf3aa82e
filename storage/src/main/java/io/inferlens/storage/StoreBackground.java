package io.inferlens.storage;

import static io.inferlens.storage.TimeSeriesStore.HEAD_MAX_AGE_MS;
import static io.inferlens.storage.TimeSeriesStore.IDLE_FLUSH_MIN_SAMPLES;
import static io.inferlens.storage.TimeSeriesStore.IDLE_FLUSH_MS;

import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The store's background thread and its policy: a head flush when the head is full (requested by
 * the append path), old ({@link TimeSeriesStore#HEAD_MAX_AGE_MS}) or idle
 * ({@link TimeSeriesStore#IDLE_FLUSH_MS}), finalization of closed windows, every 5 s, and the
 * sweep that makes idle series inactive ({@link ActiveSeries#sweep}, once a minute).
 */
final class StoreBackground implements HeadAppender.FlushRequester {

  /** How often the background thread checks for head age, idleness, closed windows: 5 s. */
  private static final long PERIOD_MS = 5_000;

  private static final System.Logger LOG = System.getLogger(TimeSeriesStore.class.getName());

  private final StoreCore core;
  private final HeadFlusher flusher;
  private final WindowFinalizer finalizer;
  private final StoreMaintenance maintenance;
  private final ScheduledExecutorService background;
  /** The queued or running background flush; guarded by the append lock. */
  private Future<?> pendingFlush;

  StoreBackground(StoreCore core, HeadFlusher flusher, WindowFinalizer finalizer,
      StoreMaintenance maintenance) {
    this.core = core;
    this.flusher = flusher;
    this.finalizer = finalizer;
    this.maintenance = maintenance;
    this.background = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "inferlens-store-background");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the periodic tick; once, after the store is loaded. */
  void start() {
    background.scheduleWithFixedDelay(this::backgroundTick, PERIOD_MS, PERIOD_MS,
        TimeUnit.MILLISECONDS);
  }

  /** Stops the thread, waiting up to 60 s for a running flush or finalization. */
  void shutdown() {
    background.shutdown();
    try {
      if (!background.awaitTermination(60, TimeUnit.SECONDS)) {
        background.shutdownNow();
      }
    } catch (InterruptedException e) {
      background.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  /** Schedules a head flush unless one is already queued; under the append lock. */
  public Future<?> requestFlush() {
    core.locks.append.assertHeld();
    if (pendingFlush == null || pendingFlush.isDone()) {
      try {
        pendingFlush = background.submit(() -> {
          try {
            flusher.flushHead();
          } catch (StorageException e) {
            LOG.log(System.Logger.Level.ERROR, "head flush failed; the head log keeps the"
                + " samples and the next flush retries", e);
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        // close() stopped the background thread: the head log keeps the samples for next open.
        return java.util.concurrent.CompletableFuture.completedFuture(null);
      }
    }
    return pendingFlush;
  }

  /**
   * The periodic background work (every 5 s; tests call it directly with a fake clock): leave
   * the low-space state when there is room again, else stop here
   * ({@link FreeSpaceFloor#writable()}), flush a head that is old or idle, sweep idle series inactive (once a minute), then finalize closed
   * windows. When idle, windows are closed by the
   * clock too, not only by the newest sample, so the last windows of a burst get finalized.
   */
  void backgroundTick() {
    try {
      if (core.closed) {
        return;
      }
      if (!core.floor.writable()) {
        return; // under the floor: every write would be refused, so none is tried
      }
      boolean old;
      boolean idle;
      core.locks.append.lock();
      try {
        long now = core.clock.millis();
        old = core.headSamples > 0 && now - core.headSinceMs >= HEAD_MAX_AGE_MS;
        idle = core.headSamples >= IDLE_FLUSH_MIN_SAMPLES
            && now - core.lastAppendMs >= IDLE_FLUSH_MS;
      } finally {
        core.locks.append.unlock();
      }
      if (old || idle) {
        flusher.flushHead();
      }
      core.active.sweep(core.clock.millis(), false);
      long now = core.clock.millis();
      boolean quiet = now - core.lastAppendMs >= IDLE_FLUSH_MS;
      int finalized = finalizer.finalizeWindows(false, quiet);
      if (idle || (finalized > 0 && quiet)) {
        // The WAL files holding the log records (and the finalized windows' rollups and chunks)
        // are freed only once every memtable written with them is flushed: flush after the
        // finalization, or its writes keep a WAL file of several MB alive after a burst. Then
        // the log's range delete is compacted away.
        maintenance.flushMemtables();
        flusher.compactTruncatedLog(Long.MAX_VALUE);
      }
    } catch (StorageException | RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "background head flush or finalization failed", e);
    }
  }
}
