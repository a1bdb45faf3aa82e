package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.LIMITS;
import static io.inferlens.ingest.Requests.NOW_MS;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.proto.prometheus.Types;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-series label limits and the name rule ({@link LabelLimits}) as the decoder applies
 * them: each limit at its boundary (accepted) and one past it (refused alone, named with its flag
 * and value, the request's other series kept).
 */
class LabelLimitsTest {

  private static final LabelSet GOOD = LabelSet.of("__name__", "good", "job", "a");

  /** A good series, then {@code other}, each with one sample, through a decoder with limits. */
  private static DecodedWrite decode(LabelLimits limits, Types.TimeSeries.Builder other)
      throws IngestException {
    RemoteWriteDecoder decoder = new RemoteWriteDecoder(LIMITS.withLabels(limits));
    return decoder.decodeSnappy(snappy(request(
        series("__name__", "good", "job", "a").addSamples(sample(NOW_MS, 1)),
        other.addSamples(sample(NOW_MS, 2)))));
  }

  private static void assertAccepted(DecodedWrite d) {
    assertThat(d.hasErrors()).as(d.firstError()).isFalse();
    assertThat(d.valid()).hasSize(2);
    assertThat(d.samplesAccepted()).isEqualTo(2);
  }

  private static void assertRefused(DecodedWrite d, String reason, String... parts) {
    assertThat(d.hasErrors()).isTrue();
    assertThat(d.firstError()).contains(parts).contains("(1 sample refused)");
    assertThat(d.rejectedByReason()).isEqualTo(Map.of(reason, 1L));
    assertThat(d.seriesRejected()).isEqualTo(1);
    assertThat(d.valid()).extracting(SeriesWrite::labels).containsExactly(GOOD);
    assertThat(d.samplesAccepted()).isEqualTo(1);
  }

  /** @return {@code __name__="m"} plus labels l001… until the series has {@code total} */
  private static Types.TimeSeries.Builder withLabels(int total) {
    Types.TimeSeries.Builder s = series("__name__", "m");
    for (int i = 1; i < total; i++) {
      s.addLabels(Types.Label.newBuilder().setName(String.format("l%05d", i)).setValue("v"));
    }
    return s;
  }

  @Test
  void defaultsAreMimirs() {
    LabelLimits d = LabelLimits.defaults();
    assertThat(d.maxLabelNamesPerSeries()).isEqualTo(30);
    assertThat(d.maxLabelNameLength()).isEqualTo(1024);
    assertThat(d.maxLabelValueLength()).isEqualTo(2048);
    assertThat(d.maxMetricNameLength()).isEqualTo(2048);
    assertThat(d.allowUtf8Names()).isFalse();
    assertThat(d.withUtf8Names(true).allowUtf8Names()).isTrue();
    assertThat(IngestLimits.defaults().labels()).isEqualTo(d);
  }

  @Test
  void limitsBelowOneNameTheirFlag() {
    assertThatThrownBy(() -> new LabelLimits(0, 1, 1, 1, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--limits.max-label-names-per-series");
    assertThatThrownBy(() -> new LabelLimits(1, 0, 1, 1, false))
        .hasMessageContaining("--limits.max-label-name-length");
    assertThatThrownBy(() -> new LabelLimits(1, 1, -1, 1, false))
        .hasMessageContaining("--limits.max-label-value-length");
    assertThatThrownBy(() -> new LabelLimits(1, 1, 1, 0, false))
        .hasMessageContaining("--limits.max-metric-name-length");
  }

  @Test
  void thirtyLabelsAreAcceptedAndThirtyOneRefused() throws Exception {
    assertAccepted(decode(LabelLimits.defaults(), withLabels(30)));
    assertRefused(decode(LabelLimits.defaults(), withLabels(31)), "max_label_names_per_series",
        "31 labels, more than --limits.max-label-names-per-series 30", "{__name__=\"m\"");
  }

  @Test
  void labelsWithEmptyValuesCountAsSent() throws Exception {
    Types.TimeSeries.Builder s = withLabels(30)
        .addLabels(Types.Label.newBuilder().setName("zz").setValue(""));
    assertRefused(decode(LabelLimits.defaults(), s), "max_label_names_per_series", "31 labels");
  }

  @Test
  void labelNameLengthBoundary() throws Exception {
    assertAccepted(decode(LabelLimits.defaults(), series("__name__", "m", "n".repeat(1024), "v")));
    assertRefused(decode(LabelLimits.defaults(), series("__name__", "m", "n".repeat(1025), "v")),
        "label_name_too_long", "is 1025 bytes, longer than --limits.max-label-name-length 1024");
  }

  @Test
  void labelValueLengthBoundaryCountsUtf8Bytes() throws Exception {
    assertAccepted(decode(LabelLimits.defaults(), series("__name__", "m", "v", "x".repeat(2048))));
    assertRefused(decode(LabelLimits.defaults(), series("__name__", "m", "v", "x".repeat(2049))),
        "label_value_too_long",
        "value of label \"v\" is 2049 bytes, longer than --limits.max-label-value-length 2048");
    // é is 2 bytes of UTF-8: 1024 of them are 2048 bytes (1024 chars), 1025 are 2050.
    assertAccepted(decode(LabelLimits.defaults(), series("__name__", "m", "v", "é".repeat(1024))));
    assertRefused(decode(LabelLimits.defaults(), series("__name__", "m", "v", "é".repeat(1025))),
        "label_value_too_long", "is 2050 bytes");
  }

  @Test
  void metricNameLengthBoundary() throws Exception {
    assertAccepted(decode(LabelLimits.defaults(), series("__name__", "m".repeat(2048))));
    assertRefused(decode(LabelLimits.defaults(), series("__name__", "m".repeat(2049))),
        "metric_name_too_long",
        "metric name is 2049 bytes, longer than --limits.max-metric-name-length 2048");
  }

  @Test
  void theMetricNameHasItsOwnLimitNotTheLabelValueOne() throws Exception {
    LabelLimits limits = new LabelLimits(30, 1024, 100, 5000, false);
    assertAccepted(decode(limits, series("__name__", "m".repeat(3000), "v", "x".repeat(100))));
    assertRefused(decode(limits, series("__name__", "m".repeat(3000), "v", "x".repeat(101))),
        "label_value_too_long", "--limits.max-label-value-length 100");
    assertRefused(decode(limits, series("__name__", "m".repeat(5001))), "metric_name_too_long",
        "--limits.max-metric-name-length 5000");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0bad", "r[bad]", "a.b-c", "é", "a b"})
  void invalidMetricNamesAreRefusedUnlessUtf8NamesAreAllowed(String name) throws Exception {
    assertRefused(decode(LabelLimits.defaults(), series("__name__", name)),
        "invalid_metric_name", "metric name \"" + name + "\" is not a valid Prometheus metric"
            + " name ([a-zA-Z_:][a-zA-Z0-9_:]*)", "--allow-utf8-names");
    DecodedWrite d = decode(LabelLimits.defaults().withUtf8Names(true), series("__name__", name));
    assertAccepted(d);
    assertThat(d.valid().get(1).labels()).isEqualTo(LabelSet.of("__name__", name));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0bad", "r[bad]", "a.b-c", "a:b", "é"})
  void invalidLabelNamesAreRefusedUnlessUtf8NamesAreAllowed(String name) throws Exception {
    assertRefused(decode(LabelLimits.defaults(), series("__name__", "m", name, "v")),
        "invalid_label_name", "label name \"" + name + "\" is not a valid Prometheus label"
            + " name ([a-zA-Z_][a-zA-Z0-9_]*)");
    assertAccepted(decode(LabelLimits.defaults().withUtf8Names(true),
        series("__name__", "m", name, "v")));
  }

  static Stream<Arguments> validNames() {
    return Stream.of(Arguments.of("vllm:e2e_request_latency_seconds_bucket", "__reserved"),
        Arguments.of("_x", "_"), Arguments.of(":", "Hostname"), Arguments.of("a9", "le"));
  }

  @ParameterizedTest
  @MethodSource
  void validNames(String metric, String label) throws Exception {
    assertThat(LabelLimits.isLegacyMetricName(metric)).isTrue();
    assertThat(LabelLimits.isLegacyLabelName(label)).isTrue();
    assertAccepted(decode(LabelLimits.defaults(), series("__name__", metric, label, "v")));
  }

  @Test
  void legacyRules() {
    assertThat(LabelLimits.isLegacyMetricName("")).isFalse();
    assertThat(LabelLimits.isLegacyLabelName("")).isFalse();
    assertThat(LabelLimits.isLegacyMetricName("9")).isFalse();
    assertThat(LabelLimits.isLegacyLabelName("a:b")).isFalse();
    assertThat(LabelLimits.isLegacyMetricName("a:b")).isTrue();
  }

  @Test
  void aOneMebibyteLabelValueIsRefusedWithAShortMessage() throws Exception {
    DecodedWrite d = decode(LabelLimits.defaults(),
        series("__name__", "bomb", "payload", "x".repeat(1 << 20)));
    assertRefused(d, "label_value_too_long", "is 1048576 bytes", "{__name__=\"bomb\"");
    assertThat(d.firstError().length()).isLessThan(1000);
  }

  @Test
  void aOneMebibyteLabelNameIsRefusedWithAShortMessage() throws Exception {
    DecodedWrite d = decode(LabelLimits.defaults(), series("__name__", "bomb", "n".repeat(1 << 20),
        "v"));
    assertRefused(d, "label_name_too_long", "is 1048576 bytes");
    assertThat(d.firstError().length()).isLessThan(1500);
  }

  @Test
  void thirtyThousandLabelsAreRefused() throws Exception {
    DecodedWrite d = decode(LabelLimits.defaults(), withLabels(30_000));
    assertRefused(d, "max_label_names_per_series", "30000 labels", "{__name__=\"m\"");
    assertThat(d.firstError().length()).isLessThan(1500);
  }

  @Test
  void aHundredThousandCharacterMetricNameIsRefusedAndQuotedCut() throws Exception {
    DecodedWrite d = decode(LabelLimits.defaults(), series("__name__", "a".repeat(100_000)));
    assertRefused(d, "metric_name_too_long", "metric name is 100000 bytes",
        "{__name__=\"" + "a".repeat(200) + "...\"}");
    assertThat(d.firstError().length()).isLessThan(500);
  }

  @Test
  void theMetricNameLeadsTheSeriesTextWhateverItsPosition() throws Exception {
    DecodedWrite d = decode(LabelLimits.defaults(),
        series("Hostname", "h".repeat(3000), "__name__", "dcgm_m"));
    assertRefused(d, "label_value_too_long", "{__name__=\"dcgm_m\", Hostname=\"hhh");
  }

  @Test
  void aRefusedSeriesIsRefusedAgainAndAnAcceptedOneStaysAccepted() throws Exception {
    RemoteWriteDecoder decoder = new RemoteWriteDecoder(LIMITS);
    byte[] body = snappy(request(
        series("__name__", "good", "job", "a").addSamples(sample(NOW_MS, 1)),
        series("__name__", "0bad", "job", "a").addSamples(sample(NOW_MS, 2))));
    for (int i = 0; i < 3; i++) {
      DecodedWrite d = decoder.decodeSnappy(body);
      assertThat(d.rejectedByReason()).as("pass %d", i).isEqualTo(Map.of("invalid_metric_name", 1L));
      assertThat(d.valid()).extracting(SeriesWrite::labels).containsExactly(GOOD);
    }
  }
}
