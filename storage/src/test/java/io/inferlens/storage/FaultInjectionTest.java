package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** Failures injected through {@link RocksFacade}: a failed write, a full disk. */
class FaultInjectionTest extends StoreTestBase {

  private static final long T = NOW_MS - 3 * 3_600_000L;

  /** Passes everything to the real database; {@code write} fails while {@link #failWrites}. */
  static final class FailingFacade extends ForwardingRocksFacade {
    volatile boolean failWrites;
    int failed;

    FailingFacade(RocksFacade real) {
      super(real);
    }

    @Override
    public void write(WriteOptions options, WriteBatch batch) throws RocksDBException {
      if (failWrites) {
        failed++;
        throw new RocksDBException("IO error: No space left on device");
      }
      inner.write(options, batch);
    }
  }

  private FailingFacade facade;

  private TimeSeriesStore openFailing() throws StorageException {
    return TimeSeriesStore.open(StoreOptions.defaults(dir), clock, real -> {
      facade = new FailingFacade(real);
      return facade;
    });
  }

  private static SeriesWrite series(String name, long from, int n) {
    long[] ts = new long[n];
    long[] vb = new long[n];
    for (int i = 0; i < n; i++) {
      ts[i] = from + i * 15_000L;
      vb[i] = bits(i);
    }
    return rawWrite(LabelSet.of("__name__", name), ts, vb);
  }

  private static List<Long> timestamps(TimeSeriesStore store, String name)
      throws StorageException {
    List<Long> out = new ArrayList<>();
    for (Series s : store.select(List.of(Matcher.eq("__name__", name)), Long.MIN_VALUE,
        Long.MAX_VALUE)) {
      for (long t : s.timestampsMs()) {
        out.add(t);
      }
    }
    return out;
  }

  @Test
  void failedWriteAnswersStorageErrorAndLosesNothingAcknowledged() throws Exception {
    try (TimeSeriesStore store = openFailing()) {
      store.append(List.of(series("a", T, 10)));
      facade.failWrites = true;
      assertThatThrownBy(() -> store.append(List.of(series("a", T + 150_000, 5),
          series("b", T, 5))))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("nothing acknowledged")
          .hasMessageContaining("No space left on device");
      assertThat(facade.failed).isEqualTo(1);
      // Nothing of the failed call is visible, everything acknowledged before is.
      assertThat(timestamps(store, "a")).hasSize(10);
      assertThat(timestamps(store, "b")).isEmpty();
      assertThat(store.seriesCount()).isEqualTo(1);

      facade.failWrites = false;
      AppendResult retry = store.append(List.of(series("a", T + 150_000, 5), series("b", T, 5)));
      assertThat(retry.samplesAppended()).isEqualTo(10);
    }
    try (TimeSeriesStore store = open()) {
      assertThat(timestamps(store, "a")).hasSize(15);
      assertThat(timestamps(store, "b")).hasSize(5);
      assertThat(store.seriesCount()).isEqualTo(2);
    }
  }

  @Test
  void failedFlushLeavesTheHeadIntact() throws Exception {
    try (TimeSeriesStore store = openFailing()) {
      store.append(List.of(series("a", T, 600), series("b", T, 300)));
      long head = store.headSampleCount();
      assertThat(head).isEqualTo(900);
      facade.failWrites = true;
      assertThatThrownBy(store::flushHead).isInstanceOf(StorageException.class)
          .hasMessageContaining("head log keeps their samples");
      assertThat(store.headSampleCount()).isEqualTo(head);
      assertThat(store.chunkSamplesStored()).isZero();
      assertThat(timestamps(store, "a")).hasSize(600);
      assertThat(timestamps(store, "b")).hasSize(300);

      facade.failWrites = false;
      store.flushHead();
      assertThat(store.headSampleCount()).isZero();
      assertThat(store.chunkSamplesStored()).isEqualTo(900);
      assertThat(timestamps(store, "a")).hasSize(600);
    }
    try (TimeSeriesStore store = open()) {
      assertThat(store.headSampleCount()).isZero();
      assertThat(timestamps(store, "a")).hasSize(600);
      assertThat(timestamps(store, "b")).hasSize(300);
    }
  }

  @Test
  void writeHealthFollowsTheLastWriteAndTheProbeSeesRecovery() throws Exception {
    try (TimeSeriesStore store = openFailing()) {
      assertThat(store.writeHealth().failure()).as("no write failed yet").isNull();
      store.append(List.of(series("a", T, 10)));
      assertThat(store.writeHealth().failure()).isNull();

      facade.failWrites = true;
      assertThatThrownBy(() -> store.append(List.of(series("a", T + 150_000, 5))))
          .isInstanceOf(StorageException.class);
      WriteHealth.Failure first = store.writeHealth().failure();
      assertThat(first).isNotNull();
      assertThat(first.message()).contains("No space left on device");
      assertThat(first.failures()).isPositive();
      assertThat(first.sinceMs()).isEqualTo(clock.millis());

      // The probe goes through the same facade: it fails while the disk is "full", and counts.
      assertThatThrownBy(store::probeWrite).isInstanceOf(StorageException.class)
          .hasMessageContaining("probe write failed")
          .hasMessageContaining("No space left on device");
      assertThat(store.writeHealth().failure().failures()).isGreaterThan(first.failures());
      assertThat(store.writeHealth().failure().sinceMs()).isEqualTo(first.sinceMs());

      facade.failWrites = false;
      store.probeWrite();
      assertThat(store.writeHealth().failure()).as("the probe's success clears it").isNull();

      facade.failWrites = true;
      assertThatThrownBy(store::probeWrite).isInstanceOf(StorageException.class);
      facade.failWrites = false;
      store.append(List.of(series("a", T + 150_000, 5)));
      assertThat(store.writeHealth().failure()).as("an append's success clears it").isNull();
      assertThat(timestamps(store, "a")).hasSize(15);
    }
    try (TimeSeriesStore store = open()) {
      // The probe stores nothing: only the acknowledged samples are read back.
      assertThat(timestamps(store, "a")).hasSize(15);
      assertThat(store.seriesCount()).isEqualTo(1);
    }
  }

  @Test
  void locksTakenOutOfOrderFailUnderAssertions() {
    StoreLocks locks = new StoreLocks();
    locks.append.lock();
    try {
      assertThatThrownBy(locks.flush::lock).isInstanceOf(AssertionError.class)
          .hasMessageContaining("lock order");
      locks.append.lock(); // re-entry is fine
      locks.append.unlock();
    } finally {
      locks.append.unlock();
    }
    locks.flush.lock();
    locks.append.lock(); // flush then append: the order
    locks.append.unlock();
    locks.flush.unlock();
  }
}
