package io.inferlens.ingest;

import static io.inferlens.ingest.Requests.framed;
import static io.inferlens.ingest.Requests.request;
import static io.inferlens.ingest.Requests.sample;
import static io.inferlens.ingest.Requests.series;
import static io.inferlens.ingest.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferlens.ingest.IngestException.Kind;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SnappyBlockTest {

  private static final long MAX = 32L << 20;

  private static final byte[] RAW =
      request(series("__name__", "up", "job", "node").addSamples(sample(Requests.NOW_MS, 1)))
          .toByteArray();

  static Stream<Arguments> badBodies() {
    byte[] block = snappy(RAW);
    return Stream.of(
        Arguments.of("zero-length body", new byte[0], Kind.BAD_REQUEST, "empty body"),
        Arguments.of("framed stream", framed(RAW), Kind.BAD_REQUEST, "not framed"),
        Arguments.of("raw protobuf", RAW, Kind.BAD_REQUEST, "not a valid snappy block"),
        Arguments.of("truncated block", Arrays.copyOf(block, block.length - 3), Kind.BAD_REQUEST,
            "not a valid snappy block"),
        Arguments.of("truncated header", new byte[] {(byte) 0x80}, Kind.BAD_REQUEST,
            "not a valid snappy block"),
        Arguments.of("zero length then garbage", new byte[] {0, 1, 2}, Kind.BAD_REQUEST,
            "not a valid snappy block"),
        // 0xffffffff as a varint: a 5-byte header claiming 4 GiB.
        Arguments.of("header claims 4 GiB",
            new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0, 0},
            Kind.PAYLOAD_TOO_LARGE, "4294967295 bytes, over the limit of 33554432 bytes"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void badBodies(String name, byte[] body, Kind kind, String messagePart) {
    IngestException e = catchThrowableOfType(IngestException.class, () -> {
      int length = SnappyBlock.checkDeclaredLength(body, MAX);
      SnappyBlock.uncompress(body, length, new byte[length]);
    });
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(kind);
    assertThat(e.getMessage()).contains(messagePart);
  }

  @Test
  void decompressionBombIsRefusedFromItsHeader() throws Exception {
    byte[] bomb = snappy(new byte[64 << 20]); // 64 MiB of zeros compress to ~3 MiB
    assertThat(bomb.length).isLessThan(4 << 20);
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> SnappyBlock.checkDeclaredLength(bomb, MAX));
    assertThat(e.kind()).isEqualTo(Kind.PAYLOAD_TOO_LARGE);
    assertThat(e.getMessage()).contains("67108864").contains("33554432");
  }

  @Test
  void compressedBodyLargerThanAnyBlockUnderTheLimitIsTooLarge() {
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> SnappyBlock.checkDeclaredLength(new byte[1000], 100));
    assertThat(e.kind()).isEqualTo(Kind.PAYLOAD_TOO_LARGE);
    assertThat(e.getMessage()).contains("1000 bytes").contains("148 bytes");
  }

  @Test
  void singleZeroByteIsAnEmptyBlock() throws Exception {
    assertThat(SnappyBlock.checkDeclaredLength(new byte[] {0}, MAX)).isZero();
  }

  @Test
  void validBlockRoundTrips() throws Exception {
    byte[] block = snappy(RAW);
    int length = SnappyBlock.checkDeclaredLength(block, MAX);
    byte[] out = new byte[length + 10];
    SnappyBlock.uncompress(block, length, out);
    assertThat(Arrays.copyOf(out, length)).isEqualTo(RAW);
  }
}
