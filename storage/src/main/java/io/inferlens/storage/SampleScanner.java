package io.inferlens.storage;

import java.util.Arrays;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * Reads the samples of given series in a time range from the samples column family with one
 * RocksDB iterator, bounded to the key range from the first to the last series.
 *
 * <p>Thread safety: thread safe; each call uses its own iterator. The caller keeps the database
 * open for the duration of a call.
 */
final class SampleScanner {

  /** Receives one series that has samples in range. */
  @FunctionalInterface
  interface SeriesVisitor {
    /**
     * @param ref the series
     * @param timestampsMs its timestamps in range, ascending, fresh array; null when samples were
     *     not read
     * @param valueBits raw value bits parallel to {@code timestampsMs}; null likewise
     */
    void visit(SeriesRef ref, long[] timestampsMs, long[] valueBits);
  }

  private final RocksDB db;
  private final ColumnFamilyHandle samples;
  private final SampleCodec codec;

  SampleScanner(RocksDB db, ColumnFamilyHandle samples, SampleCodec codec) {
    this.db = db;
    this.samples = samples;
    this.codec = codec;
  }

  /**
   * Visits, in the given order, each series with at least one sample in {@code [startMs, endMs]}.
   *
   * @param refs series ascending by id
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive; before {@code startMs} visits nothing
   * @param readSamples false to only test for existence: one seek per series, no sample decoded
   * @param visitor receives the series
   * @throws RocksDBException if the iterator reports an error
   */
  void scan(
      List<SeriesRef> refs, long startMs, long endMs, boolean readSamples, SeriesVisitor visitor)
      throws RocksDBException {
    if (refs.isEmpty() || endMs < startMs) {
      return;
    }
    byte[] lower = codec.key(refs.get(0).id, startMs);
    byte[] upper = codec.rangeEndExclusive(refs.get(refs.size() - 1).id, endMs);
    try (Slice lowerSlice = new Slice(lower);
        Slice upperSlice = new Slice(upper);
        ReadOptions ro =
            new ReadOptions().setIterateLowerBound(lowerSlice).setIterateUpperBound(upperSlice);
        RocksIterator it = db.newIterator(samples, ro)) {
      LongBuffer ts = new LongBuffer();
      LongBuffer bits = new LongBuffer();
      for (SeriesRef ref : refs) {
        // The iterator bounds cover all candidates; each series stops at its own end key.
        byte[] end = codec.rangeEndExclusive(ref.id, endMs);
        it.seek(codec.key(ref.id, startMs));
        if (!readSamples) {
          if (it.isValid() && Arrays.compareUnsigned(it.key(), end) < 0) {
            visitor.visit(ref, null, null);
          }
          continue;
        }
        ts.clear();
        bits.clear();
        for (; it.isValid(); it.next()) {
          byte[] key = it.key();
          if (Arrays.compareUnsigned(key, end) >= 0) {
            break;
          }
          ts.add(codec.timestampMs(key));
          bits.add(codec.decodeValue(it.value()));
        }
        if (ts.size() > 0) {
          visitor.visit(ref, ts.toArray(), bits.toArray());
        }
      }
      // isValid() is false both at the end and on an error; status() tells them apart.
      it.status();
    }
  }

  /** A growable long array, reused across series with an explicit reset. */
  private static final class LongBuffer {
    /** Initial capacity: an hour of 15 s scrapes fits without growing. */
    private long[] data = new long[256];
    private int size;

    void clear() {
      size = 0;
    }

    void add(long v) {
      if (size == data.length) {
        data = Arrays.copyOf(data, size * 2);
      }
      data[size++] = v;
    }

    int size() {
      return size;
    }

    long[] toArray() {
      return Arrays.copyOf(data, size);
    }
  }
}
