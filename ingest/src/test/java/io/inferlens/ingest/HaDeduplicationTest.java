package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.NOW_MS;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.ingest.RemoteWriteHandlerTest.RecordingAppender;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * HA deduplication in {@link RemoteWriteHandler}: which requests are decided, what is stored of
 * an accepted one, what a dropped one answers, on an injectable clock.
 */
class HaDeduplicationTest {

  private static final String CT = "application/x-protobuf;proto=prometheus.WriteRequest";
  private static final long TIMEOUT = 3_000L;

  private final MutableClock clock = new MutableClock(NOW_MS);
  private final RecordingAppender appender = new RecordingAppender();
  private final RemoteWriteHandler handler = new RemoteWriteHandler(appender,
      Requests.LIMITS.withClock(clock)
          .withHa(new HaConfig("cluster", "__replica__", TIMEOUT, 2)));

  private static Types.TimeSeries.Builder up(long ts, String... labels) {
    String[] all = new String[labels.length + 2];
    all[0] = "__name__";
    all[1] = "up";
    System.arraycopy(labels, 0, all, 2, labels.length);
    return series(all).addSamples(sample(ts, 1));
  }

  private WriteOutcome send(WriteRequest request) throws Exception {
    return handler.handle(CT, "snappy", snappy(request));
  }

  private WriteOutcome sendReplica(String cluster, String replica, long ts) throws Exception {
    return send(request(up(ts, "cluster", cluster, "__replica__", replica, "job", "x"),
        up(ts, "cluster", cluster, "__replica__", replica, "job", "y")));
  }

