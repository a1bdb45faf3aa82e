package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.NOW_MS;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferlens.ingest.IngestException.Kind;
import io.inferlens.proto.prometheus.Types;
import org.junit.jupiter.api.Test;

/**
 * The ingestion rate limit's token bucket on a clock moved by hand, alone and in the handler: a
 * request beyond it is refused whole (nothing appended) with a retry delay, and accepted once the
 * bucket has refilled.
 */
class IngestionRateLimiterTest {

  private static final String CT = "application/x-protobuf";

  private final MutableClock clock = new MutableClock(NOW_MS);

  @Test
  void theBucketStartsFullAndRefillsAtTheRate() {
    IngestionRateLimiter l = new IngestionRateLimiter(new IngestionRate(1000, 2000), clock);
    assertThat(l.burst()).isEqualTo(2000);
    assertThat(l.tryAcquire(2000)).isZero();
    // Empty: 1 sample needs 1 ms, which rounds up to a whole second of Retry-After.
    assertThat(l.tryAcquire(1)).isEqualTo(1);
    clock.advance(999);
    assertThat(l.tryAcquire(1000)).as("999 tokens").isEqualTo(1);
    clock.advance(1);
    assertThat(l.tryAcquire(1000)).isZero();
  }

  @Test
  void aRequestWaitsUntilTheBucketHoldsItsSamples() {
    IngestionRateLimiter l = new IngestionRateLimiter(new IngestionRate(100, 1000), clock);
    assertThat(l.tryAcquire(1000)).isZero();
    assertThat(l.tryAcquire(500)).as("500 samples at 100/s").isEqualTo(5);
    clock.advance(4_000);
    assertThat(l.tryAcquire(500)).as("400 tokens now").isEqualTo(1);
    clock.advance(1_000);
    assertThat(l.tryAcquire(500)).isZero();
    assertThat(l.tryAcquire(1)).isEqualTo(1);
  }

  @Test
  void theBucketNeverHoldsMoreThanTheBurst() {
    IngestionRateLimiter l = new IngestionRateLimiter(new IngestionRate(10, 20), clock);
    clock.advance(3_600_000);
    assertThat(l.tryAcquire(20)).isZero();
    assertThat(l.tryAcquire(1)).isEqualTo(1);
  }

  @Test
  void aRequestLargerThanTheBurstIsAdmittedWhenFullAndPaidBackAfter() {
    IngestionRateLimiter l = new IngestionRateLimiter(new IngestionRate(10, 20), clock);
    assertThat(l.tryAcquire(50)).as("never refused forever").isZero();
    // 30 samples of debt plus 1: 3.1 s.
    assertThat(l.tryAcquire(1)).isEqualTo(4);
    clock.advance(3_100);
    assertThat(l.tryAcquire(1)).isZero();
  }

  @Test
  void aClockSteppedBackRefillsNothing() {
    IngestionRateLimiter l = new IngestionRateLimiter(new IngestionRate(10, 10), clock);
    assertThat(l.tryAcquire(10)).isZero();
    clock.advance(-60_000);
    assertThat(l.tryAcquire(1)).isEqualTo(1);
    clock.advance(60_000 + 100);
    assertThat(l.tryAcquire(1)).isZero();
  }

  @Test
  void zeroSamplesAlwaysPassAndBurstZeroIsOneSecondOfTheRate() {
    IngestionRateLimiter l = new IngestionRateLimiter(new IngestionRate(2.5, 0), clock);
    assertThat(l.burst()).isEqualTo(3);
    assertThat(l.tryAcquire(3)).isZero();
    assertThat(l.tryAcquire(0)).isZero();
    assertThat(new IngestionRate(0.1, 0).effectiveBurst()).isEqualTo(1);
  }

