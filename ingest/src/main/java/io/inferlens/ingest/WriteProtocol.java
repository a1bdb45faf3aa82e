package io.inferlens.ingest;

import io.inferlens.ingest.IngestException.Kind;
import java.util.Locale;

/**
 * Decides from the request headers whether a body is a remote write 1.0 request we can decode.
 *
 * <p>Source: Prometheus remote write 1.0 specification
 * (https://prometheus.io/docs/specs/remote_write_spec/): the body is a snappy block compressed
 * {@code prometheus.WriteRequest}, sent with {@code Content-Type: application/x-protobuf} and
 * {@code Content-Encoding: snappy}. Remote write 2.0 senders use the same media type with
 * {@code proto=io.prometheus.write.v2.Request}; a 2.0 body happens to decode as an empty 1.0
 * request, so we must branch on the header and refuse it (415) instead of answering 2xx while
 * dropping everything.
 *
 * <p>Accepted: a missing Content-Type (1.0 senders that predate the header), or
 * {@code application/x-protobuf} (case-insensitive) without a {@code proto} parameter or with
 * {@code proto=prometheus.WriteRequest}. Other parameters are ignored. Parameter names are
 * case-insensitive, values may be quoted ({@code proto="prometheus.WriteRequest"}), whitespace
 * around {@code ;} and {@code =} is allowed. Content-Encoding: absent or {@code snappy}
 * (case-insensitive); the body is decoded as a snappy block either way, as Prometheus does.
 *
 * <p>Thread safety: stateless.
 */
public final class WriteProtocol {

  /** The media type of remote write, 1.0 and 2.0 alike. */
  public static final String MEDIA_TYPE = "application/x-protobuf";

  /** The {@code proto} parameter value of remote write 1.0. */
  public static final String PROTO_V1 = "prometheus.WriteRequest";

  /** The {@code proto} parameter value of remote write 2.0 (not implemented). */
  public static final String PROTO_V2 = "io.prometheus.write.v2.Request";

  private WriteProtocol() {}

  /**
   * Checks the headers of a remote write request.
   *
   * @param contentType the Content-Type header value, or null when absent
   * @param contentEncoding the Content-Encoding header value, or null when absent
   * @throws IngestException of kind {@link Kind#UNSUPPORTED_MEDIA_TYPE} when the media type, the
   *     {@code proto} parameter or the encoding is not remote write 1.0 with snappy, or the
   *     Content-Type cannot be parsed; the message quotes the header
   */
  public static void check(String contentType, String contentEncoding) throws IngestException {
    checkContentType(contentType);
    checkContentEncoding(contentEncoding);
  }

  private static void checkContentEncoding(String contentEncoding) throws IngestException {
    if (contentEncoding == null || contentEncoding.isBlank()) {
      return;
    }
    if (!contentEncoding.strip().equalsIgnoreCase("snappy")) {
      throw new IngestException(
          Kind.UNSUPPORTED_MEDIA_TYPE,
          "unsupported Content-Encoding \"" + contentEncoding
              + "\": remote write 1.0 bodies must be snappy block compressed"
              + " (Content-Encoding: snappy)");
    }
  }

  private static void checkContentType(String contentType) throws IngestException {
    if (contentType == null || contentType.isBlank()) {
      return; // remote write 1.0 senders that predate the header
    }
    String proto = parseProtoParameter(contentType);
    if (proto == null || proto.equals(PROTO_V1)) {
      return;
    }
    if (proto.equals(PROTO_V2)) {
      throw new IngestException(
          Kind.UNSUPPORTED_MEDIA_TYPE,
          "remote write 2.0 (Content-Type \"" + contentType + "\") is not implemented yet;"
              + " configure the sender for remote write 1.0 (proto=" + PROTO_V1 + ")");
    }
    throw new IngestException(
        Kind.UNSUPPORTED_MEDIA_TYPE,
        "unsupported protobuf message proto=\"" + proto + "\" in Content-Type \"" + contentType
            + "\": only remote write 1.0 (proto=" + PROTO_V1 + ") is implemented;"
            + " remote write 2.0 is not implemented yet");
  }

  /**
   * Parses {@code type/subtype *( ";" name "=" (token | quoted-string) )} (RFC 9110 §8.3.1).
   *
   * @return the {@code proto} parameter, or null when absent
   * @throws IngestException if the media type is not {@code application/x-protobuf} or the
   *     header is malformed
   */
  private static String parseProtoParameter(String contentType) throws IngestException {
    String s = contentType;
    int semi = s.indexOf(';');
    String mediaType = (semi < 0 ? s : s.substring(0, semi)).strip();
    if (!mediaType.equalsIgnoreCase(MEDIA_TYPE)) {
      throw new IngestException(
          Kind.UNSUPPORTED_MEDIA_TYPE,
          "unsupported Content-Type \"" + contentType + "\": remote write 1.0 requires "
              + MEDIA_TYPE + " (optionally with proto=" + PROTO_V1 + ")");
    }
    String proto = null;
    int pos = semi < 0 ? s.length() : semi + 1;
    int n = s.length();
    while (pos < n) {
      pos = skipWhitespace(s, pos);
      if (pos < n && s.charAt(pos) == ';') { // empty parameter, e.g. "a/b;;x=y" or trailing ';'
        pos++;
        continue;
      }
      if (pos >= n) {
        break;
      }
      int eq = s.indexOf('=', pos);
      int nextSemi = s.indexOf(';', pos);
      if (eq < 0 || (nextSemi >= 0 && nextSemi < eq)) {
        throw malformed(contentType, "parameter without '=' at character " + pos);
      }
      String name = s.substring(pos, eq).strip().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        throw malformed(contentType, "parameter without a name at character " + pos);
      }
      pos = skipWhitespace(s, eq + 1);
      String value;
      if (pos < n && s.charAt(pos) == '"') {
        StringBuilder sb = new StringBuilder();
        pos++;
        boolean closed = false;
        while (pos < n) {
          char c = s.charAt(pos++);
          if (c == '\\' && pos < n) {
            sb.append(s.charAt(pos++));
          } else if (c == '"') {
            closed = true;
            break;
          } else {
            sb.append(c);
          }
        }
        if (!closed) {
          throw malformed(contentType, "unterminated quoted value of parameter " + name);
        }
        value = sb.toString();
        pos = skipWhitespace(s, pos);
        if (pos < n && s.charAt(pos) != ';') {
          throw malformed(contentType, "unexpected character after quoted value at " + pos);
        }
      } else {
        int end = s.indexOf(';', pos);
        if (end < 0) {
          end = n;
        }
        value = s.substring(pos, end).strip();
        pos = end;
      }
      if (pos < n && s.charAt(pos) == ';') {
        pos++;
      }
      if (name.equals("proto")) {
        proto = value;
      }
    }
    return proto;
  }

  private static int skipWhitespace(String s, int pos) {
    while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
      pos++;
    }
    return pos;
  }

  private static IngestException malformed(String contentType, String detail) {
    return new IngestException(
        Kind.UNSUPPORTED_MEDIA_TYPE, "malformed Content-Type \"" + contentType + "\": " + detail);
  }
}
