package io.inferlens.api;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.stream.StreamMessage;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.inferlens.proto.prometheus.Remote.ChunkedReadResponse;
import io.inferlens.proto.prometheus.Remote.Query;
import io.inferlens.proto.prometheus.Remote.QueryResult;
import io.inferlens.proto.prometheus.Remote.ReadRequest;
import io.inferlens.proto.prometheus.Remote.ReadResponse;
import io.inferlens.proto.prometheus.Types.Chunk;
import io.inferlens.proto.prometheus.Types.ChunkedSeries;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.LabelMatcher;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import io.inferlens.storage.chunk.XorChunk;
import io.inferlens.ingest.IngestException;
import io.inferlens.ingest.SnappyBlock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xerial.snappy.Snappy;

/**
 * {@code POST /api/v1/read}: Prometheus remote read (read-only reference: Prometheus
 * {@code storage/remote/read_handler.go} and {@code codec.go}; the "remote read" section of the
 * Prometheus storage docs).
 *
 * <p>Request: a snappy-block-compressed {@code prometheus.ReadRequest}; each query's
 * {@code start_timestamp_ms}/{@code end_timestamp_ms} (milliseconds, both inclusive) and matchers
 * ({@code EQ}, {@code NEQ}, {@code RE}, {@code NRE}, regexes fully anchored with RE2 semantics, as
 * PromQL) select series; read hints are ignored. The response type is the first type in
 * {@code accepted_response_types} that InferLens implements (the list is the client's order of
 * preference, as Prometheus negotiates it); an empty list means {@code SAMPLES}:
 *
 * <ul>
 *   <li>{@code SAMPLES}: one {@code ReadResponse} with one {@code QueryResult} per query, in
 *       request order, snappy block compressed; {@code Content-Type: application/x-protobuf},
 *       {@code Content-Encoding: snappy}.
 *   <li>{@code STREAMED_XOR_CHUNKS}: {@code Content-Type: application/x-streamed-protobuf;
 *       proto=prometheus.ChunkedReadResponse}, a sequence of frames
 *       {@code uvarint(len(msg)) ‖ CRC-32C(msg), 4 bytes big endian ‖ msg}, where msg is a
 *       marshalled, uncompressed {@code ChunkedReadResponse}. As Prometheus's own server does,
 *       each frame carries the chunks of exactly one series with its {@code query_index}; a
 *       series whose chunks pass {@value #MAX_FRAME_BYTES} bytes continues in the next frame
 *       (same labels). Chunks are {@link XorChunk}s of at most {@value XorChunk#MAX_SAMPLES}
 *       samples.
 * </ul>
 *
 * <p>Series are in Prometheus's label order; values keep their raw bits (stale markers are sent as
 * stored). Limits: a query selecting more than {@code maxReadSeries} series, or a response
 * (uncompressed ReadResponse, or the sum of frames) larger than {@code maxReadBytes}, answers 413
 * naming the limit and the numbers. A query's series are counted from the index before any of
 * its samples is read. The whole response is built before the first byte is sent, so a limit is
 * always a clean 413, never a truncated stream; the store's selection already holds every sample
 * in memory, and the encoded response is a fraction of that (XOR chunks take 1–2 bytes a sample
 * against 16 in the selection). Errors are plain
 * text: 400 for a body that is not a snappy {@code ReadRequest}, an invalid matcher or regex, or
 * start after end; 413 for the limits; 405 for other methods; 503 only when the store fails.
 * Decoding and reading run on the blocking task executor.
 */
public final class RemoteReadService implements HttpService {

  /** Content type of {@code SAMPLES} responses (and of requests). */
  public static final String SAMPLES_CONTENT_TYPE = "application/x-protobuf";
  /** Content type of {@code STREAMED_XOR_CHUNKS} responses, as Prometheus writes it. */
  public static final String STREAMED_CONTENT_TYPE =
      "application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse";
  /**
   * Frame budget: a frame is sent once its chunks reach 1 MiB, Prometheus's default
   * {@code --storage.remote.read-max-bytes-in-frame}; clients size their buffers for it.
   */
  public static final int MAX_FRAME_BYTES = 1 << 20;

  private static final Logger log = LoggerFactory.getLogger(RemoteReadService.class);

  private final Querier store;
  private final long maxRequestBytes;
  private final long maxReadSeries;
  private final long maxReadBytes;
  private final SelfMetrics metrics;

