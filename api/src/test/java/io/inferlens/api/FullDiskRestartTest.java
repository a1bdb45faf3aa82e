package io.inferlens.api;

import static io.inferlens.api.Requests.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server stopped by its free-space floor, SIGKILLed, then started with under 10 MB free once
 * another process filled the disk (issue 39, item 2): it starts, serves every acknowledged
 * sample, {@code /-/ready} and writes answer 503 naming the free bytes and the floor, and once
 * space is freed, without a restart, it turns ready and stores writes again. A start with no
 * space at all exits saying how much is free and what an open needs. Nothing but RocksDB's and
 * the store's files is in the data directory. Real RocksDB on a real file system: a tmpfs of
 * {@value #TMPFS_MB} MiB mounted for the test (skipped where mounting is not permitted, e.g. not
 * root; CI runs as root).
 */
class FullDiskRestartTest {

  /** The tmpfs: the 64 MiB floor, about 10 MiB of samples (about 1 M) and the fillers. */
  private static final int TMPFS_MB = 160;
  /** The server's default floor, {@code --storage.min-free-disk}: 64 MiB. */
  private static final long FLOOR_BYTES = 64L << 20;
  /** Free bytes above the floor left for the writes: 10 MiB. */
  private static final long WRITE_ROOM_BYTES = 10L << 20;
  /** Free bytes left for the restart: 4 MiB, under the 10 MB the issue names. */
  private static final long RESTART_FREE_BYTES = 4L << 20;
  private static final int SERIES = 100;
  private static final int SAMPLES_PER_SERIES = 20;
  /** Bounds the write loop: 2,000 requests of 2,000 samples are more than the room holds. */
  private static final int MAX_REQUESTS = 2_000;

  @TempDir Path dir;
  private Path mount;
  private Process server;

  @AfterEach
  void unmount() throws Exception {
    ExternalProcesses.stop(server);
    if (mount != null) {
      if (run("umount", mount.toString()) != 0) {
        run("umount", "-l", mount.toString());
      }
    }
  }

