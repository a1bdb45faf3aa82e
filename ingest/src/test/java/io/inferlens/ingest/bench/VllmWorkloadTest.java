package io.inferlens.ingest.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.ingest.DecodedWrite;
import io.inferlens.ingest.IngestLimits;
import io.inferlens.ingest.RemoteWriteDecoder;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/** Keeps the benchmark honest: its request is all valid and deterministic. */
class VllmWorkloadTest {

  @Test
  void benchmarkRequestIsValidAndDeterministic() throws Exception {
    WriteRequest a = VllmWorkload.request(DecodeBenchmark.SEED, DecodeBenchmark.SAMPLES,
        DecodeBenchmark.GRID_MS);
    WriteRequest b = VllmWorkload.request(DecodeBenchmark.SEED, DecodeBenchmark.SAMPLES,
        DecodeBenchmark.GRID_MS);
    assertThat(a).isEqualTo(b);
    assertThat(a.getTimeseriesCount()).isEqualTo(DecodeBenchmark.SAMPLES);
    Clock clock = Clock.fixed(Instant.ofEpochMilli(DecodeBenchmark.GRID_MS), ZoneOffset.UTC);
    DecodedWrite d = new RemoteWriteDecoder(IngestLimits.defaults().withClock(clock))
        .decodeSnappy(Snappy.compress(a.toByteArray()));
    assertThat(d.hasErrors()).as(d.firstError()).isFalse();
    assertThat(d.samplesAccepted()).isEqualTo(DecodeBenchmark.SAMPLES);
    assertThat(d.valid().get(0).labels().toString()).contains("model_name=\"meta-llama/");
  }
}
