package io.inferlens.storage.chunk.bench;

import io.inferlens.storage.chunk.BenchWorkload;
import io.inferlens.storage.chunk.ChunkCodec;
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
 * Chunk encode and decode throughput on the bench workload's mix of series ({@link
 * BenchWorkload}, seed 1): one instance = 200 series (histogram buckets, sums and counts, gauges,
 * counters, DCGM fields), one 2 h chunk of 480 samples each. One codec per benchmark thread, as a
 * store would keep one per writer thread.
 *
 * <p>Run: {@code scripts/jmh.sh storage -f 1 -wi 3 -i 5 -w 2s -r 2s -prof gc ChunkCodecBenchmark}.
 * Scores are samples/s (each invocation encodes or decodes all 96,000 samples).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ChunkCodecBenchmark {

  /** 2 h at 15 s. */
  static final int CHUNK_SAMPLES = 480;

  static final int SERIES = BenchWorkload.SERIES_PER_INSTANCE;

  private long[][] timestamps;
  private long[][] values;
  private byte[][] chunks;
  private final ChunkCodec codec = new ChunkCodec();
  private final long[] tOut = new long[CHUNK_SAMPLES];
  private final long[] vOut = new long[CHUNK_SAMPLES];

  /** Generates the series and encodes them once for the decode benchmark. */
  @Setup
  public void setUp() {
    ChunkCostReport.Dataset d = BenchWorkload.generate(1, CHUNK_SAMPLES, 1);
    timestamps = d.timestampsMs().toArray(new long[0][]);
    values = d.valueBits().toArray(new long[0][]);
    chunks = new byte[SERIES][];
    long bytes = 0;
    for (int s = 0; s < SERIES; s++) {
      chunks[s] = codec.encode(timestamps[s], values[s], CHUNK_SAMPLES);
      bytes += chunks[s].length;
    }
    System.out.printf("%n%d chunks of %d samples, %.3f B/sample%n", SERIES, CHUNK_SAMPLES,
        (double) bytes / (SERIES * CHUNK_SAMPLES));
  }

  /** @return total bytes, so the work is not eliminated */
  @Benchmark
  @OperationsPerInvocation(SERIES * CHUNK_SAMPLES)
  public long encode() {
    long bytes = 0;
    for (int s = 0; s < SERIES; s++) {
      bytes += codec.encode(timestamps[s], values[s], CHUNK_SAMPLES).length;
    }
    return bytes;
  }

  /** @return a checksum of the decoded samples, so the work is not eliminated */
  @Benchmark
  @OperationsPerInvocation(SERIES * CHUNK_SAMPLES)
  public long decode() {
    long sum = 0;
    for (int s = 0; s < SERIES; s++) {
      ChunkCodec.decode(chunks[s], tOut, vOut);
      sum += tOut[CHUNK_SAMPLES - 1] ^ vOut[CHUNK_SAMPLES - 1];
    }
    return sum;
  }
}