  /**
   * @param store the store to read
   * @param maxRequestBytes cap on the request body, compressed and decoded, in bytes
   * @param maxReadSeries most series one query may select
   * @param maxReadBytes largest response, in bytes (uncompressed ReadResponse, or sum of frames)
   * @param metrics where requests are counted by response type and status
   */
  public RemoteReadService(Querier store, long maxRequestBytes, long maxReadSeries,
      long maxReadBytes, SelfMetrics metrics) {
    this.store = store;
    this.maxRequestBytes = maxRequestBytes;
    this.maxReadSeries = maxReadSeries;
    this.maxReadBytes = maxReadBytes;
    this.metrics = metrics;
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    if (req.method() != HttpMethod.POST) {
      HttpStatus status = ErrorMapping.status(ErrorMapping.Kind.METHOD_NOT_ALLOWED);
      metrics.readRequest("none", status.code());
      return text(status, "remote read takes POST, not " + req.method());
    }
    long declared = req.headers().contentLength();
    long cap = ctx.maxRequestLength();
    if (cap > 0 && declared > cap) {
      HttpStatus status = ErrorMapping.status(ErrorMapping.Kind.TOO_LARGE);
      metrics.readRequest("none", status.code());
      return text(status,
          "body of " + declared + " bytes exceeds --max-request-bytes " + cap);
    }
    return HttpResponse.of(req.aggregate().thenApplyAsync(this::handle, ctx.blockingTaskExecutor()));
  }

  private HttpResponse handle(AggregatedHttpRequest req) {
    String type = "none";
    HttpStatus status = HttpStatus.OK;
    try {
      ReadRequest read = decode(req.content().array());
      boolean streamed = negotiate(read);
      type = streamed ? "streamed_xor_chunks" : "samples";
      return respond(read, streamed);
    } catch (RemoteReadException e) {
      status = ErrorMapping.status(e.kind());
      return text(status, e.getMessage());
    } catch (StorageException e) {
      log.error("remote read failed in the store", e);
      status = ErrorMapping.status(ErrorMapping.Kind.UNAVAILABLE);
      return text(status, "storage failure: " + e.getMessage());
    } catch (RuntimeException e) {
      // A bug, not bad input.
      log.error("unexpected error while answering remote read", e);
      status = ErrorMapping.status(ErrorMapping.Kind.INTERNAL);
      return text(status, "internal error: " + e);
    } finally {
      metrics.readRequest(type, status.code());
    }
  }

  /**
   * Snappy block, then protobuf; the compressed size and the declared decoded length are checked
   * against {@code --max-request-bytes} before anything is allocated (ingest's
   * {@link SnappyBlock}, shared with remote write).
   */
  private ReadRequest decode(byte[] body) throws RemoteReadException {
    if (body.length == 0) {
      throw bad("empty body: remote read expects a snappy-compressed prometheus.ReadRequest");
    }
    byte[] raw;
    try {
      int declared = SnappyBlock.checkDeclaredLength(body, maxRequestBytes);
      raw = new byte[declared];
      SnappyBlock.uncompress(body, declared, raw);
    } catch (IngestException e) {
      if (e.kind() == IngestException.Kind.PAYLOAD_TOO_LARGE) {
        throw new RemoteReadException(RemoteReadException.Kind.TOO_LARGE,
            e.getMessage() + " (--max-request-bytes)");
      }
      throw bad(e.getMessage());
    }
    try {
      return ReadRequest.parseFrom(raw);
    } catch (InvalidProtocolBufferException e) {
      throw bad("body is not a prometheus.ReadRequest: " + e.getMessage());
    }
  }

  private static boolean negotiate(ReadRequest read) throws RemoteReadException {
    if (read.getAcceptedResponseTypesCount() == 0) {
      return false;
    }
    for (ReadRequest.ResponseType t : read.getAcceptedResponseTypesList()) {
      if (t == ReadRequest.ResponseType.SAMPLES) {
        return false;
      }
      if (t == ReadRequest.ResponseType.STREAMED_XOR_CHUNKS) {
        return true;
      }
    }
    throw bad("none of the accepted response types " + read.getAcceptedResponseTypesValueList()
        + " is implemented; InferLens answers SAMPLES (0) and STREAMED_XOR_CHUNKS (1)");
  }

  private HttpResponse respond(ReadRequest read, boolean streamed)
      throws RemoteReadException, StorageException {
    List<List<Matcher>> matchers = new ArrayList<>(read.getQueriesCount());
    for (int i = 0; i < read.getQueriesCount(); i++) {
      matchers.add(validate(i, read.getQueries(i)));
    }
    return streamed ? streamedChunks(read, matchers) : samples(read, matchers);
  }

