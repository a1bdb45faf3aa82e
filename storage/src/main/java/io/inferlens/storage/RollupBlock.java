package io.inferlens.storage;

import io.inferlens.storage.chunk.ChunkCodec;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Rollup intervals of one series for one stored block (a 2 h chunk window at 5 m, a UTC day at
 * 1 h): how they are computed from raw samples, merged and encoded.
 *
 * <p>Encoding (FORMAT.md "Rollup block", layout 2): bytes {@code 00 02}, {@code varint(n)}, then
 * seven columns in the order count, min, max, sum, first, last, increase, each {@code varint(len)}
 * followed by its bytes: the count column is a {@link ChunkCodec} chunk whose timestamps are the
 * interval starts (counts as doubles), the six others are values only ({@link
 * ChunkCodec#encodeValues}) on that time axis. Reusing the chunk codec stores a regular interval
 * grid and slowly changing values in a few bytes per column, losslessly; storing the axis once
 * instead of in every column took about 11 bytes per column off every block. Layout-1 blocks (every
 * column a full chunk, no {@code 00 02} prefix) read the same. A column of length 0 is derived
 * instead of stored: min from first, max from last, increase as last - first; the encoder leaves a
 * column out only when that gives every interval's bits exactly. Counters and histogram buckets
 * (most vLLM series) rise within an interval, so three of their seven columns cost nothing: on the
 * s2k-2880 bench set the settled rollup bytes fell by about a third.
 *
 * <p>Thread safety: instances are not thread safe; {@link #compute} and {@link #decode} are static.
 */
final class RollupBlock {

  /** Prometheus' stale marker, excluded from rollups as PromQL functions exclude it. */
  static final long STALE_NAN_BITS = 0x7ff0000000000002L;

  final long[] starts;
  final long[] counts;
  final double[] min;
  final double[] max;
  final double[] sum;
  final double[] first;
  final double[] last;
  final double[] increase;
  final int size;

  private RollupBlock(int capacity, int size) {
    starts = new long[capacity];
    counts = new long[capacity];
    min = new double[capacity];
    max = new double[capacity];
    sum = new double[capacity];
    first = new double[capacity];
    last = new double[capacity];
    increase = new double[capacity];
    this.size = size;
  }

  /**
   * Computes the intervals of {@code intervalMs} of a sorted run of samples.
   *
   * @param ts timestamps in milliseconds, strictly ascending, {@code [0, n)}
   * @param bits raw value bits
   * @param n number of samples
   * @param intervalMs the interval, milliseconds
   * @return the intervals that hold at least one sample that is not a stale marker; min and max
   *     skip NaN values unless all of an interval's values are NaN, as Prometheus'
   *     {@code min_over_time}/{@code max_over_time} (promql/functions.go); sum, increase, first
   *     and last keep them
   */
  static RollupBlock compute(long[] ts, long[] bits, int n, long intervalMs) {
    int intervals = 0;
    long prevStart = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      if (bits[i] == STALE_NAN_BITS) {
        continue;
      }
      long s = Math.floorDiv(ts[i], intervalMs) * intervalMs;
      if (intervals == 0 || s != prevStart) {
        intervals++;
        prevStart = s;
      }
    }
    RollupBlock b = new RollupBlock(intervals, intervals);
    int k = -1;
    for (int i = 0; i < n; i++) {
      if (bits[i] == STALE_NAN_BITS) {
        continue;
      }
      double v = Double.longBitsToDouble(bits[i]);
      long s = Math.floorDiv(ts[i], intervalMs) * intervalMs;
      if (k < 0 || b.starts[k] != s) {
        k++;
        b.starts[k] = s;
        b.counts[k] = 1;
        b.min[k] = v;
        b.max[k] = v;
        b.sum[k] = v;
        b.first[k] = v;
        b.last[k] = v;
        b.increase[k] = 0;
        continue;
      }
      double d = v - b.last[k];
      b.increase[k] += d >= 0 ? d : v;
      b.counts[k]++;
      // As PromQL's min_over_time/max_over_time: NaN only when every value is NaN.
      if (v < b.min[k] || Double.isNaN(b.min[k])) {
        b.min[k] = v;
      }
      if (v > b.max[k] || Double.isNaN(b.max[k])) {
        b.max[k] = v;
      }
      b.sum[k] += v;
      b.last[k] = v;
    }
    return b;
  }

  /**
   * @return the union of this block's intervals and {@code newer}'s, {@code newer} winning where
   *     both have an interval with the same start
   */
  RollupBlock mergedWith(RollupBlock newer) {
    RollupBlock out = new RollupBlock(size + newer.size, 0);
    int i = 0;
    int j = 0;
    int k = 0;
    while (i < size || j < newer.size) {
      boolean takeNewer;
      if (i == size) {
        takeNewer = true;
      } else if (j == newer.size) {
        takeNewer = false;
      } else {
        takeNewer = newer.starts[j] <= starts[i];
        if (newer.starts[j] == starts[i]) {
          i++;
        }
      }
      if (takeNewer) {
        out.copyFrom(k++, newer, j++);
      } else {
        out.copyFrom(k++, this, i++);
      }
    }
    return out.truncated(k);
  }

  private void copyFrom(int to, RollupBlock src, int from) {
    starts[to] = src.starts[from];
    counts[to] = src.counts[from];
    min[to] = src.min[from];
    max[to] = src.max[from];
    sum[to] = src.sum[from];
    first[to] = src.first[from];
    last[to] = src.last[from];
    increase[to] = src.increase[from];
  }

  private RollupBlock truncated(int n) {
    RollupBlock out = new RollupBlock(n, n);
    for (int i = 0; i < n; i++) {
      out.copyFrom(i, this, i);
    }
    return out;
  }

  /**
   * Appends the intervals whose start lies in {@code [startMs, endMs]} to {@code out}.
   */
  void appendTo(Builder out, long startMs, long endMs) {
    for (int i = 0; i < size; i++) {
      if (starts[i] >= startMs && starts[i] <= endMs) {
        out.add(this, i);
      }
    }
  }

  /** First byte of a layout-2 block; a layout-1 block starting with it is the 1-byte empty one. */
  private static final int LAYOUT_2_MARK = 0x00;

  /** Second byte of a layout-2 block. */
  private static final int LAYOUT_2 = 0x02;

  /** Encodes the block in layout 2; see the class comment. */
  byte[] encode(ChunkCodec codec) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + size * 8);
    if (size == 0) {
      Varints.put(out, 0); // the layout-1 empty block: no intervals, no columns
      return out.toByteArray();
    }
    out.write(LAYOUT_2_MARK);
    out.write(LAYOUT_2);
    Varints.put(out, size);
    long[] column = new long[size];
    for (int c = 0; c < 7; c++) {
      writeColumn(out, codec, c, column);
    }
    return out.toByteArray();
  }

  /**
   * Writes column {@code c}: its length, then its chunk (none when derivable). A method apart
   * from {@link #encode}, like {@link #fillColumn}, so that C2 compiles each once rather than
   * on-stack-replacing the column loop with the whole codec inlined, several times a run.
   */
  private void writeColumn(ByteArrayOutputStream out, ChunkCodec codec, int c, long[] column) {
    if (derivable(c)) {
      Varints.put(out, 0);
      return;
    }
    fillColumn(c, column);
    // The time axis once, in the counts' chunk; the other columns are values only.
    byte[] bytes = c == 0 ? codec.encode(starts, column, size)
        : codec.encodeValues(column, size);
    Varints.put(out, bytes.length);
    out.writeBytes(bytes);
  }

  /** Puts the raw bits of column {@code c}'s values (counts as doubles) in {@code column}. */
  private void fillColumn(int c, long[] column) {
    if (c == 0) {
      for (int i = 0; i < size; i++) {
        column[i] = Double.doubleToRawLongBits((double) counts[i]);
      }
      return;
    }
    double[] values = valuesOf(c);
    for (int i = 0; i < size; i++) {
      column[i] = Double.doubleToRawLongBits(values[i]);
    }
  }

  /** Columns that may be derived: min (1), max (2) and increase (6). */
  private static final int DERIVABLE_COLUMNS = (1 << 1) | (1 << 2) | (1 << 6);

  /** @return whether column {@code c} equals, bit for bit, what a reader derives for it */
  private boolean derivable(int c) {
    if ((DERIVABLE_COLUMNS & (1 << c)) == 0) {
      return false;
    }
    double[] values = valuesOf(c);
    for (int i = 0; i < size; i++) {
      if (Double.doubleToRawLongBits(values[i]) != Double.doubleToRawLongBits(derived(c, i))) {
        return false;
      }
    }
    return true;
  }

  /** @return the value a reader derives for a derivable column from first and last */
  private double derived(int c, int i) {
    return switch (c) {
      case 1 -> first[i];
      case 2 -> last[i];
      default -> last[i] - first[i];
    };
  }

  /** @return the values of column {@code c}, 1 (min) to 6 (increase) */
  private double[] valuesOf(int c) {
    return switch (c) {
      case 1 -> min;
      case 2 -> max;
      case 3 -> sum;
      case 4 -> first;
      case 5 -> last;
      case 6 -> increase;
      default -> throw new IllegalArgumentException("no double column " + c);
    };
  }

  /**
   * Decodes a block.
   *
   * @throws IllegalStateException if the bytes are not a rollup block (a corrupt store)
   */
  static RollupBlock decode(byte[] bytes) {
    return decode(bytes, ALL_COLUMNS);
  }

  /** Every column: bit {@code c} of a mask is column {@code c} in stored order. */
  static final int ALL_COLUMNS = 0x7F;

  /**
   * Decodes the columns in {@code mask} (bits in {@link RollupColumn} order); the starts and
   * counts are always decoded, other columns left out are NaN.
   *
   * @throws IllegalStateException if the bytes are not a rollup block (a corrupt store)
   */
  static RollupBlock decode(byte[] bytes, int mask) {
    int[] p = {0};
    boolean layout2 = bytes.length > 1 && (bytes[0] & 0xFF) == LAYOUT_2_MARK;
    if (layout2) {
      if ((bytes[1] & 0xFF) != LAYOUT_2) {
        throw new IllegalStateException("corrupt rollup block: layout " + (bytes[1] & 0xFF)
            + " (this build reads 1 and 2)");
      }
      p[0] = 2;
    }
    int n = (int) Varints.get(bytes, p, "rollup block");
    if (layout2 && n == 0) {
      throw new IllegalStateException("corrupt rollup block: layout 2 with no intervals");
    }
    if (n < 0 || n > ChunkCodec.MAX_SAMPLES) {
      throw new IllegalStateException("corrupt rollup block: " + n + " intervals");
    }
    RollupBlock b = new RollupBlock(n, n);
    if (n == 0) {
      return b;
    }
    int[] offset = new int[7];
    int[] length = new int[7];
    for (int c = 0; c < 7; c++) {
      int len = (int) Varints.get(bytes, p, "rollup block");
      if (len < 0 || p[0] + len > bytes.length) {
        throw new IllegalStateException("corrupt rollup block: column " + c + " of " + len
            + " bytes overruns the block");
      }
      if (len == 0 && (DERIVABLE_COLUMNS & (1 << c)) == 0) {
        throw new IllegalStateException("corrupt rollup block: column " + c + " is empty");
      }
      offset[c] = p[0];
      length[c] = len;
      p[0] += len;
    }
    int wanted = mask | 1; // counts and starts always
    for (int c = 1; c < 7; c++) {
      if ((wanted & (1 << c)) != 0 && length[c] == 0) {
        wanted |= (1 << 4) | (1 << 5); // derived from first and last
      }
    }
    long[] ts = new long[n];
    long[] col = new long[n];
    for (int c = 0; c < 7; c++) {
      double[] target = c == 1 ? b.min : c == 2 ? b.max : c == 3 ? b.sum : c == 4 ? b.first
          : c == 5 ? b.last : c == 6 ? b.increase : null;
      if ((wanted & (1 << c)) == 0 || length[c] == 0) {
        Arrays.fill(target, Double.NaN); // derived ones are filled below
        continue;
      }
      if (layout2 && c > 0) {
        try {
          ChunkCodec.decodeValues(bytes, offset[c], length[c], col, n);
        } catch (IllegalArgumentException e) {
          throw new IllegalStateException("corrupt rollup block: column " + c + ": "
              + e.getMessage(), e);
        }
      } else {
        byte[] chunk = Arrays.copyOfRange(bytes, offset[c], offset[c] + length[c]);
        int got = ChunkCodec.decode(chunk, ts, col);
        if (got != n) {
          throw new IllegalStateException("corrupt rollup block: column " + c + " has " + got
              + " values, expected " + n);
        }
      }
      for (int i = 0; i < n; i++) {
        double v = Double.longBitsToDouble(col[i]);
        if (c == 0) {
          b.counts[i] = (long) v;
        } else {
          target[i] = v;
        }
      }
      if (c == 0) {
        System.arraycopy(ts, 0, b.starts, 0, n);
      }
    }
    for (int c : new int[] {1, 2, 6}) {
      if ((mask & (1 << c)) != 0 && length[c] == 0) {
        double[] target = c == 1 ? b.min : c == 2 ? b.max : b.increase;
        for (int i = 0; i < n; i++) {
          target[i] = b.derived(c, i);
        }
      }
    }
    if ((mask & (1 << 4)) == 0) {
      Arrays.fill(b.first, Double.NaN); // decoded only to derive others: keep the mask's promise
    }
    if ((mask & (1 << 5)) == 0) {
      Arrays.fill(b.last, Double.NaN);
    }
    return b;
  }



  /** Gathers intervals of one series from several blocks into a {@link RollupSeries}. */
  static final class Builder {
    private RollupBlock acc = new RollupBlock(64, 0);
    private int n;

    void add(RollupBlock src, int i) {
      if (n == acc.starts.length) {
        RollupBlock bigger = new RollupBlock(n * 2, 0);
        for (int k = 0; k < n; k++) {
          bigger.copyFrom(k, acc, k);
        }
        acc = bigger;
      }
      acc.copyFrom(n++, src, i);
    }

    int size() {
      return n;
    }

    /** @return the series, intervals sorted by start, the later-added of equal starts kept */
    RollupSeries build(LabelSet labels, Resolution resolution) {
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Long.compare(acc.starts[a], acc.starts[b]));
      RollupBlock out = new RollupBlock(n, 0);
      int k = 0;
      for (int i = 0; i < n; i++) {
        int j = order[i];
        if (k > 0 && out.starts[k - 1] == acc.starts[j]) {
          out.copyFrom(k - 1, acc, j);
          continue;
        }
        out.copyFrom(k++, acc, j);
      }
      return new RollupSeries(labels, resolution,
          Arrays.copyOf(out.starts, k), Arrays.copyOf(out.counts, k), Arrays.copyOf(out.min, k),
          Arrays.copyOf(out.max, k), Arrays.copyOf(out.sum, k), Arrays.copyOf(out.first, k),
          Arrays.copyOf(out.last, k), Arrays.copyOf(out.increase, k));
    }
  }
}
