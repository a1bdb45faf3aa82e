package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
import io.inferlens.storage.chunk.BenchWorkload;
import io.inferlens.storage.chunk.ChunkCostReport;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Head-stream append and decode throughput ({@link HeadBuffer}, the in-memory Gorilla stream
 * every acknowledged sample goes through before a head flush) on the bench workload's mix of
 * series ({@link BenchWorkload}, seed 1): 200 series of 480 samples (2 h at 15 s).
 *
 * <p>Run: {@code scripts/jmh.sh storage -f 1 -wi 3 -i 5 -w 1s -r 1s HeadBufferBenchmark}.
 * Scores are samples/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HeadBufferBenchmark {

  static final int SAMPLES = 480;
  static final int SERIES = BenchWorkload.SERIES_PER_INSTANCE;

  private long[][] timestamps;
  private long[][] values;
  private final HeadBuffer[] heads = new HeadBuffer[SERIES];
  private final long[] tOut = new long[SAMPLES];
  private final long[] vOut = new long[SAMPLES];

  /** Generates the series and fills one head per series for the decode benchmark. */
  @Setup
  public void setUp() {
    ChunkCostReport.Dataset d = BenchWorkload.generate(1, SAMPLES, 1);
    timestamps = d.timestampsMs().toArray(new long[0][]);
    values = d.valueBits().toArray(new long[0][]);
    for (int s = 0; s < SERIES; s++) {
      heads[s] = new HeadBuffer();
      fill(heads[s], s);
    }
  }

  private void fill(HeadBuffer h, int s) {
    long[] t = timestamps[s];
    long[] v = values[s];
    for (int i = 0; i < SAMPLES; i++) {
      h.add(t[i], v[i]);
    }
  }

  /** @return a checksum, so the work is not eliminated */
  @Benchmark
  @OperationsPerInvocation(SERIES * SAMPLES)
  public long append() {
    long sum = 0;
    for (int s = 0; s < SERIES; s++) {
      HeadBuffer h = heads[s];
      h.clear();
      fill(h, s);
      sum += h.touch();
    }
    return sum;
  }

  /** @return a checksum of the decoded samples, so the work is not eliminated */
  @Benchmark
  @OperationsPerInvocation(SERIES * SAMPLES)
  public long decode() {
    long sum = 0;
    for (int s = 0; s < SERIES; s++) {
      heads[s].decodeInto(tOut, vOut);
      sum += tOut[SAMPLES - 1] ^ vOut[SAMPLES - 1];
    }
    return sum;
  }
}