  @Test
  void restartsOnAFullDiskServesEverySampleAndResumesWhenSpaceIsFreed() throws Exception {
    Path mnt = dir.resolve("tmpfs");
    Files.createDirectories(mnt);
    Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "tmpfs: Linux");
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_MB + "m", "tmpfs",
        mnt.toString()) == 0, "mounting a tmpfs is not permitted here (not root?)");
    mount = mnt;
    Path data = mnt.resolve("data");
    Path log = dir.resolve("inferlens.log");
    int port = ExternalProcesses.freePort();
    URI base = URI.create("http://127.0.0.1:" + port);
    server = ExternalProcesses.startInferLens(List.of("-Xmx512m"), port, data, log,
        "--eval-interval=0s");
    ExternalProcesses.awaitOk(base.resolve("/-/ready"), server, Duration.ofSeconds(60), log);

    // A filler leaves the floor and WRITE_ROOM_BYTES; the writes take the room, then stop.
    Path filler = mnt.resolve("filler");
    fill(filler, usable(mnt) - FLOOR_BYTES - WRITE_ROOM_BYTES);
    long t0 = System.currentTimeMillis() - 3_600_000L;
    List<Integer> acked = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < MAX_REQUESTS && refused < 5; i++) {
      int code = Requests.write(base, request(batch(t0, i))).statusCode();
      if (code == 204) {
        acked.add(i);
      } else {
        assertThat(code).as("request %d on a full disk", i).isEqualTo(503);
        refused++;
      }
    }
    assertThat(refused).as("writes answered 503 at the floor").isEqualTo(5);
    assertThat(acked).as("acknowledged before the floor").hasSizeGreaterThan(100);
    long freeAtFloor = usable(mnt);
    assertThat(freeAtFloor).as("free bytes when writes stopped")
        .isGreaterThan(FLOOR_BYTES - (4L << 20));

    server.destroyForcibly(); // SIGKILL, as a liveness probe's restart
    server.waitFor(30, TimeUnit.SECONDS);

    // Another process takes every byte: the start fails, saying why.
    Path filler3 = mnt.resolve("filler3");
    fill(filler3, usable(mnt));
    Process failed = ExternalProcesses.startInferLens(List.of("-Xmx512m"), port, data, log,
        "--eval-interval=0s");
    assertThat(failed.waitFor(60, TimeUnit.SECONDS)).as("a start with 0 bytes free ends").isTrue();
    assertThat(failed.exitValue()).as("its exit code").isEqualTo(1);
    assertThat(ExternalProcesses.tail(log)).contains("for lack of space: 0 bytes free")
        .contains("an open needs a few MiB");
    Files.delete(filler3);

    Path filler2 = mnt.resolve("filler2");
    fill(filler2, usable(mnt) - RESTART_FREE_BYTES);
    long freeAtRestart = usable(mnt);
    assertThat(freeAtRestart).as("free bytes at restart").isLessThan(10_000_000L);

    server = ExternalProcesses.startInferLens(List.of("-Xmx512m"), port, data, log,
        "--eval-interval=0s");
    ExternalProcesses.awaitOk(base.resolve("/-/healthy"), server, Duration.ofSeconds(60), log);
    System.out.printf("FullDiskRestartTest: %d bytes free when writes stopped at the floor,"
        + " %d at restart, %d after the open (the open took %d)%n", freeAtFloor, freeAtRestart,
        usable(mnt), freeAtRestart - usable(mnt));
    HttpResponse<String> ready = Requests.get(base.resolve("/-/ready"));
    assertThat(ready.statusCode()).as("ready on a full disk: %s", ready.body()).isEqualTo(503);
    assertThat(ready.body()).contains("disk full").contains("bytes free")
        .contains("under the floor of " + FLOOR_BYTES + " bytes").contains("writes resume at");
    assertAllStored(base, t0, acked, log);
    assertThat(Requests.write(base, request(batch(t0, MAX_REQUESTS))).statusCode())
        .as("a write on a full disk").isEqualTo(503);

    Files.delete(filler);
    Files.delete(filler2);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (Requests.get(base.resolve("/-/ready")).statusCode() != 200
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    ready = Requests.get(base.resolve("/-/ready"));
    assertThat(ready.statusCode()).as("ready after space was freed: %s", ready.body())
        .isEqualTo(200);
    assertOnlyStoreFiles(data);
    assertThat(Requests.write(base, request(batch(t0, MAX_REQUESTS))).statusCode())
        .as("a write after space was freed").isEqualTo(204);
    acked.add(MAX_REQUESTS);
    assertAllStored(base, t0, acked, log);
  }

  /**
   * RocksDB's files (numbered SST, WAL and temporary files, CURRENT, IDENTITY, LOCK, LOG and its
   * old copies, MANIFEST, OPTIONS) and nothing else: no reserve file.
   */
  private static void assertOnlyStoreFiles(Path data) throws IOException {
    java.util.regex.Pattern rocks = java.util.regex.Pattern.compile("\\d+\\.(sst|log|dbtmp)"
        + "|CURRENT|IDENTITY|LOCK|LOG|LOG\\.old\\.\\d+|MANIFEST-\\d+|OPTIONS-\\d+(\\.dbtmp)?");
    List<String> others = new ArrayList<>();
    try (var files = Files.list(data)) {
      files.map(f -> f.getFileName().toString()).filter(n -> !rocks.matcher(n).matches())
          .forEach(others::add);
    }
    assertThat(others).as("files in the data directory that are not RocksDB's").isEmpty();
  }

  /** Every sample of every acknowledged request, read back through {@code /api/v1/export}. */
  private static void assertAllStored(URI base, long t0, List<Integer> acked, Path log)
      throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/export?match[]=full_disk_test"
        + "&start=" + (t0 / 1000 - 10) + "&end=" + (t0 / 1000 + 3600)));
    assertThat(r.statusCode()).as("export: %s; the server's log:%n%s", r.body(),
        ExternalProcesses.tail(log)).isEqualTo(200);
    ObjectMapper json = new ObjectMapper();
    Map<Integer, Map<Long, Double>> stored = new HashMap<>();
    for (String line : r.body().split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = json.readTree(line);
      Map<Long, Double> samples = new HashMap<>();
      for (int k = 0; k < n.get("timestamps").size(); k++) {
        samples.put(n.get("timestamps").get(k).asLong(), n.get("values").get(k).asDouble());
      }
      stored.put(Integer.parseInt(n.get("metric").get("s").asText()), samples);
    }
    long missing = 0;
    for (int i : acked) {
      for (int s = 0; s < SERIES; s++) {
        for (int k = 0; k < SAMPLES_PER_SERIES; k++) {
          Double got = stored.getOrDefault(s, Map.of()).get(ts(t0, i, k));
          if (got == null || got != value(i, k, s)) {
            missing++;
          }
        }
      }
    }
    assertThat(missing).as("acknowledged samples missing or wrong, of %d",
        (long) acked.size() * SERIES * SAMPLES_PER_SERIES).isZero();
  }

  /** Request {@code i}: SAMPLES_PER_SERIES new samples of each of SERIES series. */
  private static TimeSeries[] batch(long t0, int i) {
    TimeSeries[] out = new TimeSeries[SERIES];
    for (int s = 0; s < SERIES; s++) {
      TimeSeries.Builder b = TimeSeries.newBuilder()
          .addLabels(Label.newBuilder().setName("__name__").setValue("full_disk_test"))
          .addLabels(Label.newBuilder().setName("s").setValue(Integer.toString(s)));
      for (int k = 0; k < SAMPLES_PER_SERIES; k++) {
        b.addSamples(Sample.newBuilder().setTimestamp(ts(t0, i, k)).setValue(value(i, k, s)));
      }
      out[s] = b.build();
    }
    return out;
  }

  /** Within the hour after t0: 1 ms apart, so MAX_REQUESTS + 1 requests fit in 41 s. */
  private static long ts(long t0, int request, int k) {
    return t0 + (long) request * SAMPLES_PER_SERIES + k;
  }

  /** Distinct per sample, not compressible to nothing: the disk must really fill. */
  private static double value(int request, int k, int series) {
    return request * 1e6 + k * 1e3 + series + 0.123456789 * (k + 1);
  }

  private static long usable(Path p) throws IOException {
    return Files.getFileStore(p).getUsableSpace();
  }

  /** Writes {@code bytes} zero bytes to a new file (tmpfs allocates zero pages too). */
  private static void fill(Path file, long bytes) throws IOException {
    ByteBuffer block = ByteBuffer.allocate(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE)) {
      long left = bytes;
      while (left > 0) {
        block.clear().limit((int) Math.min(block.capacity(), left));
        left -= ch.write(block);
      }
    }
  }

  private static int run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }
}
