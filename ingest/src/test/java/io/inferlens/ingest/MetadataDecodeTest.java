package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.LIMITS;
import static io.inferlens.ingest.Requests.NOW_MS;
import static io.inferlens.ingest.Requests.asField;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.CodedOutputStream;
import io.inferlens.ingest.IngestException.Kind;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.MetricMetadata;
import io.inferlens.storage.MetricType;
import io.inferlens.storage.SeriesWrite;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RemoteWriteDecoder} on WriteRequest field 3, {@code MetricMetadata}: decoded into
 * {@link MetricMetadata} records, bad entries refused alone and counted.
 */
class MetadataDecodeTest {

  private final RemoteWriteDecoder decoder = new RemoteWriteDecoder(LIMITS);

  private static Types.MetricMetadata.Builder meta(String family,
      Types.MetricMetadata.MetricType type, String help, String unit) {
    return Types.MetricMetadata.newBuilder().setMetricFamilyName(family).setType(type)
        .setHelp(help).setUnit(unit);
  }

  /** A MetricMetadata message written by hand: field number, then bytes, per pair. */
  private static byte[] rawMeta(Object... fieldAndBytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      for (int i = 0; i < fieldAndBytes.length; i += 2) {
        int field = (Integer) fieldAndBytes[i];
        Object v = fieldAndBytes[i + 1];
        if (v instanceof Integer) {
          c.writeInt32(field, (Integer) v);
        } else {
          c.writeByteArray(field, (byte[]) v);
        }
      }
      c.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.write(p, 0, p.length);
    }
    return out.toByteArray();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void everyTypeHelpAndUnitIsDecodedInRequestOrder() throws Exception {
    WriteRequest.Builder req = WriteRequest.newBuilder();
    Types.MetricMetadata.MetricType[] wire = {
        Types.MetricMetadata.MetricType.UNKNOWN, Types.MetricMetadata.MetricType.COUNTER,
        Types.MetricMetadata.MetricType.GAUGE, Types.MetricMetadata.MetricType.HISTOGRAM,
        Types.MetricMetadata.MetricType.GAUGEHISTOGRAM, Types.MetricMetadata.MetricType.SUMMARY,
        Types.MetricMetadata.MetricType.INFO, Types.MetricMetadata.MetricType.STATESET};
    for (int i = 0; i < wire.length; i++) {
      req.addMetadata(meta("m" + i, wire[i], "Help of m" + i + " — ünïcode.", i == 3 ? "seconds"
          : ""));
    }
    DecodedWrite d = decoder.decodeSnappy(snappy(req.build()));
    assertThat(d.hasErrors()).isFalse();
    assertThat(d.metadataCount()).isEqualTo(8);
    assertThat(d.metadataRejected()).isZero();
    assertThat(d.metadataError()).isNull();
    assertThat(d.metadata()).extracting(MetricMetadata::type).containsExactly(MetricType.UNKNOWN,
        MetricType.COUNTER, MetricType.GAUGE, MetricType.HISTOGRAM, MetricType.GAUGEHISTOGRAM,
        MetricType.SUMMARY, MetricType.INFO, MetricType.STATESET);
    assertThat(d.metadata().get(3)).isEqualTo(new MetricMetadata("m3", MetricType.HISTOGRAM,
        "Help of m3 — ünïcode.", "seconds"));
    assertThat(d.valid()).isEmpty();
  }

  @Test
  void protobufRulesApply() throws Exception {
    byte[] body = concat(
        // Absent fields take the defaults: type UNKNOWN, help and unit empty.
        asField(3, rawMeta(2, utf8("only_name"))),
        // A repeated field takes the last value; field 3 (unused upstream) and 9 are skipped;
        // fields in any order.
        asField(3, rawMeta(4, utf8("old help"), 3, utf8("x"), 1, 1, 2, utf8("c_total"),
            4, utf8("new help"), 9, 7)),
        // An enum number this build does not know is read as unknown.
        asField(3, rawMeta(2, utf8("future"), 1, 42, 5, utf8("bytes"))),
        // Negative enum numbers are ten-byte varints.
        asField(3, rawMeta(2, utf8("negative"), 1, -1)));
    DecodedWrite d = decoder.decode(body, 0, body.length);
    assertThat(d.hasErrors()).as(d.metadataError()).isFalse();
    assertThat(d.metadata()).containsExactly(
        new MetricMetadata("only_name", MetricType.UNKNOWN, "", ""),
        new MetricMetadata("c_total", MetricType.COUNTER, "new help", ""),
        new MetricMetadata("future", MetricType.UNKNOWN, "", "bytes"),
        new MetricMetadata("negative", MetricType.UNKNOWN, "", ""));
  }

