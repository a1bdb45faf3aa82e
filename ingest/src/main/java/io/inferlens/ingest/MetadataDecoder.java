package io.inferlens.ingest;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.inferlens.storage.MetricMetadata;
import io.inferlens.storage.MetricType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the {@code MetricMetadata} messages of one remote write request (WriteRequest field 3)
 * for {@link RemoteWriteDecoder}, whose class comment gives the schema and the rules: the valid
 * entries as {@link MetricMetadata} records, the refused ones counted with the first message.
 *
 * <p>Source: Prometheus prompb/types.proto at v2.42.0: {@code type = 1} (enum: UNKNOWN 0,
 * COUNTER 1, GAUGE 2, HISTOGRAM 3, GAUGEHISTOGRAM 4, SUMMARY 5, INFO 6, STATESET 7),
 * {@code metric_family_name = 2}, {@code help = 4}, {@code unit = 5}.
 *
 * <p>Thread safety: not thread safe; one per {@link RemoteWriteDecoder}.
 */
final class MetadataDecoder {

  private static final int TAG_TYPE = 1 << 3 | WireFormat.WIRETYPE_VARINT;
  private static final int TAG_NAME = 2 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_HELP = 4 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  private static final int TAG_UNIT = 5 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;

  /** {@code MetricMetadata.MetricType} by its number in prompb/types.proto (v2.42.0). */
  private static final MetricType[] WIRE_TYPES = {MetricType.UNKNOWN, MetricType.COUNTER,
      MetricType.GAUGE, MetricType.HISTOGRAM, MetricType.GAUGEHISTOGRAM, MetricType.SUMMARY,
      MetricType.INFO, MetricType.STATESET};

  /** Error messages quote at most this many characters of an entry's help. */
  private static final int MAX_HELP_TEXT_CHARS = 80;

  /** Valid entries; {@code List.of()} until the request's first one. */
  private List<MetricMetadata> entries = List.of();
  private long rejected;
  private String firstError;
  /** Strict (REPORT) UTF-8 decoder; made at the first entry with a non-empty string. */
  private CharsetDecoder utf8;
  /** The request's bytes while {@link #read} runs. */
  private byte[] buf;
  private int bufOffset;

  /** Forgets the previous request's entries and errors. */
  void reset() {
    entries = List.of();
    rejected = 0;
    firstError = null;
    buf = null;
  }

  /** @return the valid entries of this request, in request order; the caller takes the list */
  List<MetricMetadata> entries() {
    return entries;
  }

  /** @return the number of refused entries, ≥ 0 */
  long rejected() {
    return rejected;
  }

  /** @return the message of the first refused entry, or null when none was refused */
  String firstError() {
    return firstError;
  }

  /**
   * Reads one MetricMetadata message, the stream's current limit, and keeps or refuses it. Strings
   * are located first and decoded after the message ends, so an over-long help is refused without
   * being decoded.
   *
   * @param in the stream, limited to the message
   * @param bytes the buffer {@code in} reads
   * @param offset the index in {@code bytes} of the stream's first byte
   * @param entryNumber the entry's position among the request's metadata messages, from 1
   * @throws IOException if the message is not protobuf (fails the whole request)
   */
  void read(CodedInputStream in, byte[] bytes, int offset, int entryNumber) throws IOException {
    buf = bytes;
    bufOffset = offset;
    int typeNumber = 0;
    long name = 0; // each a span: index in buf << 32 | length
    long help = 0;
    long unit = 0;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      } else if (tag == TAG_TYPE) {
        typeNumber = in.readEnum();
      } else if (tag == TAG_NAME) {
        name = span(in);
      } else if (tag == TAG_HELP) {
        help = span(in);
      } else if (tag == TAG_UNIT) {
        unit = span(in);
      } else {
        in.skipField(tag);
      }
    }
    try {
      check(typeNumber, name, help, unit, "metadata entry " + entryNumber + " of the request");
    } finally {
      buf = null;
    }
  }

  private void check(int typeNumber, long name, long help, long unit, String entry) {
    // proto3 enums are open: a number this build does not know is a type it does not know.
    MetricType type = typeNumber >= 0 && typeNumber < WIRE_TYPES.length
        ? WIRE_TYPES[typeNumber] : MetricType.UNKNOWN;
    if (length(name) > MetricMetadata.MAX_NAME_BYTES) {
      reject(entry + ": metric_family_name is " + length(name) + " bytes, over the limit of "
          + MetricMetadata.MAX_NAME_BYTES + " bytes");
      return;
    }
    String family = string(name);
    if (family == null) {
      reject(entry + ": metric_family_name is not valid UTF-8");
      return;
    }
    if (!family.isEmpty()) {
      entry = "metadata of metric family \"" + family + "\" (" + entry + ")";
    }
    if (length(help) > MetricMetadata.MAX_HELP_BYTES) {
      reject(entry + ": help is " + length(help) + " bytes, over the limit of "
          + MetricMetadata.MAX_HELP_BYTES + " bytes");
      return;
    }
    if (length(unit) > MetricMetadata.MAX_UNIT_BYTES) {
      reject(entry + ": unit is " + length(unit) + " bytes, over the limit of "
          + MetricMetadata.MAX_UNIT_BYTES + " bytes");
      return;
    }
    String helpText = string(help);
    String unitText = string(unit);
    if (helpText == null || unitText == null) {
      reject(entry + ": " + (helpText == null ? "help" : "unit") + " is not valid UTF-8");
      return;
    }
    if (family.isEmpty()) {
      String quoted = helpText.length() > MAX_HELP_TEXT_CHARS
          ? helpText.substring(0, MAX_HELP_TEXT_CHARS) + "..." : helpText;
      reject(entry + " (type " + type.promName() + ", help \"" + quoted
          + "\"): metric_family_name is empty");
      return;
    }
    if (entries.isEmpty()) {
      entries = new ArrayList<>();
    }
    try {
      entries.add(new MetricMetadata(family, type, helpText, unitText));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("bug: metadata passed validation but was refused: "
          + e.getMessage(), e);
    }
  }

  /** @return the next length-delimited field's place, {@code index in buf << 32 | length} */
  private long span(CodedInputStream in) throws IOException {
    int len = in.readRawVarint32();
    if (len < 0 || len > in.getBytesUntilLimit()) {
      throw new InvalidProtocolBufferException(
          "string length " + len + " runs past the end of its message");
    }
    long at = bufOffset + in.getTotalBytesRead();
    in.skipRawBytes(len);
    return at << 32 | len;
  }

  private static int length(long span) {
    return (int) span;
  }

  /** @return the span's bytes as a string, or null if they are not valid UTF-8 */
  private String string(long span) {
    int len = length(span);
    if (len == 0) {
      return "";
    }
    if (utf8 == null) {
      utf8 = StandardCharsets.UTF_8.newDecoder();
    }
    try {
      return utf8.decode(ByteBuffer.wrap(buf, (int) (span >>> 32), len)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private void reject(String message) {
    if (firstError == null) {
      firstError = message;
    }
    rejected++;
  }
}
