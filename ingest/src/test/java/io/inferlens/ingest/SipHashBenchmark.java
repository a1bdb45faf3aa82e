package io.inferlens.ingest;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * SipHash-1-3 (written out and generic) and 2-4 on one label run of the bench's size (about
 * 318 bytes: a vLLM/DCGM series' label fields as sent).
 *
 * <p>Run: {@code scripts/jmh.sh ingest -f 1 -wi 3 -i 5 -w 1s -r 1s SipHashBenchmark}. Scores are
 * ns per key.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SipHashBenchmark {

  @Param({"318"})
  public int len;

  private byte[] key;
  private final long[] out = new long[2];

  /** Random key bytes. */
  @Setup
  public void setUp() {
    key = new byte[len];
    new Random(1).nextBytes(key);
  }

  /** @return part of the output, so the work is not eliminated */
  @Benchmark
  public long sip13() {
    SipHash.hash128x13(1, 2, key, 0, len, out);
    return out[0];
  }

  /**
   * The generic c-d code with c = 1, d = 3, which {@link SipHash#hash128x13} was before its
   * rounds were written out.
   *
   * @return part of the output, so the work is not eliminated
   */
  @Benchmark
  public long sip13Generic() {
    SipHash.hash128(1, 3, 1, 2, key, 0, len, out);
    return out[0];
  }

  /** @return part of the output, so the work is not eliminated */
  @Benchmark
  public long sip24() {
    SipHash.hash128x24(1, 2, key, 0, len, out);
    return out[0];
  }
}
