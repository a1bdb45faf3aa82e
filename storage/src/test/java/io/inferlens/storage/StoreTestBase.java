package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens real stores in a temporary directory with a fake clock, and checks after each test that
 * every store it opened was closed and released its native handles.
 */
abstract class StoreTestBase {

  /** "Now" of the fake clock: 2023-11-14T22:13:20Z in milliseconds. */
  static final long NOW_MS = 1_700_000_000_000L;

  static final long STALE_MARKER = 0x7ff0000000000002L;

  @TempDir Path dir;

  final MutableClock clock = new MutableClock(NOW_MS);
  private final List<TimeSeriesStore> opened = new ArrayList<>();

  TimeSeriesStore open() throws StorageException {
    return open(StoreOptions.defaults(dir));
  }

  TimeSeriesStore open(StoreOptions options) throws StorageException {
    TimeSeriesStore store = TimeSeriesStore.open(options, clock);
    opened.add(store);
    return store;
  }

  @AfterEach
  void everyStoreClosed() {
    for (TimeSeriesStore s : opened) {
      assertThat(s.nativeHandlesClosed()).as("store closed by the test").isTrue();
    }
  }

  static long bits(double v) {
    return Double.doubleToRawLongBits(v);
  }

  /** A write from alternating timestamp (ms) and double value pairs. */
  static SeriesWrite write(LabelSet labels, double... tsValuePairs) {
    int n = tsValuePairs.length / 2;
    long[] ts = new long[n];
    long[] vb = new long[n];
    for (int i = 0; i < n; i++) {
      ts[i] = (long) tsValuePairs[2 * i];
      vb[i] = bits(tsValuePairs[2 * i + 1]);
    }
    return new SeriesWrite(labels, ts, vb, n);
  }

  /** A write from parallel timestamps (ms) and raw value bits. */
  static SeriesWrite rawWrite(LabelSet labels, long[] ts, long[] valueBits) {
    return new SeriesWrite(labels, ts, valueBits, ts.length);
  }

  static final class MutableClock extends Clock {
    private volatile long millis;

    MutableClock(long millis) {
      this.millis = millis;
    }

    void set(long newMillis) {
      millis = newMillis;
    }

    @Override
    public long millis() {
      return millis;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
