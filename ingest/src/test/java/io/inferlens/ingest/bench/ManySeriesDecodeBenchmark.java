package io.inferlens.ingest.bench;

import io.inferlens.ingest.DecodedWrite;
import io.inferlens.ingest.IngestException;
import io.inferlens.ingest.IngestLimits;
import io.inferlens.ingest.RemoteWriteDecoder;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.xerial.snappy.Snappy;

/**
 * {@link DecodeBenchmark}'s decode + validate, but over 100,000 distinct series (500 vLLM/DCGM
 * instances of {@link VllmWorkload}, seed 42) cut into 50 requests of 2,000 series, decoded in
 * turn, one request per invocation: every series recurs only once per 50 requests, as with a
 * sender scraping 100,000 series. The decoder's label set cache (default size) holds them all
 * after the warm-up, but its entries and keys are far out of the CPU caches, which is the case
 * that matters for a large receiver (the 2,000-series {@code DecodeBenchmark} keeps its 2,000
 * entries L2-resident).
 *
 * <p>Run: {@code scripts/jmh.sh ingest -f 1 -wi 3 -i 5 -w 2s -r 2s -prof gc
 * ManySeriesDecodeBenchmark}. Reports µs per 2,000-sample request.
 */
@State(Scope.Thread)
public class ManySeriesDecodeBenchmark {

  /** Distinct series, all cycled through. */
  static final int SERIES = 100_000;

  private byte[][] bodies;
  private RemoteWriteDecoder decoder;
  private int next;

  /** Builds and compresses the 50 requests; checks that every sample is valid. */
  @Setup
  public void setUp() throws IOException, IngestException {
    WriteRequest all = VllmWorkload.request(DecodeBenchmark.SEED, SERIES, DecodeBenchmark.GRID_MS);
    int n = SERIES / DecodeBenchmark.SAMPLES;
    bodies = new byte[n][];
    Clock clock = Clock.fixed(Instant.ofEpochMilli(DecodeBenchmark.GRID_MS + 5_000),
        ZoneOffset.UTC);
    decoder = new RemoteWriteDecoder(IngestLimits.defaults().withClock(clock));
    long raw = 0;
    for (int r = 0; r < n; r++) {
      byte[] b = WriteRequest.newBuilder()
          .addAllTimeseries(all.getTimeseriesList().subList(r * DecodeBenchmark.SAMPLES,
              (r + 1) * DecodeBenchmark.SAMPLES))
          .build().toByteArray();
      raw += b.length;
      bodies[r] = Snappy.compress(b);
      DecodedWrite d = decoder.decodeSnappy(bodies[r]);
      if (d.hasErrors() || d.samplesAccepted() != DecodeBenchmark.SAMPLES) {
        throw new IllegalStateException("bug: benchmark request is not all valid: "
            + d.firstError());
      }
    }
    // Promote the cache's 100,000 entries and label sets now: else the first young collections
    // of the measurement copy them (100+ ms pauses, 2x run-to-run noise).
    System.gc();
    System.out.printf("%n%d requests of %d samples, %d series, %.0f bytes decoded per request%n",
        n, DecodeBenchmark.SAMPLES, SERIES, (double) raw / n);
  }

  /** @return average time per 2,000-sample request, in µs */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public DecodedWrite request() throws IngestException {
    byte[] body = bodies[next];
    next = next + 1 == bodies.length ? 0 : next + 1;
    return decoder.decodeSnappy(body);
  }
}
