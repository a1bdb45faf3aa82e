package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RawSampleCodecTest {

  private final SampleCodec codec = RawSampleCodec.INSTANCE;

  @Test
  void keysSortLikeSignedTimestampsWithinASeriesAndByIdAcrossSeries() {
    long[] timestamps = {Long.MIN_VALUE, -1_000, -1, 0, 1, 1_700_000_000_000L, Long.MAX_VALUE};
    List<byte[]> keys = new ArrayList<>();
    for (long id : new long[] {1, 2}) {
      for (long ts : timestamps) {
        keys.add(codec.key(id, ts));
      }
    }
    for (int i = 1; i < keys.size(); i++) {
      assertThat(Arrays.compareUnsigned(keys.get(i - 1), keys.get(i)))
          .as("key %d sorts before key %d", i - 1, i)
          .isNegative();
    }
  }

  @Test
  void keyRoundTrips() {
    for (long ts : new long[] {Long.MIN_VALUE, -1, 0, 42, Long.MAX_VALUE}) {
      byte[] key = codec.key(7, ts);
      assertThat(codec.seriesId(key)).isEqualTo(7);
      assertThat(codec.timestampMs(key)).isEqualTo(ts);
    }
  }

  @Test
  void rangeEndIsJustAfterTheLastIncludedTimestamp() {
    assertThat(codec.rangeEndExclusive(3, 10)).isEqualTo(codec.key(3, 11));
    byte[] endOfSeries = codec.rangeEndExclusive(3, Long.MAX_VALUE);
    assertThat(Arrays.compareUnsigned(codec.key(3, Long.MAX_VALUE), endOfSeries)).isNegative();
    assertThat(Arrays.compareUnsigned(endOfSeries, codec.key(4, Long.MIN_VALUE))).isNegative();
  }

  @Test
  void valueOfWrongLengthIsCorruption() {
    assertThatThrownBy(() -> codec.decodeValue(new byte[7]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("7 bytes");
  }
}
