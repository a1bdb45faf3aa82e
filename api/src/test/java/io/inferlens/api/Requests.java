package io.inferlens.api;

import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.MetricMetadata;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.xerial.snappy.Snappy;

/** Builds remote-write bodies with the generated protobuf classes and posts them. */
final class Requests {

  static final String RW1_CONTENT_TYPE = "application/x-protobuf";
  static final String RW2_CONTENT_TYPE =
      "application/x-protobuf;proto=io.prometheus.write.v2.Request";

  private static final HttpClient HTTP = HttpClient.newBuilder()
      // HTTP/1.1 as Prometheus speaks it: the JDK client's default h2c upgrade once failed
      // with "EOF reached while reading" against Armeria in CI (SimulatorServerTest).
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private Requests() {}

  /** A series from alternating label names/values, in the order given, and (ts, value) pairs. */
  static TimeSeries series(String[] labels, long[] timestampsMs, double[] values) {
    TimeSeries.Builder b = TimeSeries.newBuilder();
    for (int i = 0; i < labels.length; i += 2) {
      b.addLabels(Label.newBuilder().setName(labels[i]).setValue(labels[i + 1]));
    }
    for (int i = 0; i < timestampsMs.length; i++) {
      b.addSamples(Sample.newBuilder().setTimestamp(timestampsMs[i]).setValue(values[i]));
    }
    return b.build();
  }

  static TimeSeries series(String[] labels, long timestampMs, double value) {
    return series(labels, new long[] {timestampMs}, new double[] {value});
  }

  static WriteRequest request(TimeSeries... series) {
    WriteRequest.Builder b = WriteRequest.newBuilder();
    for (TimeSeries s : series) {
      b.addTimeseries(s);
    }
    return b.build();
  }

  static WriteRequest metadataOnly() {
    return WriteRequest.newBuilder().addMetadata(MetricMetadata.newBuilder()
        .setType(MetricMetadata.MetricType.COUNTER).setMetricFamilyName("http_requests_total")
        .setHelp("Requests.")).build();
  }

  static byte[] snappy(WriteRequest r) {
    try {
      return Snappy.compress(r.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * POSTs a body with the given headers (null = header absent), plus {@code extra} headers as
   * alternating names and values (e.g. {@code "X-Scope-OrgID", "team-a"}).
   */
  static HttpResponse<String> post(URI uri, byte[] body, String contentType, String encoding,
      String... extra) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < extra.length; i += 2) {
      b.header(extra[i], extra[i + 1]);
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    if (encoding != null) {
      b.header("Content-Encoding", encoding);
    }
    b.header("X-Prometheus-Remote-Write-Version", "0.1.0");
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Remote-writes {@code r}, with {@code extra} headers as alternating names and values. */
  static HttpResponse<String> write(URI base, WriteRequest r, String... extra) {
    return post(base.resolve("/api/v1/write"), snappy(r), RW1_CONTENT_TYPE, "snappy", extra);
  }

  /** GETs {@code uri}, with {@code extra} headers as alternating names and values. */
  static HttpResponse<String> get(URI uri, String... extra) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET();
    for (int i = 0; i < extra.length; i += 2) {
      b.header(extra[i], extra[i + 1]);
    }
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String enc(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }
}