  @Test
  void electedReplicaIsStoredWithoutTheReplicaLabelAndTheOtherIsDropped() throws Exception {
    WriteOutcome a = sendReplica("c1", "a", NOW_MS);
    assertThat(a.ok()).isTrue();
    assertThat(a.deduplicated()).isNull();
    assertThat(a.samplesAppended()).isEqualTo(2);
    assertThat(appender.appended).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "up", "cluster", "c1", "job", "x"),
        LabelSet.of("__name__", "up", "cluster", "c1", "job", "y"));

    clock.advance(TIMEOUT - 1);
    WriteRequest fromB = WriteRequest.newBuilder(request(
            up(NOW_MS, "cluster", "c1", "__replica__", "b", "job", "x"),
            up(NOW_MS, "cluster", "c1", "__replica__", "b", "job", "y")
                .addSamples(sample(NOW_MS + 1, 2))))
        .addMetadata(Types.MetricMetadata.newBuilder().setMetricFamilyName("up")).build();
    WriteOutcome b = send(fromB);
    assertThat(b.ok()).isTrue();
    assertThat(b.deduplicated())
        .isEqualTo(new WriteOutcome.Deduplicated("c1", "b", "a", 3));
    assertThat(b.samplesAppended()).isZero();
    assertThat(appender.appended).hasSize(2);
    assertThat(appender.metadataCalls).as("a dropped request's metadata is dropped too").isZero();
    assertThat(handler.haElections())
        .containsExactly(new HaTracker.Election("c1", "a", NOW_MS, 0));
  }

  @Test
  void theReplicaLabelOfAnHaRequestDoesNotCountTowardTheLabelLimit() throws Exception {
    RemoteWriteHandler limited = new RemoteWriteHandler(appender, Requests.LIMITS.withClock(clock)
        .withLabels(new LabelLimits(4, 1024, 2048, 2048, false))
        .withHa(new HaConfig("cluster", "__replica__", TIMEOUT, 2)));
    // __name__, cluster, job, zone + __replica__: 5 sent, 4 stored, within the limit of 4.
    WriteOutcome ha = limited.handle(CT, "snappy", snappy(request(
        up(NOW_MS, "cluster", "c1", "__replica__", "a", "job", "x", "zone", "z1"))));
    assertThat(ha.ok()).isTrue();
    assertThat(appender.appended).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "up", "cluster", "c1", "job", "x", "zone", "z1"));
    // Without the cluster label the tracker does not decide: stored as sent, so all 5 count.
    WriteOutcome plain = limited.handle(CT, "snappy", snappy(request(
        up(NOW_MS, "__replica__", "a", "job", "x", "zone", "z1", "rack", "r1"))));
    assertThat(plain.ok()).isFalse();
    assertThat(plain.errorMessage()).contains("5 labels, more than "
        + "--limits.max-label-names-per-series 4");
  }

  @Test
  void failoverExactlyAtTheTimeoutAfterTheLastAcceptedWrite() throws Exception {
    sendReplica("c1", "a", NOW_MS);
    clock.advance(TIMEOUT - 1);
    assertThat(sendReplica("c1", "b", NOW_MS).deduplicated()).isNotNull();
    clock.advance(1);
    WriteOutcome b = sendReplica("c1", "b", NOW_MS + 1);
    assertThat(b.deduplicated()).isNull();
    assertThat(b.samplesAppended()).isEqualTo(2);
    assertThat(sendReplica("c1", "a", NOW_MS + 2).deduplicated().elected()).isEqualTo("b");
    assertThat(handler.haElections())
        .containsExactly(new HaTracker.Election("c1", "b", NOW_MS + TIMEOUT, 1));
  }

  @Test
  void seriesWithoutBothLabelsAreStoredAsTheyCame() throws Exception {
    // No HA labels at all.
    assertThat(send(request(up(NOW_MS, "job", "x"))).ok()).isTrue();
    // The replica label without the cluster label: kept, not decided.
    send(request(up(NOW_MS, "__replica__", "a", "job", "x")));
    // The cluster label without the replica label (Mimir's checkSample: either empty → accept).
    send(request(up(NOW_MS, "cluster", "c1", "job", "x")));
    // An empty value is an absent label.
    send(request(up(NOW_MS, "cluster", "c1", "__replica__", "", "job", "z")));
    assertThat(appender.appended).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "up", "job", "x"),
        LabelSet.of("__name__", "up", "__replica__", "a", "job", "x"),
        LabelSet.of("__name__", "up", "cluster", "c1", "job", "x"),
        LabelSet.of("__name__", "up", "cluster", "c1", "job", "z"));
    assertThat(handler.haElections()).isEmpty();
    // So the first replica to send both labels is still the first writer.
    assertThat(sendReplica("c1", "b", NOW_MS).deduplicated()).isNull();
    assertThat(handler.haElections()).extracting(HaTracker.Election::replica).containsExactly("b");
  }

  @Test
  void theFirstSeriesDecidesTheWholeRequest() throws Exception {
    sendReplica("c1", "a", NOW_MS);
    appender.appended.clear();
    // First series without labels: the whole request is stored as is, b's series included.
    send(request(up(NOW_MS, "job", "plain"), up(NOW_MS, "cluster", "c1", "__replica__", "b")));
    assertThat(appender.appended).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "up", "job", "plain"),
        LabelSet.of("__name__", "up", "cluster", "c1", "__replica__", "b"));
    appender.appended.clear();
    // First series of a: accepted, and the replica label goes from every series that has it.
    send(request(up(NOW_MS, "cluster", "c1", "__replica__", "a"),
        up(NOW_MS, "job", "other", "__replica__", "z")));
    assertThat(appender.appended).extracting(SeriesWrite::labels).containsExactly(
        LabelSet.of("__name__", "up", "cluster", "c1"),
        LabelSet.of("__name__", "up", "job", "other"));
  }

  @Test
  void aRepeatedSeriesGetsTheSameLabelSetWithoutTheReplica() throws Exception {
    sendReplica("c1", "a", NOW_MS);
    sendReplica("c1", "a", NOW_MS + 1); // label sets from the decoder's cache this time
    assertThat(appender.appended).hasSize(4);
    assertThat(appender.appended.get(2).labels()).isSameAs(appender.appended.get(0).labels());
    assertThat(appender.appended.get(3).labels()).isSameAs(appender.appended.get(1).labels());
    assertThat(appender.appended.get(2).labels().get("__replica__")).isEmpty();
  }

  @Test
  void aReplicaValueOverTheLabelValueLimitIsNotDecided() throws Exception {
    String longReplica = "r".repeat(LabelLimits.defaults().maxLabelValueLength() + 1);
    WriteOutcome o = send(request(up(NOW_MS, "cluster", "c1", "__replica__", longReplica)));
    assertThat(o.ok()).isFalse();
    assertThat(o.rejectedByReason()).containsEntry(RejectReason.LABEL_VALUE_TOO_LONG.key(), 1L);
    assertThat(handler.haElections()).isEmpty();
  }

  @Test
  void clustersBeyondTheLimitAreRefusedWhole() throws Exception {
    sendReplica("c1", "a", NOW_MS);
    sendReplica("c2", "a", NOW_MS);
    appender.appended.clear();
    WriteOutcome o = sendReplica("c3", "a", NOW_MS);
    assertThat(o.ok()).isFalse();
    assertThat(o.errorMessage()).isEqualTo("HA cluster \"c3\" (label cluster) refused: 2 clusters"
        + " are tracked already, the limit of --ha.max-clusters; nothing of the request stored"
        + " (2 samples)");
    assertThat(o.rejectedByReason())
        .isEqualTo(Map.of(RejectReason.TOO_MANY_HA_CLUSTERS.key(), 2L));
    assertThat(appender.appended).isEmpty();
  }

  @Test
  void droppedRequestsTakeNothingFromTheIngestionRateLimit() throws Exception {
    RemoteWriteHandler limited = new RemoteWriteHandler(appender, Requests.LIMITS.withClock(clock)
        .withRate(new IngestionRate(0.001, 2)).withHa(HaConfig.of("cluster", "__replica__")));
    WriteRequest a = request(up(NOW_MS, "cluster", "c1", "__replica__", "a"),
        up(NOW_MS, "cluster", "c1", "__replica__", "a", "job", "y"));
    assertThat(limited.handle(CT, "snappy", snappy(a)).samplesAppended()).isEqualTo(2);
    for (int i = 0; i < 5; i++) {
      WriteRequest b = request(up(NOW_MS, "cluster", "c1", "__replica__", "b"));
      assertThat(limited.handle(CT, "snappy", snappy(b)).deduplicated()).isNotNull();
    }
    assertThat(appender.appended).hasSize(2);
  }

  @Test
  void offByDefault() throws Exception {
    RemoteWriteHandler plain = new RemoteWriteHandler(appender, Requests.LIMITS);
    plain.handle(CT, "snappy", snappy(request(up(NOW_MS, "cluster", "c1", "__replica__", "a"))));
    plain.handle(CT, "snappy", snappy(request(up(NOW_MS, "cluster", "c1", "__replica__", "b"))));
    assertThat(appender.appended).extracting(s -> s.labels().get("__replica__"))
        .containsExactly("a", "b");
    assertThat(plain.haElections()).isEmpty();
  }
}