  /** Checks one query before any is run; returns its matchers. */
  private static List<Matcher> validate(int index, Query q) throws RemoteReadException {
    if (q.getStartTimestampMs() > q.getEndTimestampMs()) {
      throw bad("query " + index + ": start_timestamp_ms " + q.getStartTimestampMs()
          + " is after end_timestamp_ms " + q.getEndTimestampMs());
    }
    if (q.getMatchersCount() == 0) {
      // As PromQL, and as a query whose matchers all match the empty string: no implicit "all".
      throw bad("query " + index + ": has no matchers; at least one must not match the empty"
          + " string (e.g. __name__=~\".+\" for every series)");
    }
    List<Matcher> out = new ArrayList<>(q.getMatchersCount());
    for (LabelMatcher m : q.getMatchersList()) {
      Matcher.Type type;
      switch (m.getType()) {
        case EQ: type = Matcher.Type.EQ; break;
        case NEQ: type = Matcher.Type.NEQ; break;
        case RE: type = Matcher.Type.RE; break;
        case NRE: type = Matcher.Type.NRE; break;
        default:
          throw bad("query " + index + ": unknown matcher type " + m.getTypeValue()
              + " for label \"" + m.getName() + "\"");
      }
      try {
        out.add(new Matcher(type, m.getName(), m.getValue()));
      } catch (IllegalArgumentException e) {
        throw bad("query " + index + ": " + e.getMessage());
      }
    }
    return out;
  }

  /**
   * Counts the query's series from the index first (no samples read), so a query over the limit
   * is refused without loading its samples; then reads them.
   */
  private List<Series> select(int index, Query q, List<Matcher> matchers)
      throws RemoteReadException, StorageException {
    try {
      int count = store.series(matchers, q.getStartTimestampMs(), q.getEndTimestampMs()).size();
      if (count > maxReadSeries) {
        throw new RemoteReadException(RemoteReadException.Kind.TOO_LARGE, "query " + index + " "
            + matchers + " selects " + count + " series in [" + q.getStartTimestampMs() + ", "
            + q.getEndTimestampMs() + "] ms, over --max-read-series " + maxReadSeries
            + "; narrow the matchers or the time range");
      }
      List<Series> series =
          store.select(matchers, q.getStartTimestampMs(), q.getEndTimestampMs());
      if (series.size() > maxReadSeries) {
        // samples arrived between the two reads: still refuse rather than exceed the limit
        throw new RemoteReadException(RemoteReadException.Kind.TOO_LARGE, "query " + index + " "
            + matchers + " selects " + series.size() + " series, over --max-read-series "
            + maxReadSeries);
      }
      return series;
    } catch (IllegalArgumentException e) {
      throw bad("query " + index + ": " + e.getMessage());
    }
  }

  private HttpResponse samples(ReadRequest read, List<List<Matcher>> matchers)
      throws RemoteReadException, StorageException {
    ReadResponse.Builder response = ReadResponse.newBuilder();
    long bytes = 0;
    for (int i = 0; i < read.getQueriesCount(); i++) {
      List<Series> selected = select(i, read.getQueries(i), matchers.get(i));
      QueryResult.Builder result = QueryResult.newBuilder();
      for (Series s : selected) {
        TimeSeries.Builder ts = TimeSeries.newBuilder().addAllLabels(labels(s.labels()));
        for (int j = 0; j < s.size(); j++) {
          // protobuf writes doubles with doubleToRawLongBits: NaN payloads go out as stored
          ts.addSamples(Sample.newBuilder().setTimestamp(s.timestampsMs()[j]).setValue(s.value(j)));
        }
        TimeSeries built = ts.build();
        bytes += CodedOutputStream.computeMessageSize(1, built);
        checkBytes(bytes, i);
        result.addTimeseries(built);
      }
      response.addResults(result);
    }
    ReadResponse built = response.build();
    checkBytes(built.getSerializedSize(), read.getQueriesCount() - 1);
    byte[] compressed;
    try {
      compressed = Snappy.compress(built.toByteArray());
    } catch (IOException e) {
      throw new IllegalStateException("snappy compression failed", e);
    }
    ResponseHeaders headers = ResponseHeaders.builder(HttpStatus.OK)
        .add(HttpHeaderNames.CONTENT_TYPE, SAMPLES_CONTENT_TYPE)
        .add(HttpHeaderNames.CONTENT_ENCODING, "snappy").build();
    return HttpResponse.of(headers, HttpData.wrap(compressed));
  }

