package io.inferlens.ingest;

import io.inferlens.ingest.IngestException.Kind;
import java.io.IOException;
import org.xerial.snappy.Snappy;

/**
 * Size checks and decompression of a snappy <em>block</em> format body, the only compression
 * remote write 1.0 allows (https://prometheus.io/docs/specs/remote_write_spec/, "MUST use the
 * block format of snappy", not the framed/stream format).
 *
 * <p>Block format (https://github.com/google/snappy/blob/main/format_description.txt): a varint
 * (1 to 5 bytes, little-endian base 128, at most 2^32 - 1) with the decompressed length,
 * followed by literal and copy elements. Because a few bytes can claim gigabytes, the declared
 * length is compared with {@link IngestLimits#maxDecodedBytes()} before anything is allocated.
 *
 * <p>Thread safety: stateless.
 */
public final class SnappyBlock {

  /**
   * The stream identifier chunk that starts every framed-format stream: chunk type 0xff, length
   * 6 (3 bytes little-endian), then "sNaPpY".
   */
  private static final byte[] FRAMED_MAGIC = {
    (byte) 0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'
  };

  /** A snappy length varint is at most 5 bytes: 5 * 7 = 35 bits cover the 32-bit length. */
  private static final int MAX_VARINT_BYTES = 5;

  private SnappyBlock() {}

  /**
   * Checks the compressed size, the format and the declared decompressed length.
   *
   * @param body the request body, not modified
   * @param maxDecodedBytes the limit on the declared decompressed length, in bytes
   * @return the declared decompressed length in bytes, 0 to {@code maxDecodedBytes}
   * @throws IngestException {@link Kind#BAD_REQUEST} for an empty body, a framed stream or a bad
   *     length header; {@link Kind#PAYLOAD_TOO_LARGE} when the body or the declared length is over
   *     the limit (the message names both numbers)
   */
  public static int checkDeclaredLength(byte[] body, long maxDecodedBytes) throws IngestException {
    if (body.length == 0) {
      throw new IngestException(
          Kind.BAD_REQUEST, "empty body: a remote write request is a snappy block compressed"
              + " WriteRequest, at least 1 byte");
    }
    if (isFramed(body)) {
      throw new IngestException(
          Kind.BAD_REQUEST, "body is in the snappy framed (stream) format, but remote write"
              + " requires the snappy block format, not framed");
    }
    // The first bound: no snappy block that decodes to at most maxDecodedBytes is longer than
    // this (snappy's MaxCompressedLength = 32 + n + n / 6).
    long maxCompressed = 32 + maxDecodedBytes + maxDecodedBytes / 6;
    if (body.length > maxCompressed) {
      throw new IngestException(
          Kind.PAYLOAD_TOO_LARGE, "compressed body of " + body.length + " bytes is larger than "
              + maxCompressed + " bytes, the largest snappy block that can decode to the limit of "
              + maxDecodedBytes + " bytes");
    }
    long declared = 0;
    int i = 0;
    for (int shift = 0; ; shift += 7) {
      if (i >= body.length || i >= MAX_VARINT_BYTES) {
        throw notSnappy("truncated or overlong length header (" + Math.min(i, body.length)
            + " bytes)");
      }
      int b = body[i++] & 0xff;
      declared |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
    }
    if (declared > 0xffff_ffffL) {
      throw notSnappy("declared length " + declared + " exceeds 2^32 - 1");
    }
    // The second bound: checked before the output buffer exists.
    if (declared > maxDecodedBytes) {
      throw new IngestException(
          Kind.PAYLOAD_TOO_LARGE, "snappy block declares a decompressed length of " + declared
              + " bytes, over the limit of " + maxDecodedBytes + " bytes");
    }
    if (declared == 0 && body.length != i) {
      throw notSnappy("declared length 0 but " + (body.length - i) + " more bytes follow");
    }
    return (int) declared;
  }

  /**
   * Decompresses a body that passed {@link #checkDeclaredLength}.
   *
   * @param body the snappy block
   * @param declaredLength the value {@link #checkDeclaredLength} returned
   * @param out the destination, at least {@code declaredLength} bytes; bytes
   *     {@code [0, declaredLength)} are overwritten
   * @throws IngestException {@link Kind#BAD_REQUEST} "body is not a valid snappy block: …" when
   *     the block is malformed or truncated (or not snappy at all)
   */
  public static void uncompress(byte[] body, int declaredLength, byte[] out)
      throws IngestException {
    if (out.length < declaredLength) {
      throw new IllegalArgumentException(
          "bug: output buffer of " + out.length + " bytes for " + declaredLength + " bytes");
    }
    if (declaredLength == 0) {
      return;
    }
    int n;
    try {
      n = Snappy.uncompress(body, 0, body.length, out, 0);
    } catch (IOException | RuntimeException e) {
      throw notSnappy(e.getMessage() + " (" + body.length + " compressed bytes, declared length "
          + declaredLength + ")");
    }
    if (n != declaredLength) {
      throw notSnappy("decoded " + n + " bytes but the header declares " + declaredLength);
    }
  }

  /**
   * @param body a request body
   * @return whether it starts with the snappy framed-format stream identifier
   */
  public static boolean isFramed(byte[] body) {
    if (body.length < FRAMED_MAGIC.length) {
      return false;
    }
    for (int i = 0; i < FRAMED_MAGIC.length; i++) {
      if (body[i] != FRAMED_MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  private static IngestException notSnappy(String detail) {
    return new IngestException(Kind.BAD_REQUEST, "body is not a valid snappy block: " + detail);
  }
}
