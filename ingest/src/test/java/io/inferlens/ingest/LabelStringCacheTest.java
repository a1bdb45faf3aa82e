package io.inferlens.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LabelStringCacheTest {

  static Stream<Arguments> utf8() {
    return Stream.of(
        Arguments.of("ascii", bytes(0x61, 0x62), true),
        Arguments.of("2-byte é", bytes(0xc3, 0xa9), true),
        Arguments.of("3-byte €", bytes(0xe2, 0x82, 0xac), true),
        Arguments.of("4-byte U+1F600", bytes(0xf0, 0x9f, 0x98, 0x80), true),
        Arguments.of("bad continuation", bytes(0xc3, 0x28), false),
        Arguments.of("overlong '/'", bytes(0xc0, 0xaf), false),
        Arguments.of("overlong 3-byte", bytes(0xe0, 0x80, 0xaf), false),
        Arguments.of("surrogate U+D800", bytes(0xed, 0xa0, 0x80), false),
        Arguments.of("above U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80), false),
        Arguments.of("truncated 3-byte", bytes(0xe2, 0x82), false),
        Arguments.of("lone continuation", bytes(0x80), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void utf8(String name, byte[] b, boolean valid) {
    assertThat(LabelStringCache.isValidUtf8(b, 0, b.length)).isEqualTo(valid);
    assertThat(new LabelStringCache().get(b, 0, b.length) != null).isEqualTo(valid);
  }

  @Test
  void returnsTheRightStringForManyKeysSharingPrefixesAndSlots() {
    LabelStringCache cache = new LabelStringCache();
    Set<String> seen = new HashSet<>();
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 3 * LabelStringCache.SLOTS; i++) {
        String s = (i % 2 == 0 ? "vllm:time_to_first_token_seconds_bucket_" : "le") + i;
        byte[] framed = ("xx" + s + "yy").getBytes(StandardCharsets.UTF_8);
        assertThat(cache.get(framed, 2, framed.length - 4)).isEqualTo(s);
        seen.add(s);
      }
    }
    assertThat(seen).hasSize(3 * LabelStringCache.SLOTS);
  }

  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }
}