  @Test
  void badSettingsNameTheirFlag() {
    assertThatThrownBy(() -> new IngestionRate(-1, 0))
        .hasMessageContaining("--limits.ingestion-rate");
    assertThatThrownBy(() -> new IngestionRate(Double.NaN, 0))
        .hasMessageContaining("--limits.ingestion-rate");
    assertThatThrownBy(() -> new IngestionRate(Double.POSITIVE_INFINITY, 0))
        .hasMessageContaining("--limits.ingestion-rate");
    assertThatThrownBy(() -> new IngestionRate(1, -1))
        .hasMessageContaining("--limits.ingestion-burst");
    // A burst without a rate would be ignored: refused, naming both flags.
    assertThatThrownBy(() -> new IngestionRate(0, 100))
        .hasMessageContaining("--limits.ingestion-burst 100")
        .hasMessageContaining("--limits.ingestion-rate");
    assertThatThrownBy(() -> new IngestionRateLimiter(IngestionRate.OFF, clock))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(IngestionRate.OFF.isOff()).isTrue();
    assertThat(IngestLimits.defaults().rate()).isEqualTo(IngestionRate.OFF);
  }

  /** @return a request of {@code n} series with one valid sample each */
  private static byte[] body(String metric, int n) {
    Types.TimeSeries.Builder[] s = new Types.TimeSeries.Builder[n];
    for (int i = 0; i < n; i++) {
      s[i] = series("__name__", metric, "i", Integer.toString(i)).addSamples(sample(NOW_MS, i));
    }
    return snappy(request(s));
  }

  @Test
  void theHandlerRefusesARequestBeyondTheRateWholeAndAcceptsItAfterTheRefill() throws Exception {
    RemoteWriteHandlerTest.RecordingAppender appender =
        new RemoteWriteHandlerTest.RecordingAppender();
    RemoteWriteHandler handler = new RemoteWriteHandler(appender,
        Requests.LIMITS.withClock(clock).withRate(new IngestionRate(10, 20)));
    assertThat(handler.handle(CT, "snappy", body("first", 15)).ok()).isTrue();
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> handler.handle(CT, "snappy", body("second", 10)));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(Kind.RATE_LIMITED);
    assertThat(e.retryAfterSeconds()).isEqualTo(1); // 5 tokens left, 5 more at 10/s
    assertThat(e.samples()).isEqualTo(10);
    assertThat(e.getMessage()).contains("10 samples refused",
        "--limits.ingestion-rate 10 samples/s", "--limits.ingestion-burst 20", "retry after 1 s");
    assertThat(appender.calls).as("nothing of a refused request is stored").isEqualTo(1);
    assertThat(appender.appended).hasSize(15);
    clock.advance(500);
    WriteOutcome retried = handler.handle(CT, "snappy", body("second", 10));
    assertThat(retried.ok()).isTrue();
    assertThat(retried.samplesAppended()).isEqualTo(10);
    assertThat(appender.appended).hasSize(25);
  }

  @Test
  void invalidSamplesAndMetadataDoNotCountAgainstTheRate() throws Exception {
    RemoteWriteHandlerTest.RecordingAppender appender =
        new RemoteWriteHandlerTest.RecordingAppender();
    RemoteWriteHandler handler = new RemoteWriteHandler(appender,
        Requests.LIMITS.withClock(clock).withRate(new IngestionRate(1, 1)));
    WriteOutcome bad = handler.handle(CT, "snappy", snappy(request(
        series("__name__", "0bad").addSamples(sample(NOW_MS, 1)),
        series("__name__", "old").addSamples(sample(0, 1)))));
    assertThat(bad.ok()).isFalse();
    assertThat(handler.handle(CT, "snappy", snappy(io.inferlens.proto.prometheus.Remote
        .WriteRequest.newBuilder().addMetadata(Types.MetricMetadata.newBuilder()
            .setMetricFamilyName("up")).build())).ok()).isTrue();
    assertThat(handler.handle(CT, "snappy", body("one", 1)).ok()).isTrue();
  }
}
