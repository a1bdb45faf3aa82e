package io.inferlens.ingest;

import static io.inferlens.ingest.SeriesText.count;
import static io.inferlens.ingest.SeriesText.instant;
import static io.inferlens.ingest.SeriesText.quoted;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.inferlens.ingest.IngestException.Kind;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.MetricMetadata;
import io.inferlens.storage.SeriesWrite;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes and validates a remote write 1.0 {@code prometheus.WriteRequest} straight from the
 * wire format, without the generated protobuf classes (which stay in tests and cold paths).
 *
 * <p>Source: Prometheus remote write 1.0 specification
 * (https://prometheus.io/docs/specs/remote_write_spec/) and proto/src/main/proto/inferlens/*.proto.
 * The schema this decoder reads (field number, wire type; unknown fields are skipped, as
 * protobuf requires):
 *
 * <pre>
 * message WriteRequest {
 *   repeated TimeSeries     timeseries = 1;  // LEN (tag 0x0a)
 *   reserved 2;                              // skipped
 *   repeated MetricMetadata metadata   = 3;  // LEN (tag 0x1a)
 * }
 * message MetricMetadata {
 *   MetricType type               = 1;       // VARINT (0x08), enum 0..7, see below
 *   string     metric_family_name = 2;       // LEN (0x12), UTF-8
 *   reserved 3;                              // unused upstream, skipped
 *   string     help               = 4;       // LEN (0x22), UTF-8
 *   string     unit               = 5;       // LEN (0x2a), UTF-8
 * }
 * message TimeSeries {
 *   repeated Label     labels     = 1;       // LEN (0x0a)
 *   repeated Sample    samples    = 2;       // LEN (0x12)
 *   repeated Exemplar  exemplars  = 3;       // LEN (0x1a), skipped: not stored yet
 *   repeated Histogram histograms = 4;       // LEN (0x22), counted: the series is rejected
 * }
 * message Label  { string name = 1;          // LEN (0x0a), UTF-8
 *                  string value = 2; }       // LEN (0x12), UTF-8
 * message Sample { double value = 1;         // I64 (0x09), kept as raw bits
 *                  int64 timestamp = 2; }    // VARINT (0x10), ms since the Unix epoch
 * </pre>
 *
 * Absent fields take the proto3 defaults (empty string, 0.0, timestamp 0); a field repeated
 * inside Label or Sample takes the last value, as protobuf specifies.
 *
 * <p>Validation per series (the series is rejected whole, with the reason of its first problem,
 * in this order): a label string that is not UTF-8; more labels than
 * {@link LabelLimits#maxLabelNamesPerSeries()} (counted as sent, {@code __name__} and labels with
 * empty values included); then label by label, an empty name, a name longer than
 * {@link LabelLimits#maxLabelNameLength()} bytes, a name outside {@code [a-zA-Z_][a-zA-Z0-9_]*}
 * (unless {@link LabelLimits#allowUtf8Names()}), a value (other than the metric name) longer than
 * {@link LabelLimits#maxLabelValueLength()} bytes; a duplicate label name; no non-empty
 * {@code __name__}; a metric name longer than {@link LabelLimits#maxMetricNameLength()} bytes or
 * outside {@code [a-zA-Z_:][a-zA-Z0-9_:]*} (unless UTF-8 names are allowed). Lengths are bytes of
 * UTF-8, as Mimir counts them. Each message names the series (its labels as sent, each name and
 * value cut at {@value SeriesText#MAX_STRING_TEXT_CHARS} characters), the rule or the flag with its value,
 * and the samples refused. Native histogram samples
 * are refused (not supported yet) while the series' float samples go on.
 * Per sample: a timestamp before now minus {@link IngestLimits#retentionMs()} or after now plus
 * {@link IngestLimits#maxFutureMs()} ("now" is read once per request from {@link
 * IngestLimits#clock()}) refuses that sample only; the series' other samples stay valid, and the
 * series counts as one with refused samples. Labels with empty values are dropped and the rest
 * sorted by UTF-8 bytes ({@link LabelSet#of(List, List)}). Sample values keep their raw IEEE-754
 * bits, so the stale marker {@code 0x7ff0000000000002} and {@code -0.0} survive. A series without
 * samples and histograms is a no-op: nothing to store, nothing validated.
 *
 * <p>Metric metadata (field numbers from Prometheus prompb/types.proto at v2.42.0): the enum's
 * numbers are UNKNOWN 0, COUNTER 1, GAUGE 2, HISTOGRAM 3, GAUGEHISTOGRAM 4, SUMMARY 5, INFO 6,
 * STATESET 7; any other number (proto3 enums are open) is read as {@link MetricType#UNKNOWN}. An
 * entry with an empty family name, a string that is not UTF-8, or a field over its bound in
 * {@link MetricMetadata} (help over 64 KiB, …) is refused alone: counted in {@link
 * DecodedWrite#metadataRejected()}, its message in {@link DecodedWrite#metadataError()} when it
 * is the first, while the request's other entries and series go on. Metadata is rare (Prometheus
 * sends it every minute in requests of its own), so {@link MetadataDecoder} reads it on a path of
 * its own, away from the sample path's caches.
 *
 * <p>A body that is not a WriteRequest (truncated, bad wire type, length past the end, invalid
 * framing) fails the whole request with {@link Kind#BAD_REQUEST} naming the byte offset; a label
 * that is not valid UTF-8 rejects only its series.
 *
 * <p>Series seen before: the raw bytes of a series' leading run of label fields are looked up in
 * a {@link LabelSetCache}; on a hit (equal length and 128-bit keyed hash, see there for why that
 * identifies the bytes) the cached label set, built and validated from the same bytes earlier,
 * is used as is, and the labels are not decoded, sorted or checked again. Only label sets that
 * passed every rule above are cached, so the cache never changes which series are accepted or
 * the messages of rejected ones.
 *
 * <p>Thread safety: <b>not thread safe</b>. An instance reuses growable flat arrays (label
 * scratch, sample scratch, decompression buffer) and a label string cache between calls; use one
 * instance per thread. The {@link LabelSetCache} may be shared between instances (it is thread
 * safe). Results never refer to these buffers: {@link DecodedWrite} owns its sample arrays, and
 * its label sets are immutable (possibly shared with other results through the cache).
 */
public final class RemoteWriteDecoder {

  // Tags = field number << 3 | wire type (0 VARINT, 1 I64, 2 LEN).
  private static final int TAG_WRITE_TIMESERIES = 1 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_WRITE_METADATA = 3 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  static final int TAG_SERIES_LABEL = 1 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_SERIES_SAMPLE = 2 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_SERIES_HISTOGRAM = 4 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_LABEL_NAME = 1 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_LABEL_VALUE = 2 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_SAMPLE_VALUE = 1 << 3 | WireFormat.WIRETYPE_FIXED64;
  private static final int TAG_SAMPLE_TIMESTAMP = 2 << 3 | WireFormat.WIRETYPE_VARINT;

  /**
   * Decompression buffers up to 4 MiB are kept for the next request (a 2,000-sample request is
   * ~300 KiB decoded); larger ones are allocated per request so that an idle thread does not pin
   * up to {@link IngestLimits#maxDecodedBytes()}.
   */
  private static final int MAX_RETAINED_BUFFER_BYTES = 4 << 20;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final IngestLimits limits;
  private final LabelLimits labelLimits;
  private final LabelStringCache strings = new LabelStringCache();
  private final java.util.function.Supplier<LabelSetCache> cacheSource;
  /** {@link #cacheSource}'s cache for the request being decoded; slot hints are reset with it. */
  private LabelSetCache labelSets;

  // Per-series scratch, reset at the start of every TimeSeries.
  private String[] names = new String[16];
  private String[] values = new String[16];
  private String[] sortScratch = new String[16];
  /** Lengths in bytes of UTF-8 of {@link #names} and {@link #values}, for the length limits. */
  private int[] nameBytes = new int[16];
  private int[] valueBytes = new int[16];
  /** The length in bytes of the string {@link #readString} read last. */
  private int lastStringBytes;
  private int labelCount;
  private long[] timestampsMs = new long[16];
  private long[] valueBits = new long[16];
  private int sampleCount;
  private int histogramCount;
  /** The leading run of label fields of the current series: buffer index and length in bytes. */
  private int runStart;
  private int runLen;
  /** The run's length and keyed hash, its identity in the {@link LabelSetCache}. */
  private final LabelSetCache.Key runKey = new LabelSetCache.Key();
  /**
   * Cache slot of the previous series of this request, or -1: the next series' lookup tries the
   * entry that followed it last time first ({@link LabelSetCache#matchNext}, {@link
   * LabelSetCache#predict}).
   */
  private int prevSlot = -1;
  /** {@link #prevSlot} as it was when this series' lookup started, for the put after a miss. */
  private int lookupPrevious = -1;
  /** Whether the run is the series' whole label set and short enough to be a cache key. */
  private boolean runCacheable;
  /** The cache hit of the current series; its labels are then not in {@link #names}. */
  private LabelSet cachedLabels;

  /**
   * The decompression buffer of this thread, shared by the decoders of every
   * {@link RemoteWriteHandler} (one per tenant under multitenancy) that run on it: a thread
   * decodes one request at a time, and the buffer is not referenced once {@link #decodeSnappy}
   * returns, so 100 tenants cost one retained buffer per write thread, not 100.
   */
  private static final ThreadLocal<byte[][]> DECOMPRESSED =
      ThreadLocal.withInitial(() -> new byte[][] {new byte[64 << 10]});

  // Per-request state, reset in decode().
  private byte[] buf;
  private int bufOffset;
  private long nowMs;
  private List<SeriesWrite> valid;
  private String firstError;
  /** The current series has a label string that is not UTF-8: it is rejected, not the request. */
  private boolean invalidUtf8;
  private long seriesRejected;
  private long seriesCount;
  private long samplesAccepted;
  private Map<String, Long> rejected;
  private int metadataCount;
  /** The HA labels' values on the request's first TimeSeries (null: HA off or no series yet). */
  private String haCluster;
  private String haReplica;
  /** The request's metric metadata entries, kept or refused. */
  private final MetadataDecoder metadata = new MetadataDecoder();

  /**
   * A decoder with its own {@link LabelSetCache} of {@link LabelSetCache#DEFAULT_SLOTS} slots
   * (bounded, see there); servers share one cache through
   * {@link RemoteWriteHandler} instead.
   *
   * @param limits decoded size cap, timestamp window and clock
   */
  public RemoteWriteDecoder(IngestLimits limits) {
    this(limits, new LabelSetCache());
  }

  /**
   * @param limits decoded size cap, timestamp window and clock
   * @param labelSets the cache of validated label sets by raw label bytes; may be shared with
   *     other decoders
   */
  RemoteWriteDecoder(IngestLimits limits, LabelSetCache labelSets) {
    this(limits, () -> labelSets);
  }

  /**
   * @param limits decoded size cap, timestamp window and clock
   * @param labelSets gives the cache of validated label sets at the start of each request (the
   *     handler may replace its cache by a larger one between requests); shared with other
   *     decoders
   */
  RemoteWriteDecoder(IngestLimits limits, java.util.function.Supplier<LabelSetCache> labelSets) {
    this.limits = limits;
    this.labelLimits = limits.labels();
    this.cacheSource = labelSets;
    this.labelSets = labelSets.get();
  }

  /**
   * Checks, decompresses and decodes a snappy block body. Headers must have been checked with
   * {@link WriteProtocol#check}.
   *
   * @param body the request body, snappy block format; not modified or retained
   * @return the valid series and the per-series errors
   * @throws IngestException {@link Kind#BAD_REQUEST} for an empty, framed, malformed snappy or
   *     protobuf body; {@link Kind#PAYLOAD_TOO_LARGE} when the declared decompressed length is
   *     over {@link IngestLimits#maxDecodedBytes()}
   */
  public DecodedWrite decodeSnappy(byte[] body) throws IngestException {
    int length = SnappyBlock.checkDeclaredLength(body, limits.maxDecodedBytes());
    byte[][] retained = DECOMPRESSED.get();
    byte[] out = retained[0];
    if (out.length < length) {
      out = new byte[length];
      if (length <= MAX_RETAINED_BUFFER_BYTES) {
        retained[0] = out;
      }
    }
    SnappyBlock.uncompress(body, length, out);
    return decode(out, 0, length);
  }

  /**
   * Decodes an uncompressed WriteRequest.
   *
   * @param bytes buffer holding the message; not modified or retained after return
   * @param offset start of the message in {@code bytes}
   * @param length length of the message in bytes, ≥ 0 (0 is an empty request)
   * @return the valid series and the per-series errors
   * @throws IngestException {@link Kind#BAD_REQUEST} if the bytes are not a WriteRequest
   */
  public DecodedWrite decode(byte[] bytes, int offset, int length) throws IngestException {
    buf = bytes;
    bufOffset = offset;
    labelSets = cacheSource.get();
    nowMs = limits.clock().millis();
    valid = new ArrayList<>();
    firstError = null;
    seriesRejected = 0;
    seriesCount = 0;
    samplesAccepted = 0;
    rejected = new HashMap<>();
    metadataCount = 0;
    haCluster = null;
    haReplica = null;
    metadata.reset();
    prevSlot = -1;
    CodedInputStream in = CodedInputStream.newInstance(bytes, offset, length);
    try {
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        } else if (tag == TAG_WRITE_TIMESERIES) {
          int limit = in.pushLimit(in.readRawVarint32());
          readTimeSeries(in);
          in.popLimit(limit);
          finishSeries();
        } else if (tag == TAG_WRITE_METADATA) {
          metadataCount++;
          int limit = in.pushLimit(in.readRawVarint32());
          metadata.read(in, buf, bufOffset, metadataCount);
          in.popLimit(limit);
        } else {
          in.skipField(tag);
        }
      }
    } catch (IOException e) {
      throw new IngestException(
          Kind.BAD_REQUEST, "body is not a valid remote write 1.0 WriteRequest: " + e.getMessage()
              + " (near byte offset " + in.getTotalBytesRead() + " of " + length
              + " decompressed bytes)");
    } finally {
      buf = null;
    }
    DecodedWrite result = new DecodedWrite(valid, firstError, seriesRejected, seriesCount,
        samplesAccepted, rejected, metadataCount, metadata.entries(), metadata.rejected(),
        metadata.firstError(), haCluster, haReplica);
    valid = null;
    rejected = null;
    metadata.reset();
    return result;
  }

  private void readTimeSeries(CodedInputStream in) throws IOException {
    labelCount = 0;
    invalidUtf8 = false;
    sampleCount = 0;
    histogramCount = 0;
    cachedLabels = null;
    runStart = bufOffset + in.getTotalBytesRead();
    int seriesEnd = runStart + in.getBytesUntilLimit();
    lookupPrevious = prevSlot;
    prevSlot = -1;
    // The series that followed the previous one last time, compared byte for byte (small caches
    // only, see LabelSetCache): in steady state nearly every series, found without scanning or
    // hashing its label fields.
    if (labelSets.matchesBytes()) {
      cachedLabels = labelSets.matchNext(lookupPrevious, buf, runStart, seriesEnd, runKey);
    }
    if (cachedLabels != null) {
      runLen = runKey.len;
      runCacheable = true;
    } else {
      runLen = LabelSetCache.labelRunLength(buf, runStart, seriesEnd);
      runCacheable = runLen > 0 && runLen <= LabelSetCache.MAX_KEY_BYTES;
      if (runCacheable) {
        int predicted = labelSets.predict(lookupPrevious, runKey);
        runKey.set(buf, runStart, runLen);
        cachedLabels = labelSets.get(runKey, lookupPrevious, predicted);
      }
    }
    if (cachedLabels != null) {
      prevSlot = runKey.slot;
      in.skipRawBytes(runLen); // exactly the bytes the label loop below would have consumed
    }
    int runEnd = runStart + runLen;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        return;
      } else if (tag == TAG_SERIES_LABEL) {
        if (bufOffset + in.getTotalBytesRead() > runEnd) {
          // A label after other fields: the run is not the whole label set, decode it all.
          runCacheable = false;
          materializeLabels();
        }
        int limit = in.pushLimit(in.readRawVarint32());
        readLabel(in, bufOffset);
        in.popLimit(limit);
      } else if (tag == TAG_SERIES_SAMPLE) {
        int len = in.readRawVarint32();
        int at = bufOffset + in.getTotalBytesRead();
        if (!readCanonicalSample(len, in.getBytesUntilLimit(), at)) {
          int limit = in.pushLimit(len);
          readSample(in);
          in.popLimit(limit);
        } else {
          in.skipRawBytes(len);
        }
      } else if (tag == TAG_SERIES_HISTOGRAM) {
        histogramCount++;
        in.skipField(tag);
      } else {
        in.skipField(tag); // exemplars (field 3) and unknown fields
      }
    }
  }

  /**
   * After a cache hit, decodes the run's labels into {@link #names}/{@link #values} after all:
   * for the text of a rejected series, or when more labels follow the run.
   */
  private void materializeLabels() {
    if (cachedLabels == null) {
      return;
    }
    cachedLabels = null;
    // The run is cached already, and after LabelSetCache.matchNext runKey holds no hash of it.
    runCacheable = false;
    CodedInputStream run = CodedInputStream.newInstance(buf, runStart, runLen);
    try {
      while (run.readTag() != 0) { // every tag in the run is TAG_SERIES_LABEL
        int limit = run.pushLimit(run.readRawVarint32());
        readLabel(run, runStart);
        run.popLimit(limit);
      }
    } catch (IOException e) {
      throw new IllegalStateException("bug: cached label bytes do not decode again", e);
    }
  }

  /** @param base the index in {@link #buf} of the first byte of {@code in} */
  private void readLabel(CodedInputStream in, int base) throws IOException {
    String name = "";
    String value = "";
    int nameLen = 0;
    int valueLen = 0;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      } else if (tag == TAG_LABEL_NAME) {
        name = readString(in, base);
        nameLen = lastStringBytes;
      } else if (tag == TAG_LABEL_VALUE) {
        value = readString(in, base);
        valueLen = lastStringBytes;
      } else {
        in.skipField(tag);
      }
    }
    if (labelCount == names.length) {
      names = Arrays.copyOf(names, labelCount * 2);
      values = Arrays.copyOf(values, labelCount * 2);
      nameBytes = Arrays.copyOf(nameBytes, labelCount * 2);
      valueBytes = Arrays.copyOf(valueBytes, labelCount * 2);
      sortScratch = new String[labelCount * 2];
    }
    names[labelCount] = name;
    values[labelCount] = value;
    nameBytes[labelCount] = nameLen;
    valueBytes[labelCount] = valueLen;
    labelCount++;
  }

  private String readString(CodedInputStream in, int base) throws IOException {
    int len = in.readRawVarint32();
    if (len < 0 || len > in.getBytesUntilLimit()) {
      throw new InvalidProtocolBufferException(
          "string length " + len + " runs past the end of its message");
    }
    int pos = base + in.getTotalBytesRead();
    lastStringBytes = len;
    String s = strings.get(buf, pos, len);
    if (s == null) {
      // The framing is intact, so only this series is bad: keep a readable form (U+FFFD for the
      // bad bytes) for the error message and reject the series when it ends.
      invalidUtf8 = true;
      s = new String(buf, pos, len, java.nio.charset.StandardCharsets.UTF_8);
    }
    in.skipRawBytes(len);
    return s;
  }

  /**
   * Reads a Sample in the form every sender writes it, value field then timestamp field, each
   * once ({@code 09} 8 bytes {@code 10} varint), straight from {@link #buf}; any other form
   * (absent or repeated fields, unknown fields, other order, bad framing) returns false and is
   * left to {@link #readSample}, which reads the same bytes to the same result or fails as before.
   *
   * @param len the Sample's declared length in bytes
   * @param available bytes left in the enclosing TimeSeries
   * @param p index in {@link #buf} of the Sample's first byte
   * @return whether the sample was read
   */
  private boolean readCanonicalSample(int len, int available, int p) {
    // 1 + 8 + 1 + (1..10): the timestamp varint ends exactly at the end of the message.
    if (len < 11 || len > 20 || len > available || buf[p] != TAG_SAMPLE_VALUE
        || buf[p + 9] != TAG_SAMPLE_TIMESTAMP) {
      return false;
    }
    int q = p + 10;
    int end = p + len;
    long ts = 0;
    for (int shift = 0; ; shift += 7) {
      if (q >= end) {
        return false;
      }
      byte b = buf[q++];
      ts |= (long) (b & 0x7f) << shift; // the 10th byte contributes bit 63 only, as in protobuf
      if (b >= 0) {
        break;
      }
      if (shift == 63) {
        return false; // an 11-byte varint: malformed, let protobuf say so
      }
    }
    if (q != end) {
      return false;
    }
    if (sampleCount == timestampsMs.length) {
      timestampsMs = Arrays.copyOf(timestampsMs, sampleCount * 2);
      valueBits = Arrays.copyOf(valueBits, sampleCount * 2);
    }
    timestampsMs[sampleCount] = ts;
    valueBits[sampleCount] = (long) LONG_LE.get(buf, p + 1); // raw IEEE-754 bits
    sampleCount++;
    return true;
  }

  private void readSample(CodedInputStream in) throws IOException {
    long bits = 0; // proto3 default 0.0
    long ts = 0;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      } else if (tag == TAG_SAMPLE_VALUE) {
        bits = in.readRawLittleEndian64(); // raw IEEE-754 bits, never through a double
      } else if (tag == TAG_SAMPLE_TIMESTAMP) {
        ts = in.readInt64();
      } else {
        in.skipField(tag);
      }
    }
    if (sampleCount == timestampsMs.length) {
      timestampsMs = Arrays.copyOf(timestampsMs, sampleCount * 2);
      valueBits = Arrays.copyOf(valueBits, sampleCount * 2);
    }
    timestampsMs[sampleCount] = ts;
    valueBits[sampleCount] = bits;
    sampleCount++;
  }

  /** Validates the series in the scratch arrays and adds it to the valid list or the errors. */
  private void finishSeries() {
    seriesCount++;
    if (seriesCount == 1 && !limits.ha().isOff()) {
      readHaLabels();
    }
    if (sampleCount == 0 && histogramCount == 0) {
      return;
    }
    LabelSet labels = cachedLabels; // valid by construction: only valid sets are cached
    if (labels == null && checkLabels() != null) {
      return;
    }
    boolean refusedSome = false;
    if (histogramCount > 0) {
      // Histogram samples are refused; float samples of the same series go on like any others
      // (a series may switch between the two).
      recordError("series " + seriesText() + ": native histograms are not supported yet ("
          + count(histogramCount, "histogram sample") + " refused"
          + (sampleCount == 0 ? "" : ", its " + count(sampleCount, "float sample") + " go on")
          + "); disable send_native_histograms or convert to classic histograms");
      rejected.merge(RejectReason.NATIVE_HISTOGRAM.key(), (long) histogramCount, Long::sum);
      refusedSome = true;
      if (sampleCount == 0) {
        return;
      }
    }
    long horizonMs = saturatedAdd(nowMs, -limits.retentionMs());
    long futureMs = saturatedAdd(nowMs, limits.maxFutureMs());
    // Out-of-range samples are refused one by one; the series' other samples stay (the partial
    // write Prometheus' remote-write 2.0 handler does, and a comment in its 1.0 handler asks for).
    int kept = 0;
    int tooOld = 0;
    int tooNew = 0;
    String firstProblem = null;
    for (int i = 0; i < sampleCount; i++) {
      long ts = timestampsMs[i];
      if (ts < horizonMs) {
        if (tooOld++ == 0 && firstProblem == null) {
          firstProblem = "sample timestamp " + ts + " ms (" + instant(ts) + ") is older than the"
              + " retention horizon " + horizonMs + " ms (" + instant(horizonMs) + " = now "
              + nowMs + " ms - retention " + limits.retentionMs() + " ms)";
        }
      } else if (ts > futureMs) {
        if (tooNew++ == 0 && firstProblem == null) {
          firstProblem = "sample timestamp " + ts + " ms (" + instant(ts) + ") is more than "
              + limits.maxFutureMs() + " ms ahead of now " + nowMs + " ms (latest accepted "
              + futureMs + " ms)";
        }
      } else {
        timestampsMs[kept] = ts;
        valueBits[kept] = valueBits[i];
        kept++;
      }
    }
    if (firstProblem != null) {
      if (tooOld > 0) {
        rejected.merge(RejectReason.TOO_OLD.key(), (long) tooOld, Long::sum);
      }
      if (tooNew > 0) {
        rejected.merge(RejectReason.TOO_FAR_IN_FUTURE.key(), (long) tooNew, Long::sum);
      }
      String message = "series " + seriesText() + ": " + firstProblem + "; "
          + (tooOld + tooNew) + " of its " + sampleCount + " samples refused for their timestamps"
          + (kept == 0 ? "" : ", the other " + kept + " passed on to be stored unless they"
              + " conflict with stored samples")
          + "; timestamps must be milliseconds since the Unix epoch";
      if (refusedSome) {
        firstError = firstError == null ? message : firstError; // the series is counted once
      } else {
        recordError(message);
      }
      sampleCount = kept;
      if (kept == 0) {
        return;
      }
    }
    if (labels == null) {
      try {
        labels = LabelSet.of(Arrays.asList(names).subList(0, labelCount),
            Arrays.asList(values).subList(0, labelCount));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            "bug: labels passed validation but LabelSet refused them: " + e.getMessage(), e);
      }
      if (runCacheable) {
        if (labelSets.put(runKey, labels)) {
          labelSets.follow(lookupPrevious, runKey.slot);
          prevSlot = runKey.slot;
        }
      }
    }
    valid.add(new SeriesWrite(labels, Arrays.copyOf(timestampsMs, sampleCount),
        Arrays.copyOf(valueBits, sampleCount), sampleCount));
    samplesAccepted += sampleCount;
  }

  /**
   * @return whether the series in the scratch arrays has the HA replica label and the request is
   *     an HA write: the label is removed before storing, so it does not count toward the label
   *     limit (Mimir drops it before validating: its HA dedupe and relabel steps run before
   *     validation)
   */
  private boolean haReplicaRemoved() {
    if (limits.ha().isOff()
        || !HaConfig.decides(haCluster, haReplica, labelLimits.maxLabelValueLength())) {
      return false;
    }
    String replicaName = limits.ha().replicaLabel();
    for (int i = 0; i < labelCount; i++) {
      if (names[i].equals(replicaName)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Keeps the HA cluster and replica labels' values of the request's first series, which decide
   * the whole request as Mimir's {@code findHALabels} on {@code Timeseries[0]} (the last of
   * repeated labels wins there too); "" for an absent label.
   */
  private void readHaLabels() {
    String clusterName = limits.ha().clusterLabel();
    String replicaName = limits.ha().replicaLabel();
    if (cachedLabels != null) {
      haCluster = cachedLabels.get(clusterName);
      haReplica = cachedLabels.get(replicaName);
      return;
    }
    haCluster = "";
    haReplica = "";
    for (int i = 0; i < labelCount; i++) {
      if (names[i].equals(clusterName)) {
        haCluster = values[i];
      } else if (names[i].equals(replicaName)) {
        haReplica = values[i];
      }
    }
  }

  /**
   * Checks the labels of a series not found in the cache, in the order the class comment gives.
   * Runs once per new label set, not per sample: a valid set is cached and never checked again.
   *
   * @return null if the labels are valid, else the error already recorded
   */
  private String checkLabels() {
    if (invalidUtf8) {
      return reject(RejectReason.INVALID_UTF8, "series " + seriesText()
          + ": a label name or value is not valid UTF-8 (invalid bytes shown as \uFFFD)");
    }
    LabelLimits ll = labelLimits;
    int counted = labelCount - (haReplicaRemoved() ? 1 : 0);
    if (counted > ll.maxLabelNamesPerSeries()) {
      return reject(RejectReason.MAX_LABEL_NAMES_PER_SERIES, "series " + seriesText() + ": "
          + counted + " labels" + (counted < labelCount ? " (the HA replica label not counted)"
          : "") + ", more than " + LabelLimits.FLAG_MAX_LABEL_NAMES_PER_SERIES + " "
          + ll.maxLabelNamesPerSeries());
    }
    boolean legacyNames = !ll.allowUtf8Names();
    int metric = -1;
    boolean sorted = true;
    for (int i = 0; i < labelCount; i++) {
      String name = names[i];
      if (name.isEmpty()) {
        return reject(RejectReason.EMPTY_LABEL_NAME, "series " + seriesText()
            + ": label with an empty name (value " + quoted(values[i]) + ")");
      }
      if (nameBytes[i] > ll.maxLabelNameLength()) {
        return reject(RejectReason.LABEL_NAME_TOO_LONG, "series " + seriesText()
            + ": label name " + quoted(name) + " is " + nameBytes[i] + " bytes, longer than "
            + LabelLimits.FLAG_MAX_LABEL_NAME_LENGTH + " " + ll.maxLabelNameLength() + " bytes");
      }
      if (legacyNames && !LabelLimits.isLegacyLabelName(name)) {
        return reject(RejectReason.INVALID_LABEL_NAME, "series " + seriesText()
            + ": label name " + quoted(name) + " is not a valid Prometheus label name"
            + " ([a-zA-Z_][a-zA-Z0-9_]*); UTF-8 names need "
            + LabelLimits.FLAG_ALLOW_UTF8_NAMES);
      }
      if (name.equals(LabelSet.METRIC_NAME)) {
        if (!values[i].isEmpty()) {
          metric = i;
        }
      } else if (valueBytes[i] > ll.maxLabelValueLength()) {
        return reject(RejectReason.LABEL_VALUE_TOO_LONG, "series " + seriesText()
            + ": value of label " + quoted(name) + " is " + valueBytes[i] + " bytes, longer than "
            + LabelLimits.FLAG_MAX_LABEL_VALUE_LENGTH + " " + ll.maxLabelValueLength()
            + " bytes");
      }
      if (i > 0 && LabelSet.compareUtf8(names[i - 1], name) >= 0) {
        sorted = false;
      }
    }
    // Senders sort labels (the spec requires it), so strictly ascending input proves there is no
    // duplicate without sorting; otherwise sort a copy and look at neighbours.
    if (!sorted) {
      System.arraycopy(names, 0, sortScratch, 0, labelCount);
      Arrays.sort(sortScratch, 0, labelCount, LabelSet.UTF8_ORDER);
      for (int i = 1; i < labelCount; i++) {
        if (sortScratch[i].equals(sortScratch[i - 1])) {
          return reject(RejectReason.DUPLICATE_LABEL_NAME, "series " + seriesText()
              + ": duplicate label name " + quoted(sortScratch[i]));
        }
      }
    }
    if (metric < 0) {
      return reject(RejectReason.MISSING_METRIC_NAME, "series " + seriesText()
          + ": no " + LabelSet.METRIC_NAME + " label (metric name) with a non-empty value");
    }
    if (valueBytes[metric] > ll.maxMetricNameLength()) {
      return reject(RejectReason.METRIC_NAME_TOO_LONG, "series " + seriesText()
          + ": metric name is " + valueBytes[metric] + " bytes, longer than "
          + LabelLimits.FLAG_MAX_METRIC_NAME_LENGTH + " " + ll.maxMetricNameLength() + " bytes");
    }
    if (legacyNames && !LabelLimits.isLegacyMetricName(values[metric])) {
      return reject(RejectReason.INVALID_METRIC_NAME, "series " + seriesText()
          + ": metric name " + quoted(values[metric]) + " is not a valid Prometheus metric name"
          + " ([a-zA-Z_:][a-zA-Z0-9_:]*); UTF-8 names need " + LabelLimits.FLAG_ALLOW_UTF8_NAMES);
    }
    return null;
  }

  /** Rejects the whole series: all its samples count under {@code reason}. */
  private String reject(RejectReason reason, String message) {
    long samples = (long) sampleCount + histogramCount;
    String full = message + " (" + count(samples, "sample") + " refused)";
    recordError(full);
    rejected.merge(reason.key(), samples, Long::sum);
    return full;
  }

  /** Counts a series with refused samples and keeps the request's first message. */
  private void recordError(String message) {
    if (firstError == null) {
      firstError = message;
    }
    seriesRejected++;
  }

  /** The labels as sent, for a message: {@link SeriesText#of}. */
  private String seriesText() {
    materializeLabels();
    return SeriesText.of(names, values, labelCount);
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    // Overflow iff both operands have the sign opposite to the result.
    if (((a ^ r) & (b ^ r)) < 0) {
      return r < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return r;
  }
}