  @Test
  void badEntriesAreRefusedAloneAndCounted() throws Exception {
    byte[] helpAtLimit = new byte[MetricMetadata.MAX_HELP_BYTES];
    Arrays.fill(helpAtLimit, (byte) 'h');
    byte[] helpOver = Arrays.copyOf(helpAtLimit, helpAtLimit.length + 1);
    helpOver[helpOver.length - 1] = 'h';
    byte[] body = concat(
        asField(3, rawMeta(1, 1, 4, utf8("Requests without a name."))),
        asField(3, rawMeta(2, utf8("kept_first"), 1, 2)),
        asField(3, rawMeta(2, utf8("long_help"), 4, helpOver)),
        asField(3, rawMeta(2, utf8("help_at_limit"), 4, helpAtLimit)),
        asField(3, rawMeta(2, utf8("bad_utf8"), 4, new byte[] {'o', 'k', (byte) 0xff})),
        asField(3, rawMeta(2, new byte[] {(byte) 0xc3})),
        asField(3, rawMeta(2, utf8("long_unit"), 5, new byte[MetricMetadata.MAX_UNIT_BYTES + 1])),
        asField(3, rawMeta(2, new byte[MetricMetadata.MAX_NAME_BYTES + 1])),
        // A surrogate encoded in UTF-8 (CESU-8) is not valid UTF-8.
        asField(3, rawMeta(2, utf8("cesu"), 5, new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80})),
        asField(3, rawMeta(2, utf8("kept_last"))),
        request(series("__name__", "up").addSamples(sample(NOW_MS, 1))).toByteArray());
    DecodedWrite d = decoder.decode(body, 0, body.length);
    assertThat(d.metadataCount()).isEqualTo(10);
    assertThat(d.metadata()).extracting(MetricMetadata::metricFamilyName)
        .containsExactly("kept_first", "help_at_limit", "kept_last");
    assertThat(d.metadataRejected()).isEqualTo(7);
    assertThat(d.metadataError()).isEqualTo("metadata entry 1 of the request (type counter, help"
        + " \"Requests without a name.\"): metric_family_name is empty");
    assertThat(d.hasErrors()).isTrue();
    // The series of the same request is untouched, and no sample counts as rejected.
    assertThat(d.firstError()).isNull();
    assertThat(d.valid()).extracting(SeriesWrite::labels)
        .containsExactly(LabelSet.of("__name__", "up"));
    assertThat(d.samplesRejected()).isZero();
  }

  @Test
  void eachRuleNamesTheEntryTheFieldAndTheLimit() throws Exception {
    byte[] helpOver = new byte[MetricMetadata.MAX_HELP_BYTES + 1];
    Arrays.fill(helpOver, (byte) 'h');
    Object[][] cases = {
        {rawMeta(2, utf8("long_help"), 4, helpOver), "metadata of metric family \"long_help\""
            + " (metadata entry 1 of the request): help is 65537 bytes, over the limit of"
            + " 65536 bytes"},
        {rawMeta(2, utf8("u"), 5, new byte[4097]), "metadata of metric family \"u\" (metadata"
            + " entry 1 of the request): unit is 4097 bytes, over the limit of 4096 bytes"},
        {rawMeta(2, new byte[4097]), "metadata entry 1 of the request: metric_family_name is"
            + " 4097 bytes, over the limit of 4096 bytes"},
        {rawMeta(2, new byte[] {(byte) 0xff}), "metadata entry 1 of the request:"
            + " metric_family_name is not valid UTF-8"},
        {rawMeta(2, utf8("h"), 4, new byte[] {(byte) 0x80}), "metadata of metric family \"h\""
            + " (metadata entry 1 of the request): help is not valid UTF-8"},
        {rawMeta(4, utf8("x".repeat(100))), "metadata entry 1 of the request (type unknown, help"
            + " \"" + "x".repeat(80) + "...\"): metric_family_name is empty"}};
    for (Object[] c : cases) {
      byte[] body = asField(3, (byte[]) c[0]);
      DecodedWrite d = decoder.decode(body, 0, body.length);
      assertThat(d.metadataError()).isEqualTo(c[1]);
      assertThat(d.metadataRejected()).isEqualTo(1);
      assertThat(d.metadata()).isEmpty();
    }
  }

  @Test
  void aMetadataMessageThatIsNotProtobufFailsTheRequest() {
    // Field 2 declares 50 bytes of a message of 3.
    byte[] body = asField(3, new byte[] {0x12, 50, 'a'});
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> decoder.decode(body, 0, body.length));
    assertThat(e.kind()).isEqualTo(Kind.BAD_REQUEST);
    assertThat(e.getMessage()).contains("not a valid remote write 1.0 WriteRequest");
  }

  @Test
  void theNextRequestStartsAfresh() throws Exception {
    byte[] bad = asField(3, rawMeta(4, utf8("nameless")));
    assertThat(decoder.decode(bad, 0, bad.length).metadataRejected()).isEqualTo(1);
    DecodedWrite next = decoder.decodeSnappy(snappy(request(
        series("__name__", "up").addSamples(sample(NOW_MS, 1)))));
    assertThat(next.hasErrors()).isFalse();
    assertThat(next.metadata()).isEmpty();
    assertThat(next.metadataRejected()).isZero();
    assertThat(next.metadataCount()).isZero();
    assertThat(next.metadata()).isEqualTo(List.of());
  }
}
