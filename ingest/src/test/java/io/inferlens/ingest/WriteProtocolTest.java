package io.inferlens.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferlens.ingest.IngestException.Kind;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WriteProtocolTest {

  static Stream<Arguments> accepted() {
    return Stream.of(
        Arguments.of(null, null),
        Arguments.of("", "snappy"),
        Arguments.of("application/x-protobuf", "snappy"),
        Arguments.of("Application/X-Protobuf", "SNAPPY"),
        Arguments.of("application/x-protobuf;proto=prometheus.WriteRequest", "snappy"),
        Arguments.of("application/x-protobuf ; PROTO = \"prometheus.WriteRequest\"", " Snappy "),
        Arguments.of("application/x-protobuf; charset=utf-8; proto=prometheus.WriteRequest", null),
        Arguments.of("application/x-protobuf;", "snappy"));
  }

  @ParameterizedTest
  @MethodSource
  void accepted(String contentType, String contentEncoding) {
    assertThatCode(() -> WriteProtocol.check(contentType, contentEncoding))
        .doesNotThrowAnyException();
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of("application/x-protobuf;proto=io.prometheus.write.v2.Request", "snappy",
            "remote write 2.0"),
        Arguments.of("application/x-protobuf; Proto=\"io.prometheus.write.v2.Request\"", "snappy",
            "not implemented yet"),
        Arguments.of("application/x-protobuf;proto=prometheus.ReadRequest", "snappy",
            "prometheus.ReadRequest"),
        Arguments.of("application/json", "snappy", "application/json"),
        Arguments.of("text/plain; proto=prometheus.WriteRequest", "snappy", "text/plain"),
        Arguments.of("application/x-protobuf;proto=\"prometheus.WriteRequest", "snappy",
            "unterminated"),
        Arguments.of("application/x-protobuf;proto", "snappy", "without '='"),
        Arguments.of("application/x-protobuf", "gzip", "gzip"),
        Arguments.of(null, "identity", "identity"),
        Arguments.of(null, "snappy, gzip", "snappy, gzip"));
  }

  @ParameterizedTest
  @MethodSource
  void refused(String contentType, String contentEncoding, String messagePart) {
    IngestException e = catchThrowableOfType(IngestException.class,
        () -> WriteProtocol.check(contentType, contentEncoding));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(Kind.UNSUPPORTED_MEDIA_TYPE);
    assertThat(e.getMessage()).contains(messagePart);
  }
}
