package io.inferlens.ingest.bench;

import io.inferlens.ingest.DecodedWrite;
import io.inferlens.ingest.IngestException;
import io.inferlens.ingest.IngestLimits;
import io.inferlens.ingest.RemoteWriteDecoder;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.xerial.snappy.Snappy;

/**
 * Remote write decode + validate, no storage: snappy block decompression, WriteRequest decoding,
 * label validation and canonicalisation, timestamp checks, of one 2,000-sample request shaped
 * like the vLLM/DCGM workload ({@link VllmWorkload}, seed 42) — Prometheus' default
 * max_samples_per_send. One decoder per benchmark thread, as in {@code RemoteWriteHandler}.
 *
 * <p>Run: {@code scripts/jmh.sh ingest -f 1 -wi 3 -i 5 -w 2s -r 2s -prof gc DecodeBenchmark}.
 * {@link #samples} reports samples/s; {@link #request} reports µs per request;
 * {@link #requestColdDecoder} reports µs per request for a decoder that has seen nothing yet.
 */
@State(Scope.Thread)
public class DecodeBenchmark {

  /** Prometheus' default max_samples_per_send: one TimeSeries with one sample each. */
  static final int SAMPLES = 2000;

  /** Fixed seed: the same request on every run. */
  static final long SEED = 42;

  /** 2025-11-24T16:00:00Z, on the 15 s grid. */
  static final long GRID_MS = 1_764_000_000_000L;

  private byte[] body;
  private IngestLimits limits;
  private RemoteWriteDecoder decoder;

  /** Builds and compresses the request; checks that every sample is valid. */
  @Setup
  public void setUp() throws IOException, IngestException {
    byte[] raw = VllmWorkload.request(SEED, SAMPLES, GRID_MS).toByteArray();
    body = Snappy.compress(raw);
    // "now" 5 s after the scrape, like a sender with a short queue.
    Clock clock = Clock.fixed(Instant.ofEpochMilli(GRID_MS + 5_000), ZoneOffset.UTC);
    limits = IngestLimits.defaults().withClock(clock);
    decoder = new RemoteWriteDecoder(limits);
    DecodedWrite d = decoder.decodeSnappy(body);
    if (d.hasErrors() || d.samplesAccepted() != SAMPLES) {
      throw new IllegalStateException("bug: benchmark request is not all valid: " + d.firstError());
    }
    System.out.printf("%nrequest: %d samples, %d bytes decoded, %d bytes snappy (%.1f B/sample)%n",
        SAMPLES, raw.length, body.length, (double) body.length / SAMPLES);
  }

  /** @return throughput in samples per second */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(SAMPLES)
  public DecodedWrite samples() throws IngestException {
    return decoder.decodeSnappy(body);
  }

  /** @return average time per 2,000-sample request, in µs */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public DecodedWrite request() throws IngestException {
    return decoder.decodeSnappy(body);
  }

  /**
   * The first request a fresh decoder sees: every label string and series is new to its caches,
   * as after a restart or for a new sender. Includes building the decoder (its cache tables and
   * 64 KiB decompression buffer).
   *
   * @return average time per 2,000-sample request, in µs
   */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public DecodedWrite requestColdDecoder() throws IngestException {
    return new RemoteWriteDecoder(limits).decodeSnappy(body);
  }
}
