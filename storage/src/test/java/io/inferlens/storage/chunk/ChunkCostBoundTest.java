package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression bound on bytes per sample, on the Java port of the bench workload ({@link
 * BenchWorkload}). The bounds sit a few percent above what the codec reached when it was written
 * (docs/BENCHMARKS.md, "Chunk encoding"), so a change that makes chunks noticeably bigger fails
 * here; lower them when the codec improves.
 */
class ChunkCostBoundTest {

  @Test
  void twelveHourSeriesInTwoHourChunksStayBelowTheBound() {
    // s2k-2880 shape: 12 h of 15 s scrapes, 2 h (480-sample) chunks; 2 instances = 400 series
    ChunkCostReport.Dataset d = BenchWorkload.generate(2, 2880, 1);
    Map<String, ChunkCostReport.Cost> byKind = ChunkCostReport.measure(d, 480, 0);
    System.out.print(ChunkCostReport.table(d, 480, byKind, false));
    ChunkCostReport.Cost all = ChunkCostReport.total(byKind);
    assertThat(all.chunk()).as("bytes/sample, all series").isLessThan(BOUND_2880);
    assertThat(all.chunk()).as("versus Prometheus XOR").isLessThan(0.55 * all.gorilla());
    assertThat(byKind.get("vllm histogram _bucket").chunk()).isLessThan(BOUND_2880_BUCKET);
  }

  @Test
  void oneHourSeriesInOneChunkStayBelowTheBound() {
    // s100k-240 shape: 240 samples (1 h) per series, one chunk each; 10 instances = 2,000 series
    ChunkCostReport.Dataset d = BenchWorkload.generate(10, 240, 2);
    Map<String, ChunkCostReport.Cost> byKind = ChunkCostReport.measure(d, 240, 0);
    System.out.print(ChunkCostReport.table(d, 240, byKind, false));
    ChunkCostReport.Cost all = ChunkCostReport.total(byKind);
    assertThat(all.chunk()).as("bytes/sample, all series").isLessThan(BOUND_240);
  }

  // Measured when written: see the test output and docs/BENCHMARKS.md; about 3 % headroom.
  private static final double BOUND_2880 = 1.34;
  private static final double BOUND_2880_BUCKET = 0.77;
  private static final double BOUND_240 = 1.46;
}
