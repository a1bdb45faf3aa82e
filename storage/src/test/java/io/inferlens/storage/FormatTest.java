package io.inferlens.storage;

import io.inferlens.storage.head.HeadLog;
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
  void formatVersionIsTwo() {
    assertThat(Keys.FORMAT_VERSION).isEqualTo(2);
    assertThat(hex(Keys.be32(Keys.FORMAT_VERSION))).isEqualTo("00000002");
  }

  @Test
  void columnFamilyNamesAndMetaKeysAreFrozen() {
    assertThat(List.of(Keys.CF_SERIES_BY_ID, Keys.CF_HEAD_LOG, Keys.CF_META))
        .containsExactly("series_by_id", "head_log", "meta");
    assertThat(Keys.LEGACY_INDEX_COLUMN_FAMILIES).containsExactly("series_by_labels", "postings");
    assertThat(hex(Keys.META_LOG_FLOOR)).isEqualTo("686561645f6c6f675f666c6f6f72");
    assertThat(hex(Keys.META_FORMAT_VERSION)).isEqualTo("666f726d61745f76657273696f6e");
    assertThat(hex(Keys.META_NEXT_SERIES_ID)).isEqualTo("6e6578745f7365726965735f6964");
    assertThat(hex(Keys.META_WRITE_PROBE)).isEqualTo("77726974655f70726f6265");
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
  void partitionKeysAreFrozen() {
    assertThat(hex(Keys.dataKey(1, 1_700_000_000_000L)))
        .isEqualTo("01" + "0000000000000001" + "8000018bcfe56800");
    assertThat(hex(Keys.dataKey(258, -1))).isEqualTo("01" + "0000000000000102" + "7fffffffffffffff");
    assertThat(hex(Keys.presentKey(2))).isEqualTo("00" + "0000000000000002");
    assertThat(hex(Keys.unfinalizedKey(1, 0))).isEqualTo("03" + "0000000000000001" + "8000000000000000");
    assertThat(hex(Keys.PARTITION_SAMPLE_COUNT)).isEqualTo("02");
  }

  @Test
  void partitionNamesAreFrozen() {
    long day = 1_764_460_800_000L; // 2025-11-30T00:00Z
    assertThat(PartitionKind.CHUNKS.name(PartitionKind.CHUNKS.partitionStart(day + 5)))
        .isEqualTo("chunks_2025-11-30");
    assertThat(PartitionKind.CHUNKS.parseStart("chunks_2025-11-30")).isEqualTo(day);
    assertThat(PartitionKind.ROLLUP_5M.name(PartitionKind.ROLLUP_5M.partitionStart(day)))
        .isEqualTo("rollup5m_2025-11-28");
    assertThat(PartitionKind.ROLLUP_1H.name(PartitionKind.ROLLUP_1H.partitionStart(day)))
        .isEqualTo("rollup1h_2025-11-08");
    assertThat(PartitionKind.CHUNKS.parseStart("rollup5m_2025-11-28")).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void headLogRecordIsFrozen() {
    HeadLog log = new HeadLog();
    log.addSeries(3, new long[] {1000, 16000}, new long[] {0x3ff0000000000000L, 0x7ff0000000000002L}, 2);
    // varint(3) varint(2) zigzag(1000)=2000 → d0 0f, bits; zigzag(15000)=30000 → b0 ea 01, bits
    assertThat(hex(log.toBytes())).isEqualTo("03" + "02" + "d00f" + "3ff0000000000000"
        + "b0ea01" + "7ff0000000000002");
  }
}