  private HttpResponse streamedChunks(ReadRequest read, List<List<Matcher>> matchers)
      throws RemoteReadException, StorageException {
    List<HttpData> frames = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < read.getQueriesCount(); i++) {
      List<Series> selected = select(i, read.getQueries(i), matchers.get(i));
      for (Series s : selected) {
        List<Label> labels = labels(s.labels());
        int labelBytes = 0;
        for (Label l : labels) {
          labelBytes += CodedOutputStream.computeMessageSize(1, l);
        }
        List<Chunk> chunks = new ArrayList<>();
        int frameBytes = labelBytes;
        for (int from = 0; from < s.size(); from += XorChunk.MAX_SAMPLES) {
          int count = Math.min(XorChunk.MAX_SAMPLES, s.size() - from);
          Chunk chunk = Chunk.newBuilder()
              .setMinTimeMs(s.timestampsMs()[from])
              .setMaxTimeMs(s.timestampsMs()[from + count - 1])
              .setType(Chunk.Encoding.XOR)
              // the encoder returned a fresh array nobody else holds: wrap, do not copy
              .setData(com.google.protobuf.UnsafeByteOperations.unsafeWrap(
                  XorChunk.encode(s.timestampsMs(), s.valueBits(), from, count)))
              .build();
          chunks.add(chunk);
          frameBytes += CodedOutputStream.computeMessageSize(2, chunk);
          boolean last = from + count >= s.size();
          if (frameBytes >= MAX_FRAME_BYTES || last) {
            byte[] frame = frame(ChunkedReadResponse.newBuilder().setQueryIndex(i)
                .addChunkedSeries(ChunkedSeries.newBuilder().addAllLabels(labels)
                    .addAllChunks(chunks)).build());
            bytes += frame.length;
            checkBytes(bytes, i);
            frames.add(HttpData.wrap(frame));
            chunks = new ArrayList<>();
            frameBytes = labelBytes;
          }
        }
      }
    }
    ResponseHeaders headers = ResponseHeaders.builder(HttpStatus.OK)
        .add(HttpHeaderNames.CONTENT_TYPE, STREAMED_CONTENT_TYPE).build();
    return HttpResponse.of(headers, StreamMessage.of(frames.toArray(new HttpData[0])));
  }

  /**
   * One frame: {@code uvarint(len(msg)) ‖ CRC-32C(msg), 4 bytes big endian ‖ msg}, Prometheus's
   * {@code ChunkedWriter}.
   */
  static byte[] frame(ChunkedReadResponse message) {
    byte[] msg = message.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(msg);
    int sum = (int) crc.getValue();
    byte[] out = new byte[10 + 4 + msg.length];
    int p = 0;
    long len = msg.length;
    while (len >= 0x80) {
      out[p++] = (byte) ((len & 0x7f) | 0x80);
      len >>>= 7;
    }
    out[p++] = (byte) len;
    out[p++] = (byte) (sum >>> 24);
    out[p++] = (byte) (sum >>> 16);
    out[p++] = (byte) (sum >>> 8);
    out[p++] = (byte) sum;
    System.arraycopy(msg, 0, out, p, msg.length);
    return java.util.Arrays.copyOf(out, p + msg.length);
  }

  private void checkBytes(long bytes, int queryIndex) throws RemoteReadException {
    if (bytes > maxReadBytes) {
      throw new RemoteReadException(RemoteReadException.Kind.TOO_LARGE, "remote-read response "
          + "reached " + bytes + " bytes at query " + queryIndex + ", over --max-read-bytes "
          + maxReadBytes + "; narrow the matchers or the time range, or split the query");
    }
  }

  private static List<Label> labels(LabelSet set) {
    List<Label> out = new ArrayList<>(set.size());
    for (int i = 0; i < set.size(); i++) {
      out.add(Label.newBuilder().setName(set.name(i)).setValue(set.value(i)).build());
    }
    return out;
  }

  private static RemoteReadException bad(String message) {
    return new RemoteReadException(RemoteReadException.Kind.BAD_REQUEST, message);
  }

  private static HttpResponse text(HttpStatus status, String message) {
    return HttpResponse.of(status, MediaType.PLAIN_TEXT_UTF_8, message + "\n");
  }
}
