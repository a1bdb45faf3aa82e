package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.LIMITS;
import static io.inferlens.ingest.Requests.NOW_MS;
import static io.inferlens.ingest.Requests.framed;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferlens.ingest.IngestException.Kind;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types;
import io.inferlens.storage.AppendResult;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.MetricMetadata;
import io.inferlens.storage.MetricType;
import io.inferlens.storage.SampleAppender;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StorageException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The handler on an in-test {@link SampleAppender} that records what it was given: this module
 * must not depend on the RocksDB store, which the api module tests end to end.
 */
class RemoteWriteHandlerTest {

  private static final String CT = "application/x-protobuf;proto=prometheus.WriteRequest";

  /** Records appended series and metadata; can be told to reject or fail. */
  static final class RecordingAppender implements SampleAppender {
    final List<SeriesWrite> appended = new ArrayList<>();
    final List<MetricMetadata> metadata = new ArrayList<>();
    int metadataCalls;
    int calls;
    long conflicts;
    boolean fail;

    @Override
    public AppendResult append(List<SeriesWrite> writes) throws StorageException {
      calls++;
      if (fail) {
        throw new StorageException("injected RocksDB write failure", null);
      }
      appended.addAll(writes);
      long samples = writes.stream().mapToLong(SeriesWrite::count).sum();
      List<AppendResult.Rejection> rejections = new ArrayList<>();
      for (int i = 0; i < conflicts; i++) {
        rejections.add(new AppendResult.Rejection(writes.get(0).labels(), NOW_MS,
            "sample at " + NOW_MS + " ms has value bits 0x1 but 0x2 is already stored"));
      }
      return new AppendResult(samples - conflicts, 0, writes.size(), rejections, conflicts);
    }

    /** Records the entries; every family counts as changed. */
    @Override
    public int appendMetadata(List<MetricMetadata> entries) throws StorageException {
      metadataCalls++;
      if (fail) {
        throw new StorageException("injected RocksDB write failure", null);
      }
      metadata.addAll(entries);
      return (int) entries.stream().map(MetricMetadata::metricFamilyName).distinct().count();
    }
  }

  private final RecordingAppender appender = new RecordingAppender();
  private final RemoteWriteHandler handler = new RemoteWriteHandler(appender, LIMITS);

