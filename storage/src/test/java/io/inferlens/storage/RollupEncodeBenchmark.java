package io.inferlens.storage;

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
 * Rollup block encoding as window finalization does it, on the bench workload's mix of series
 * ({@link BenchWorkload}, seed 1, 200 series): per series, the 5-minute block of one 2 h window
 * of 480 samples at 15 s (24 intervals) and a 1-hour day block of 12 intervals. The per-column
 * chunks are short, so the codec's fixed cost per chunk dominates.
 *
 * <p>Run: {@code scripts/jmh.sh storage -f 2 -wi 3 -i 5 -w 1s -r 1s RollupEncodeBenchmark}. Scores
 * are blocks per second (each invocation encodes 400 blocks).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RollupEncodeBenchmark {

  private static final int SAMPLES = 480;

  private RollupBlock[] blocks;
  private final ChunkCodec codec = new ChunkCodec();

  /** Computes the rollup blocks once; the benchmark encodes them. */
  @Setup
  public void setUp() {
    ChunkCostReport.Dataset d = BenchWorkload.generate(1, SAMPLES * 6, 1);
    int series = d.timestampsMs().size();
    blocks = new RollupBlock[2 * series];
    for (int s = 0; s < series; s++) {
      long[] t = d.timestampsMs().get(s);
      long[] v = d.valueBits().get(s);
      blocks[2 * s] = RollupBlock.compute(t, v, SAMPLES, 300_000L);
      blocks[2 * s + 1] = RollupBlock.compute(t, v, SAMPLES * 6, 3_600_000L);
    }
  }

  /** @return total bytes, so the work is not eliminated */
  @Benchmark
  @OperationsPerInvocation(400)
  public long encode() {
    long bytes = 0;
    for (RollupBlock b : blocks) {
      bytes += b.encode(codec).length;
    }
    return bytes;
  }
}
