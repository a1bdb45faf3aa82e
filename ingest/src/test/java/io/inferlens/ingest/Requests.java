package io.inferlens.ingest;

import com.google.protobuf.CodedOutputStream;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyFramedOutputStream;

/** Builds remote write requests for tests with the generated protobuf classes and snappy-java. */
final class Requests {

  /** A fixed "now": 2025-11-24T16:00:00Z in milliseconds. */
  static final long NOW_MS = 1_764_000_000_000L;

  static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC);

  static final IngestLimits LIMITS = IngestLimits.defaults().withClock(CLOCK);

  private Requests() {}

  /** @param nameValuePairs alternating label names and values, in the order to send them */
  static Types.TimeSeries.Builder series(String... nameValuePairs) {
    Types.TimeSeries.Builder b = Types.TimeSeries.newBuilder();
    for (int i = 0; i < nameValuePairs.length; i += 2) {
      b.addLabels(Types.Label.newBuilder().setName(nameValuePairs[i]).setValue(nameValuePairs[i + 1]));
    }
    return b;
  }

  static Types.Sample sample(long timestampMs, double value) {
    return Types.Sample.newBuilder().setTimestamp(timestampMs).setValue(value).build();
  }

  static WriteRequest request(Types.TimeSeries.Builder... series) {
    WriteRequest.Builder b = WriteRequest.newBuilder();
    for (Types.TimeSeries.Builder s : series) {
      b.addTimeseries(s);
    }
    return b.build();
  }

  static byte[] snappy(byte[] raw) {
    try {
      return Snappy.compress(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] snappy(WriteRequest request) {
    return snappy(request.toByteArray());
  }

  static byte[] framed(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (SnappyFramedOutputStream f = new SnappyFramedOutputStream(out)) {
      f.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** @return {@code message} followed by a field the schema does not know */
  static byte[] withUnknownField(byte[] message, int fieldNumber) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      out.write(message);
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      c.writeString(fieldNumber, "unknown");
      c.writeInt64(fieldNumber + 1, 42);
      c.writeFixed32(fieldNumber + 2, 7);
      c.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** @return {@code message} wrapped as field {@code fieldNumber} of an enclosing message */
  static byte[] asField(int fieldNumber, byte[] message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      c.writeByteArray(fieldNumber, message);
      c.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