  @Test
  void decoderThreadsShareOneLabelSetCache() throws Exception {
    byte[] body = snappy(request(series("__name__", "up", "job", "a")
        .addSamples(sample(NOW_MS, 1))));
    handler.handle(CT, "snappy", body);
    Thread other = new Thread(() -> {
      try {
        handler.handle(CT, "snappy", body);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    other.start();
    other.join();
    assertThat(appender.appended).hasSize(2);
    // The other thread's decoder found the label set this thread's decoder built.
    assertThat(appender.appended.get(1).labels()).isSameAs(appender.appended.get(0).labels());
  }

  @Test
  void validRequestIsAppendedAndOk() throws Exception {
    WriteOutcome o = handler.handle(CT, "snappy", snappy(request(
        series("__name__", "up", "job", "a").addSamples(sample(NOW_MS, 1)),
        series("job", "b", "__name__", "up").addSamples(sample(NOW_MS, 0))
            .addSamples(sample(NOW_MS - 15_000, 1)))));
    assertThat(o.ok()).isTrue();
    assertThat(o.errorMessage()).isNull();
    assertThat(o.samplesAppended()).isEqualTo(3);
    assertThat(o.seriesCreated()).isEqualTo(2);
    assertThat(o.rejectedByReason()).isEmpty();
    assertThat(appender.appended).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "up", "job", "a"), LabelSet.of("__name__", "up", "job", "b"));
  }

  @Test
  void goodSeriesIsStoredWhileTheBadOneMakesTheRequestFail() throws Exception {
    WriteOutcome o = handler.handle(CT, "snappy", snappy(request(
        series("__name__", "good").addSamples(sample(NOW_MS, 1)),
        series("__name__", "bad", "zone", "a", "zone", "b").addSamples(sample(NOW_MS, 1))
            .addSamples(sample(NOW_MS - 1, 1)),
        series("__name__", "old").addSamples(sample(0, 1)),
        series("job", "nameless").addSamples(sample(NOW_MS, 1)))));
    assertThat(o.ok()).isFalse();
    assertThat(o.errorMessage())
        .startsWith("series {__name__=\"bad\", zone=\"a\", zone=\"b\"}: duplicate label name \"zone\"")
        .endsWith("; also refused: 2 more series"
            + " (counts by reason: inferlens_samples_rejected_total)");
    assertThat(o.rejectedByReason()).isEqualTo(Map.of(
        "duplicate_label_name", 2L, "too_old", 1L, "missing_metric_name", 1L));
    assertThat(o.samplesRejected()).isEqualTo(4);
    assertThat(o.samplesAppended()).isEqualTo(1);
    assertThat(appender.appended).extracting(SeriesWrite::labels)
        .containsExactly(LabelSet.of("__name__", "good"));
  }

  @Test
  void storeConflictsAreCountedAndFailTheRequest() throws Exception {
    appender.conflicts = 2;
    WriteOutcome o = handler.handle(null, null, snappy(request(
        series("__name__", "m").addSamples(sample(NOW_MS, 1)).addSamples(sample(NOW_MS - 1, 1))
            .addSamples(sample(NOW_MS - 2, 1)))));
    assertThat(o.ok()).isFalse();
    assertThat(o.rejectedByReason()).isEqualTo(Map.of("conflict", 2L));
    assertThat(o.errorMessage()).contains("{__name__=\"m\"}").contains("already stored")
        .endsWith("; also refused: 1 more sample conflicting with a stored sample"
            + " (counts by reason: inferlens_samples_rejected_total)");
    assertThat(o.samplesAppended()).isEqualTo(1);
  }

  static Stream<Arguments> noOps() {
    return Stream.of(
        Arguments.of("single byte 0x00", new byte[] {0}),
        Arguments.of("metadata only", snappy(WriteRequest.newBuilder()
            .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("up")).build())),
        Arguments.of("series without samples", snappy(request(series("__name__", "m")))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void noOps(String name, byte[] body) throws Exception {
    WriteOutcome o = handler.handle(CT, "snappy", body);
    assertThat(o.ok()).isTrue();
    assertThat(o.samplesAppended()).isZero();
    assertThat(appender.calls).as("no append call for nothing to store").isZero();
  }

  @Test
  void metadataGoesToTheStoreAfterTheSamples() throws Exception {
    WriteOutcome o = handler.handle(CT, "snappy", snappy(request(
        series("__name__", "up").addSamples(sample(NOW_MS, 1))).toBuilder()
        .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("up")
            .setType(Types.MetricMetadata.MetricType.GAUGE).setHelp("Up."))
        .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("http_requests_total")
            .setType(Types.MetricMetadata.MetricType.COUNTER).setUnit("requests"))
        .build()));
    assertThat(o.ok()).as(o.errorMessage()).isTrue();
    assertThat(o.metadataCount()).isEqualTo(2);
    assertThat(o.metadataRejected()).isZero();
    assertThat(o.metadataFamiliesChanged()).isEqualTo(2);
    assertThat(appender.calls).isEqualTo(1);
    assertThat(appender.metadata).containsExactly(
        new MetricMetadata("up", MetricType.GAUGE, "Up.", ""),
        new MetricMetadata("http_requests_total", MetricType.COUNTER, "", "requests"));
  }

  @Test
  void aRefusedMetadataEntryFailsTheRequestWhileTheRestIsStored() throws Exception {
    WriteOutcome o = handler.handle(CT, "snappy", snappy(WriteRequest.newBuilder()
        .addMetadata(Types.MetricMetadata.newBuilder().setHelp("No name."))
        .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("up"))
        .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("long")
            .setHelp("x".repeat(MetricMetadata.MAX_HELP_BYTES + 1)))
        .build()));
    assertThat(o.ok()).isFalse();
    assertThat(o.errorMessage()).isEqualTo("metadata entry 1 of the request (type unknown, help"
        + " \"No name.\"): metric_family_name is empty; also refused: 1 more metadata entry"
        + " (count: inferlens_metadata_rejected_total)");
    assertThat(o.metadataRejected()).isEqualTo(2);
    assertThat(o.samplesRejected()).isZero();
    assertThat(appender.metadata).extracting(MetricMetadata::metricFamilyName)
        .containsExactly("up");
  }

  @Test
  void aRefusedSeriesComesFirstAndRefusedMetadataIsListedAfterIt() throws Exception {
    WriteOutcome o = handler.handle(CT, "snappy", snappy(request(
        series("job", "nameless").addSamples(sample(NOW_MS, 1))).toBuilder()
        .addMetadata(Types.MetricMetadata.newBuilder().setHelp("No name."))
        .build()));
    assertThat(o.ok()).isFalse();
    assertThat(o.errorMessage()).startsWith("series {job=\"nameless\"}")
        .endsWith("; also refused: 1 metadata entry (count: inferlens_metadata_rejected_total)");
    assertThat(appender.metadataCalls).as("nothing valid to store").isZero();
  }

  @Test
  void aStorageFailureOfMetadataPropagates() {
    appender.fail = true;
    StorageException e = catchThrowableOfType(StorageException.class, () -> handler.handle(CT,
        "snappy", snappy(WriteRequest.newBuilder()
            .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("up")).build())));
    assertThat(e).hasMessageContaining("injected");
    assertThat(appender.metadataCalls).isEqualTo(1);
  }

  static Stream<Arguments> refused() {
    byte[] raw = request(series("__name__", "m").addSamples(sample(NOW_MS, 1))).toByteArray();
    byte[] block = snappy(raw);
    return Stream.of(
        Arguments.of("zero-length body", CT, "snappy", new byte[0], Kind.BAD_REQUEST),
        Arguments.of("snappy framed", CT, "snappy", framed(raw), Kind.BAD_REQUEST),
        Arguments.of("raw protobuf with snappy encoding", CT, "snappy", raw, Kind.BAD_REQUEST),
        Arguments.of("truncated block", CT, "snappy",
            Arrays.copyOf(block, block.length / 2), Kind.BAD_REQUEST),
        Arguments.of("remote write 2.0",
            "application/x-protobuf;proto=io.prometheus.write.v2.Request", "snappy", block,
            Kind.UNSUPPORTED_MEDIA_TYPE),
        Arguments.of("gzip", CT, "gzip", block, Kind.UNSUPPORTED_MEDIA_TYPE),
        Arguments.of("4 GiB header", CT, "snappy",
            new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f},
            Kind.PAYLOAD_TOO_LARGE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refused(String name, String contentType, String encoding, byte[] body, Kind kind) {
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> handler.handle(contentType, encoding, body));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(kind);
    assertThat(appender.calls).isZero();
  }

  @Test
  void storageFailurePropagates() {
    appender.fail = true;
    StorageException e = catchThrowableOfType(StorageException.class, () -> handler.handle(CT,
        "snappy", snappy(request(series("__name__", "m").addSamples(sample(NOW_MS, 1))))));
    assertThat(e).hasMessageContaining("injected");
  }

  /**
   * A tenant's handler starts with a small label-set cache and grows it eight times over once
   * three quarters are filled, up to the default size; every series is stored, hits or misses,
   * and a series seen before the growth is the same label set after it.
   */
  @Test
  void aTenantsLabelSetCacheGrowsWithItsSeries() throws Exception {
    RemoteWriteHandler small = new RemoteWriteHandler(appender, LIMITS, 16);
    assertThat(small.labelCacheSlots()).isEqualTo(16);
    for (int round = 0; round < 3; round++) {
      List<io.inferlens.proto.prometheus.Types.TimeSeries.Builder> list = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        list.add(series("__name__", "m", "i", Integer.toString(i))
            .addSamples(sample(NOW_MS + round, i)));
      }
      WriteOutcome o = small.handle(CT, "snappy", snappy(request(
          list.toArray(io.inferlens.proto.prometheus.Types.TimeSeries.Builder[]::new))));
      assertThat(o.ok()).as(o.errorMessage()).isTrue();
      assertThat(o.samplesAppended()).isEqualTo(200);
    }
    assertThat(small.labelCacheSlots()).as("16 -> 128 -> 1024").isEqualTo(1024);
    // The same label set object for the same series across the growth (the index keeps it).
    LabelSet first = appender.appended.get(0).labels();
    assertThat(appender.appended.get(400).labels()).isEqualTo(first);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
        () -> new RemoteWriteHandler(appender, LIMITS, 1 << 18)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
