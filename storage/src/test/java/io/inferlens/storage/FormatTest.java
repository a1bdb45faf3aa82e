package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Freezes every on-disk byte layout documented in storage/FORMAT.md. If one of these fails, the
 * format changed: bump {@link Keys#FORMAT_VERSION}, update FORMAT.md and write a migration, or
 * revert the change.
 */
class FormatTest {

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  @Test
  void formatVersionIsOne() {
    assertThat(Keys.FORMAT_VERSION).isEqualTo(1);
    assertThat(hex(Keys.be32(Keys.FORMAT_VERSION))).isEqualTo("00000001");
  }

  @Test
  void columnFamilyNamesAndMetaKeysAreFrozen() {
    assertThat(List.of(Keys.CF_SERIES_BY_LABELS, Keys.CF_SERIES_BY_ID, Keys.CF_POSTINGS,
            Keys.CF_SAMPLES, Keys.CF_META))
        .containsExactly("series_by_labels", "series_by_id", "postings", "samples", "meta");
    assertThat(hex(Keys.META_FORMAT_VERSION)).isEqualTo("666f726d61745f76657273696f6e");
    assertThat(hex(Keys.META_NEXT_SERIES_ID)).isEqualTo("6e6578745f7365726965735f6964");
    assertThat(Keys.FIRST_SERIES_ID).isEqualTo(1);
  }

  @Test
  void labelSetEncodingIsFrozen() {
    // varint(8) "__name__" varint(2) "up" varint(3) "job" varint(1) "a"
    assertThat(hex(LabelSet.of("job", "a", "__name__", "up").encode()))
        .isEqualTo("08" + "5f5f6e616d655f5f" + "02" + "7570" + "03" + "6a6f62" + "01" + "61");
    // A 200-byte value needs a two-byte varint: 200 = 0xc8 → c8 01.
    String longValue = "x".repeat(200);
    assertThat(hex(LabelSet.of("a", longValue).encode()))
        .startsWith("01" + "61" + "c801" + "7878");
  }

  @Test
  void seriesIdIsEightBytesBigEndian() {
    assertThat(hex(Keys.be64(1))).isEqualTo("0000000000000001");
    assertThat(hex(Keys.be64(0x0102030405060708L))).isEqualTo("0102030405060708");
  }

  @Test
  void postingKeyIsNameZeroValueZeroId() {
    assertThat(hex(Keys.postingKey("job", "a", 2)))
        .isEqualTo("6a6f62" + "00" + "61" + "00" + "0000000000000002");
  }

  @Test
  void sampleKeyIsIdThenSignFlippedTimestamp() {
    SampleCodec c = RawSampleCodec.INSTANCE;
    assertThat(hex(c.key(1, 1_700_000_000_000L))).isEqualTo("0000000000000001" + "8000018bcfe56800");
    assertThat(hex(c.key(1, -1))).isEqualTo("0000000000000001" + "7fffffffffffffff");
    assertThat(hex(c.key(258, 0))).isEqualTo("0000000000000102" + "8000000000000000");
    assertThat(hex(c.key(1, Long.MIN_VALUE))).isEqualTo("0000000000000001" + "0000000000000000");
  }

  @Test
  void sampleValueIsRawIeee754BigEndian() {
    SampleCodec c = RawSampleCodec.INSTANCE;
    assertThat(hex(c.encodeValue(Double.doubleToRawLongBits(1.0)))).isEqualTo("3ff0000000000000");
    assertThat(hex(c.encodeValue(Double.doubleToRawLongBits(-2.5)))).isEqualTo("c004000000000000");
    assertThat(hex(c.encodeValue(0x7ff0000000000002L))).isEqualTo("7ff0000000000002");
  }
}
