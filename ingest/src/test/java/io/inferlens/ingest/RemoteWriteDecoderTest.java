package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.LIMITS;
import static io.inferlens.ingest.Requests.NOW_MS;
import static io.inferlens.ingest.Requests.asField;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static io.inferlens.ingest.Requests.withUnknownField;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferlens.ingest.IngestException.Kind;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RemoteWriteDecoderTest {

  private static final long DAY_MS = 86_400_000L;

  private final RemoteWriteDecoder decoder = new RemoteWriteDecoder(LIMITS);

  private DecodedWrite decode(WriteRequest request) throws IngestException {
    return decoder.decodeSnappy(snappy(request));
  }

  static Stream<Arguments> rejectedSeries() {
    return Stream.of(
        Arguments.of("duplicate label name",
            series("__name__", "m", "zone", "a", "zone", "b"), "duplicate_label_name",
            new String[] {"duplicate label name \"zone\"", "zone=\"a\", zone=\"b\""}),
        Arguments.of("duplicate label name, one value empty",
            series("__name__", "m", "zone", "", "zone", "b"), "duplicate_label_name",
            new String[] {"\"zone\""}),
        Arguments.of("empty label name", series("__name__", "m", "", "x"), "empty_label_name",
            new String[] {"empty name", "{__name__=\"m\", =\"x\"}"}),
        Arguments.of("no __name__", series("job", "node"), "missing_metric_name",
            new String[] {"{job=\"node\"}", "__name__"}),
        Arguments.of("empty __name__", series("__name__", "", "job", "node"),
            "missing_metric_name", new String[] {"__name__"}),
        Arguments.of("timestamp 0", series("__name__", "m").addSamples(sample(0, 1)), "too_old",
            new String[] {"timestamp 0 ms", "retention horizon " + (NOW_MS - 30 * DAY_MS),
                "milliseconds since the Unix epoch"}),
        Arguments.of("timestamp in seconds",
            series("__name__", "m").addSamples(sample(NOW_MS / 1000, 1)), "too_old",
            new String[] {"timestamp " + NOW_MS / 1000 + " ms", "milliseconds"}),
        Arguments.of("negative timestamp", series("__name__", "m").addSamples(sample(-1000, 1)),
            "too_old", new String[] {"timestamp -1000 ms", "milliseconds"}),
        Arguments.of("timestamp 31 days old",
            series("__name__", "m").addSamples(sample(NOW_MS - 31 * DAY_MS, 1)), "too_old",
            new String[] {"older than the retention horizon"}),
        Arguments.of("timestamp in microseconds",
            series("__name__", "m").addSamples(sample(NOW_MS * 1000, 1)), "too_far_in_future",
            new String[] {"600000 ms ahead of now " + NOW_MS, "milliseconds"}),
        Arguments.of("timestamp 11 minutes ahead",
            series("__name__", "m").addSamples(sample(NOW_MS + 660_000, 1)), "too_far_in_future",
            new String[] {"timestamp " + (NOW_MS + 660_000) + " ms",
                "latest accepted " + (NOW_MS + 600_000)}),
        Arguments.of("native histogram",
            series("__name__", "h").addHistograms(
                Types.Histogram.newBuilder().setCountInt(3).setSum(1.5).setTimestamp(NOW_MS)),
            "native_histogram", new String[] {"native histograms are not supported yet",
                "{__name__=\"h\"}"}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void rejectedSeries(String name, Types.TimeSeries.Builder bad, String reason, String[] parts)
      throws Exception {
    if (bad.getSamplesCount() == 0 && bad.getHistogramsCount() == 0) {
      bad.addSamples(sample(NOW_MS, 1)).addSamples(sample(NOW_MS - 15_000, 2));
    }
    long badSamples = bad.getSamplesCount() + bad.getHistogramsCount();
    DecodedWrite d = decode(request(
        series("__name__", "good", "job", "a").addSamples(sample(NOW_MS, 7)), bad));

    assertThat(d.hasErrors()).isTrue();
    assertThat(d.firstError()).contains(parts);
    assertThat(d.seriesRejected()).isEqualTo(1);
    assertThat(d.rejectedByReason()).isEqualTo(Map.of(reason, badSamples));
    assertThat(d.valid()).extracting(SeriesWrite::labels)
        .containsExactly(LabelSet.of("__name__", "good", "job", "a"));
    assertThat(d.samplesAccepted()).isEqualTo(1);
    assertThat(d.seriesCount()).isEqualTo(2);
  }

  static Stream<Arguments> equalLabelSets() {
    return Stream.of(
        Arguments.of(series("zeta", "1", "__name__", "m", "alpha", "2"),
            series("__name__", "m", "alpha", "2", "zeta", "1")),
        Arguments.of(series("__name__", "m", "a", "", "b", "x"), series("__name__", "m", "b", "x")),
        // UTF-8 byte order, not UTF-16: U+1F600 (surrogate pair) sorts after U+FF5E.
        Arguments.of(series("\uD83D\uDE00", "x", "\uFF5E", "y", "__name__", "m"),
            series("__name__", "m", "\uFF5E", "y", "\uD83D\uDE00", "x")));
  }

  @ParameterizedTest
  @MethodSource
  void equalLabelSets(Types.TimeSeries.Builder a, Types.TimeSeries.Builder b) throws Exception {
    // The non-ASCII label names need --allow-utf8-names.
    RemoteWriteDecoder utf8 = new RemoteWriteDecoder(
        LIMITS.withLabels(LabelLimits.defaults().withUtf8Names(true)));
    DecodedWrite d = utf8.decodeSnappy(snappy(request(a.addSamples(sample(NOW_MS, 1)),
        b.addSamples(sample(NOW_MS, 1)))));
    assertThat(d.hasErrors()).as(d.firstError()).isFalse();
    assertThat(d.valid()).hasSize(2);
    assertThat(d.valid().get(0).labels()).isEqualTo(d.valid().get(1).labels());
    assertThat(d.valid().get(0).labels().name(0)).isEqualTo("__name__");
  }

  static Stream<Arguments> noOps() {
    return Stream.of(
        Arguments.of("single byte 0x00", new byte[] {0}, 0, 0),
        Arguments.of("empty request", snappy(new byte[0]), 0, 0),
        Arguments.of("metadata only", snappy(WriteRequest.newBuilder()
            .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("up")
                .setType(Types.MetricMetadata.MetricType.GAUGE).setHelp("Up."))
            .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("x"))
            .build()), 0, 2),
        Arguments.of("series without samples",
            snappy(request(series("__name__", "m", "job", "x"))), 1, 0),
        Arguments.of("remote write 2.0 shaped body", snappy(asField(4, new byte[] {8, 1})), 0, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void noOps(String name, byte[] body, int seriesCount, int metadataCount) throws Exception {
    DecodedWrite d = decoder.decodeSnappy(body);
    assertThat(d.hasErrors()).isFalse();
    assertThat(d.valid()).isEmpty();
    assertThat(d.seriesCount()).isEqualTo(seriesCount);
    assertThat(d.metadataCount()).isEqualTo(metadataCount);
    assertThat(d.rejectedByReason()).isEmpty();
  }

  @Test
  void rawValueBitsArePreserved() throws Exception {
    long staleMarker = 0x7ff0000000000002L;
    long negativeZero = Double.doubleToRawLongBits(-0.0);
    long otherNan = 0x7ff8000000000123L;
    DecodedWrite d = decode(request(series("__name__", "m")
        .addSamples(sample(NOW_MS - 30_000, Double.longBitsToDouble(staleMarker)))
        .addSamples(sample(NOW_MS - 15_000, -0.0))
        .addSamples(sample(NOW_MS - 1, 0.0))
        .addSamples(sample(NOW_MS, Double.longBitsToDouble(otherNan)))));
    SeriesWrite w = d.valid().get(0);
    assertThat(w.count()).isEqualTo(4);
    assertThat(Arrays.copyOf(w.valueBits(), w.count()))
        .containsExactly(staleMarker, negativeZero, 0L, otherNan);
    assertThat(Arrays.copyOf(w.timestampsMs(), w.count()))
        .containsExactly(NOW_MS - 30_000, NOW_MS - 15_000, NOW_MS - 1, NOW_MS);
  }

  @Test
  void unknownFieldsAndExemplarsAreSkipped() throws Exception {
    Types.TimeSeries ts = series("__name__", "m", "job", "x")
        .addSamples(sample(NOW_MS, 2.5))
        .addExemplars(Types.Exemplar.newBuilder().setValue(1).setTimestamp(NOW_MS)
            .addLabels(Types.Label.newBuilder().setName("trace_id").setValue("abc")))
        .build();
    byte[] label = withUnknownField(
        Types.Label.newBuilder().setName("zone").setValue("z").build().toByteArray(), 9);
    byte[] sample = withUnknownField(sample(NOW_MS - 1000, 3.5).toByteArray(), 5);
    byte[] series = withUnknownField(concat(ts.toByteArray(), asField(1, label),
        asField(2, sample)), 17);
    byte[] body = withUnknownField(concat(asField(1, series), asField(2, new byte[] {1, 2})), 20);

    DecodedWrite d = decoder.decodeSnappy(snappy(body));
    assertThat(d.hasErrors()).as(d.firstError()).isFalse();
    assertThat(d.valid()).hasSize(1);
    SeriesWrite w = d.valid().get(0);
    assertThat(w.labels()).isEqualTo(LabelSet.of("__name__", "m", "job", "x", "zone", "z"));
    assertThat(w.count()).isEqualTo(2);
    assertThat(w.valueBits()).containsExactly(Double.doubleToRawLongBits(2.5),
        Double.doubleToRawLongBits(3.5));
  }

  static Stream<Arguments> malformedProtobuf() {
    byte[] good = request(series("__name__", "m").addSamples(sample(NOW_MS, 1))).toByteArray();
    return Stream.of(
        Arguments.of("truncated message", Arrays.copyOf(good, good.length - 2)),
        Arguments.of("wire type 7", new byte[] {0x0f}),
        Arguments.of("length past the end", new byte[] {0x0a, 0x7f, 0x0a}),
        Arguments.of("field number 0", new byte[] {0x00, 0x01}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void malformedProtobuf(String name, byte[] raw) {
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> decoder.decodeSnappy(snappy(raw)));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(Kind.BAD_REQUEST);
    assertThat(e.getMessage()).contains("not a valid remote write 1.0 WriteRequest")
        .contains("byte offset");
  }

  /**
   * Out-of-range timestamps refuse their own samples only: the series keeps its samples inside
   * the window, in order, and the message names the first refused one and the counts.
   */
  @Test
  void outOfRangeSamplesAreRefusedOneByOne() throws Exception {
    long old = NOW_MS - 31 * DAY_MS;
    long future = NOW_MS + 660_000;
    Types.TimeSeries.Builder mixed = series("__name__", "mixed", "job", "a")
        .addSamples(sample(old, 1))
        .addSamples(sample(NOW_MS - 30_000, 2))
        .addSamples(sample(future, 3))
        .addSamples(sample(NOW_MS - 15_000, 4))
        .addSamples(sample(old + 1, 5))
        .addSamples(sample(NOW_MS, 6));
    DecodedWrite d = decode(request(mixed,
        series("__name__", "allOld").addSamples(sample(old, 9)),
        series("__name__", "fine").addSamples(sample(NOW_MS, 8))));

    assertThat(d.rejectedByReason()).isEqualTo(Map.of("too_old", 3L, "too_far_in_future", 1L));
    assertThat(d.seriesRejected()).as("series with refused samples").isEqualTo(2);
    assertThat(d.firstError()).contains("{__name__=\"mixed\", job=\"a\"}")
        .contains("timestamp " + old + " ms").contains("older than the retention horizon")
        .contains("3 of its 6 samples refused")
        .contains("the other 3 passed on to be stored unless they conflict");
    assertThat(d.valid()).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "mixed", "job", "a"), LabelSet.of("__name__", "fine"));
    SeriesWrite kept = d.valid().get(0);
    assertThat(kept.count()).isEqualTo(3);
    assertThat(java.util.Arrays.copyOf(kept.timestampsMs(), kept.count()))
        .containsExactly(NOW_MS - 30_000, NOW_MS - 15_000, NOW_MS);
    assertThat(java.util.Arrays.copyOf(kept.valueBits(), kept.count())).containsExactly(
        Double.doubleToRawLongBits(2), Double.doubleToRawLongBits(4),
        Double.doubleToRawLongBits(6));
    assertThat(d.samplesAccepted()).isEqualTo(4);
  }

  /**
   * Native histogram samples are refused; the float samples of the same series are stored, and
   * an out-of-window float sample of that series does not count the series twice.
   */
  @Test
  void nativeHistogramsAreRefusedButTheirSeriesFloatSamplesStay() throws Exception {
    Types.TimeSeries.Builder mixed = series("__name__", "h", "job", "a")
        .addHistograms(Types.Histogram.newBuilder().setCountInt(3).setSum(1.5)
            .setTimestamp(NOW_MS))
        .addSamples(sample(NOW_MS - 15_000, 1))
        .addSamples(sample(NOW_MS - 31 * DAY_MS, 2))
        .addSamples(sample(NOW_MS, 3));
    DecodedWrite d = decode(request(mixed));
    assertThat(d.rejectedByReason()).isEqualTo(Map.of("native_histogram", 1L, "too_old", 1L));
    assertThat(d.seriesRejected()).isEqualTo(1);
    assertThat(d.firstError()).contains("native histograms are not supported yet")
        .contains("1 histogram sample refused, its 3 float samples go on");
    assertThat(d.valid()).singleElement().satisfies(w -> {
      assertThat(w.count()).isEqualTo(2);
      assertThat(java.util.Arrays.copyOf(w.timestampsMs(), 2))
          .containsExactly(NOW_MS - 15_000, NOW_MS);
    });
    assertThat(d.samplesAccepted()).isEqualTo(2);
  }

  @Test
  void invalidUtf8RejectsOnlyItsSeries() throws Exception {
    byte[] good = series("__name__", "good").addSamples(sample(NOW_MS, 1)).build().toByteArray();
    byte[] badLabel = concat(asField(1, "__name__".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        asField(2, new byte[] {'b', (byte) 0xc3, 0x28}));
    byte[] bad = concat(asField(1, badLabel), asField(2, sample(NOW_MS, 2).toByteArray()));
    DecodedWrite d = decoder.decodeSnappy(snappy(concat(asField(1, good), asField(1, bad))));
    assertThat(d.valid()).extracting(SeriesWrite::labels)
        .containsExactly(LabelSet.of("__name__", "good"));
    assertThat(d.firstError()).contains("not valid UTF-8").contains("__name__");
    assertThat(d.rejectedByReason()).containsEntry("invalid_utf8", 1L);
  }

  @Test
  void decompressionBombIsTooLarge() {
    byte[] bomb = snappy(new byte[64 << 20]);
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> decoder.decodeSnappy(bomb));
    assertThat(e.kind()).isEqualTo(Kind.PAYLOAD_TOO_LARGE);
    assertThat(e.getMessage()).contains("67108864").contains("33554432");
  }

  @Test
  void decoderIsReusableAcrossRequests() throws Exception {
    DecodedWrite first = decode(request(series("__name__", "a", "zone", "x", "zone", "y")
        .addSamples(sample(NOW_MS, 1))));
    assertThat(first.hasErrors()).isTrue();
    DecodedWrite second = decode(request(series("__name__", "b").addSamples(sample(NOW_MS, 2))));
    assertThat(second.hasErrors()).isFalse();
    assertThat(second.valid()).extracting(SeriesWrite::labels)
        .containsExactly(LabelSet.of("__name__", "b"));
    assertThat(first.valid()).isEmpty();
  }

  @Test
  void manyLabelsAndSamplesGrowTheScratchArrays() throws Exception {
    Types.TimeSeries.Builder s = series("__name__", "wide");
    for (int i = 0; i < 40; i++) {
      s.addLabels(Types.Label.newBuilder().setName("l" + (100 - i)).setValue("v" + i));
    }
    for (int i = 0; i < 100; i++) {
      s.addSamples(sample(NOW_MS - i * 15_000L, i));
    }
    // 41 labels: over the default --limits.max-label-names-per-series 30, so raise it.
    RemoteWriteDecoder wide = new RemoteWriteDecoder(LIMITS.withLabels(new LabelLimits(64,
        LabelLimits.DEFAULT_MAX_LABEL_NAME_LENGTH, LabelLimits.DEFAULT_MAX_LABEL_VALUE_LENGTH,
        LabelLimits.DEFAULT_MAX_METRIC_NAME_LENGTH, false)));
    DecodedWrite d = wide.decodeSnappy(snappy(request(s)));
    assertThat(d.hasErrors()).as(d.firstError()).isFalse();
    assertThat(d.valid().get(0).labels().size()).isEqualTo(41);
    assertThat(d.valid().get(0).count()).isEqualTo(100);
    assertThat(d.samplesAccepted()).isEqualTo(100);
  }

  static Stream<Arguments> sampleEncodings() {
    byte[] value = {0x09, 1, 2, 3, 4, 5, 6, 7, (byte) 0xf0}; // field 1, raw bits 0xf007..0201
    byte[] ts = {0x10, (byte) 0x80, (byte) 0xf0, (byte) 0xa2, (byte) 0xe2, (byte) 0xab, 0x33};
    byte[] maxVarint = {0x10, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01}; // 10 bytes: -1
    byte[] tooLongVarint = {0x10, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x81, 0x01};
    return Stream.of(
        Arguments.of("value then timestamp", concat(value, ts)),
        Arguments.of("timestamp then value", concat(ts, value)),
        Arguments.of("value twice, the last wins", concat(value, ts, new byte[] {0x09, 0, 0, 0, 0,
            0, 0, (byte) 0xf8, 0x7f})),
        Arguments.of("timestamp twice", concat(value, new byte[] {0x10, 0x05}, ts)),
        Arguments.of("no value", ts),
        Arguments.of("no timestamp", value),
        Arguments.of("10-byte timestamp varint", concat(value, maxVarint)),
        Arguments.of("11-byte timestamp varint", concat(value, tooLongVarint)),
        Arguments.of("truncated timestamp varint", concat(value, new byte[] {0x10, (byte) 0x80})),
        Arguments.of("non-minimal timestamp varint", concat(value, new byte[] {0x10,
            (byte) 0x85, (byte) 0x80, 0x00})),
        Arguments.of("unknown field after", concat(value, ts, new byte[] {0x18, 0x01})));
  }

  /** The decoder reads every Sample encoding as protobuf does, or fails where protobuf fails. */
  @ParameterizedTest(name = "{0}")
  @MethodSource
  void sampleEncodings(String name, byte[] sampleBytes) throws Exception {
    byte[] body = asField(1, concat(label("__name__", "m"), asField(2, sampleBytes)));
    Types.Sample expected;
    try {
      expected = Types.Sample.parseFrom(sampleBytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      IngestException x = catchThrowableOfType(IngestException.class,
          () -> decoder.decode(body, 0, body.length));
      assertThat(x).as("protobuf refuses it: %s", e.getMessage()).isNotNull();
      assertThat(x.kind()).isEqualTo(Kind.BAD_REQUEST);
      return;
    }
    RemoteWriteDecoder lenient = new RemoteWriteDecoder(new IngestLimits(
        IngestLimits.DEFAULT_MAX_DECODED_BYTES, Long.MAX_VALUE, Long.MAX_VALUE, Requests.CLOCK));
    DecodedWrite d = lenient.decode(body, 0, body.length);
    assertThat(d.hasErrors()).as(d.firstError()).isFalse();
    SeriesWrite w = d.valid().get(0);
    assertThat(w.count()).isEqualTo(1);
    assertThat(w.timestampsMs()[0]).isEqualTo(expected.getTimestamp());
    assertThat(w.valueBits()[0]).isEqualTo(Double.doubleToRawLongBits(expected.getValue()));
  }

  /** Requests whose label bytes repeat with other samples, other fields or invalid twists. */
  static Stream<Arguments> cachedLabelSetsDecodeAsWithoutCache() {
    byte[] run = concat(label("__name__", "m"), label("job", "x"));
    byte[] s1 = sample(NOW_MS, 1).toByteArray();
    byte[] old = sample(0, 1).toByteArray();
    byte[] hist = Types.Histogram.newBuilder().setCountInt(1).setTimestamp(NOW_MS).build()
        .toByteArray();
    byte[] badUtf8 = concat(label("__name__", "m"),
        asField(1, concat(asField(1, "job".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            asField(2, new byte[] {'x', (byte) 0xc3}))));
    byte[] nonMinimalLength = concat(label("__name__", "m"),
        new byte[] {0x0a, (byte) 0x88, 0x00}, // label field, length 8 in a 2-byte varint
        Arrays.copyOfRange(label("job", "x"), 2, 10));
    return Stream.of(
        Arguments.of("same labels, later sample", List.of(
            rawSeries(run, s1), rawSeries(run, sample(NOW_MS - 15_000, 2).toByteArray()))),
        Arguments.of("cached labels, then too old",
            List.of(rawSeries(run, s1), rawSeries(run, old))),
        Arguments.of("cached labels, then a native histogram", List.of(
            rawSeries(run, s1), concat(rawSeries(run, new byte[0]), asField(4, hist)))),
        Arguments.of("cached labels, then a label after the sample", List.of(
            rawSeries(run, s1), concat(rawSeries(run, s1), label("zone", "a")))),
        Arguments.of("cached labels, then a duplicate name after the sample", List.of(
            rawSeries(run, s1), concat(rawSeries(run, s1), label("job", "y")))),
        Arguments.of("cached labels, then a duplicate name inside the run", List.of(
            rawSeries(run, s1), rawSeries(concat(run, label("job", "y")), s1))),
        Arguments.of("cached labels, then an empty name", List.of(
            rawSeries(run, s1), rawSeries(concat(run, label("", "y")), s1))),
        Arguments.of("cached labels, then invalid UTF-8 in a value", List.of(
            rawSeries(run, s1), rawSeries(badUtf8, s1))),
        Arguments.of("cached labels, then the same labels with another length encoding",
            List.of(rawSeries(run, s1), rawSeries(nonMinimalLength, s1))),
        Arguments.of("invalid labels seen twice", List.of(
            rawSeries(concat(run, label("job", "y")), s1),
            rawSeries(concat(run, label("job", "y")), s1))),
        Arguments.of("labels in two runs", List.of(
            concat(rawSeries(label("__name__", "m"), s1), label("job", "x")),
            concat(rawSeries(label("__name__", "m"), s1), label("job", "x")))),
        Arguments.of("labels in two runs, then only the first run", List.of(
            concat(rawSeries(label("__name__", "m"), s1), label("job", "x")),
            rawSeries(label("__name__", "m"), s1))));
  }

  /**
   * Every series decodes to the same labels, samples and errors whether the label set cache is
   * empty or already holds the labels of every series in the test (a shared cache that two
   * decoders filled, as the handler's threads do).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource
  void cachedLabelSetsDecodeAsWithoutCache(String name, List<byte[]> seriesBytes)
      throws Exception {
    LabelSetCache shared = new LabelSetCache(64);
    RemoteWriteDecoder warmer = new RemoteWriteDecoder(LIMITS, shared);
    RemoteWriteDecoder warm = new RemoteWriteDecoder(LIMITS, shared);
    for (byte[] series : seriesBytes) {
      warmer.decodeSnappy(snappy(asField(1, series)));
    }
    for (int i = 0; i < seriesBytes.size(); i++) {
      byte[] body = snappy(asField(1, seriesBytes.get(i)));
      DecodedWrite cold = new RemoteWriteDecoder(LIMITS, new LabelSetCache(64)).decodeSnappy(body);
      DecodedWrite hot = warm.decodeSnappy(body);
      assertThat(summary(hot)).as("series %d", i).isEqualTo(summary(cold));
    }
  }

  @Test
  void aSeriesSeenBeforeReusesItsLabelSet() throws Exception {
    LabelSetCache shared = new LabelSetCache(64);
    byte[] body = snappy(request(series("job", "x", "__name__", "m", "a", "")
        .addSamples(sample(NOW_MS, 1))));
    DecodedWrite first = new RemoteWriteDecoder(LIMITS, shared).decodeSnappy(body);
    DecodedWrite second = new RemoteWriteDecoder(LIMITS, shared).decodeSnappy(body);
    LabelSet labels = first.valid().get(0).labels();
    assertThat(labels).isEqualTo(LabelSet.of("__name__", "m", "job", "x"));
    assertThat(second.valid().get(0).labels()).isSameAs(labels);
  }

  /**
   * Lookups try the series that followed the previous one last time first; a request in another
   * order (every prediction wrong), or a shared cache used by two decoders, finds the same label
   * sets.
   */
  @Test
  void seriesInAnotherOrderFindTheirOwnLabelSets() throws Exception {
    int n = 300;
    List<Types.TimeSeries.Builder> series = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      series.add(series("__name__", "m", "i", Integer.toString(i))
          .addSamples(sample(NOW_MS, i)));
    }
    List<Types.TimeSeries.Builder> reversed = new java.util.ArrayList<>(series);
    java.util.Collections.reverse(reversed);
    byte[] forward = snappy(request(series.toArray(new Types.TimeSeries.Builder[0])));
    byte[] backward = snappy(request(reversed.toArray(new Types.TimeSeries.Builder[0])));
    LabelSetCache shared = new LabelSetCache(1 << 12);
    RemoteWriteDecoder one = new RemoteWriteDecoder(LIMITS, shared);
    RemoteWriteDecoder other = new RemoteWriteDecoder(LIMITS, shared);
    DecodedWrite first = one.decodeSnappy(forward);
    for (DecodedWrite d : List.of(one.decodeSnappy(forward), other.decodeSnappy(backward),
        one.decodeSnappy(backward), other.decodeSnappy(forward))) {
      assertThat(d.valid()).hasSize(n);
      for (SeriesWrite w : d.valid()) {
        int i = (int) Double.longBitsToDouble(w.valueBits()[0]);
        assertThat(w.labels()).as("series %d", i).isSameAs(first.valid().get(i).labels());
      }
    }
  }

  private static byte[] label(String name, String value) {
    return asField(1, Types.Label.newBuilder().setName(name).setValue(value).build()
        .toByteArray());
  }

  /** @return a TimeSeries: the given label fields, then one sample field unless empty */
  private static byte[] rawSeries(byte[] labelFields, byte[] sample) {
    return sample.length == 0 ? labelFields : concat(labelFields, asField(2, sample));
  }

  private static String summary(DecodedWrite d) {
    StringBuilder sb = new StringBuilder();
    for (SeriesWrite w : d.valid()) {
      sb.append(w.labels()).append(' ')
          .append(Arrays.toString(Arrays.copyOf(w.timestampsMs(), w.count())))
          .append(Arrays.toString(Arrays.copyOf(w.valueBits(), w.count()))).append('\n');
    }
    return sb.append(d.firstError()).append(' ').append(d.seriesRejected()).append(' ')
        .append(d.seriesCount()).append(' ').append(d.samplesAccepted()).append(' ')
        .append(d.rejectedByReason()).toString();
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int pos = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, pos, p.length);
      pos += p.length;
    }
    return out;
  }
}
