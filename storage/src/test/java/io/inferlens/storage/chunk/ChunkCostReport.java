package io.inferlens.storage.chunk;

import com.github.luben.zstd.Zstd;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes per sample of the chunk codec on the bench workload, per kind of series, next to
 * Prometheus' XOR chunk ({@link GorillaReference}) and per-chunk zstd.
 *
 * <p>Input: dumps written by {@code scripts/bench-series-dump.py} (the exact streams of the bench
 * data sets). Run from the storage module after {@code mvn -o -pl storage test-compile}:
 *
 * <pre>
 * java -cp target/test-classes:target/classes:$(cat target/jmh.classpath) \
 *   io.inferlens.storage.chunk.ChunkCostReport /tmp/chunkbench/s2k-2880.bin 120 240 480 720
 * </pre>
 */
public final class ChunkCostReport {

  private ChunkCostReport() {}

  /** One data set: per series its kind, timestamps (ms) and value bits. */
  public record Dataset(
      String name, List<String> kinds, List<long[]> timestampsMs, List<long[]> valueBits) {
    public long samples() {
      long n = 0;
      for (long[] t : timestampsMs) {
        n += t.length;
      }
      return n;
    }
  }

  /** Totals for one kind of series. */
  static final class Cost {
    long series;
    long samples;
    long chunks;
    long gorillaTsBits;
    long gorillaValueBits;
    long chunkBytes;
    long chunkTsBits;
    long zstdBytes;
    long bestOfBytes;
    final long[] valueKinds = new long[4];

    void add(Cost o) {
      series += o.series;
      samples += o.samples;
      chunks += o.chunks;
      gorillaTsBits += o.gorillaTsBits;
      gorillaValueBits += o.gorillaValueBits;
      chunkBytes += o.chunkBytes;
      chunkTsBits += o.chunkTsBits;
      zstdBytes += o.zstdBytes;
      bestOfBytes += o.bestOfBytes;
      for (int i = 0; i < 4; i++) {
        valueKinds[i] += o.valueKinds[i];
      }
    }

    double gorilla() {
      return (gorillaTsBits + gorillaValueBits) / 8.0 / samples;
    }

    double chunk() {
      return (double) chunkBytes / samples;
    }
  }

  static Dataset readDump(Path p) throws IOException {
    try (InputStream in = Files.newInputStream(p);
        DataInputStream d = new DataInputStream(new java.io.BufferedInputStream(in, 1 << 20))) {
      byte[] magic = new byte[4];
      d.readFully(magic);
      if (!"ILSD".equals(new String(magic, StandardCharsets.US_ASCII)) || d.readInt() != 1) {
        throw new IOException(p + ": not a bench-series-dump.py version 1 file");
      }
      int series = d.readInt();
      int n = d.readInt();
      List<String> kinds = new ArrayList<>();
      List<long[]> ts = new ArrayList<>();
      List<long[]> vs = new ArrayList<>();
      for (int s = 0; s < series; s++) {
        byte[] k = new byte[d.readUnsignedShort()];
        d.readFully(k);
        kinds.add(new String(k, StandardCharsets.UTF_8));
        long[] t = new long[n];
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
          t[i] = d.readLong();
        }
        for (int i = 0; i < n; i++) {
          v[i] = d.readLong();
        }
        ts.add(t);
        vs.add(v);
      }
      String name = p.getFileName().toString().replaceFirst("\\.bin$", "");
      return new Dataset(name, kinds, ts, vs);
    }
  }

  /**
   * Encodes every series in chunks of {@code blockSamples} (the last one shorter), checks that each
   * decodes bit for bit, and sums the costs per kind.
   *
   * @param zstdLevel 0 to skip zstd, else the level for per-chunk zstd
   */
  static Map<String, Cost> measure(Dataset d, int blockSamples, int zstdLevel) {
    ChunkCodec codec = new ChunkCodec();
    TimestampEncoding tsPlan = new TimestampEncoding();
    Map<String, Cost> byKind = new TreeMap<>();
    long[] tb = new long[blockSamples];
    long[] vb = new long[blockSamples];
    long[] t2 = new long[blockSamples];
    long[] v2 = new long[blockSamples];
    for (int s = 0; s < d.kinds().size(); s++) {
      Cost c = byKind.computeIfAbsent(d.kinds().get(s), k -> new Cost());
      long[] t = d.timestampsMs().get(s);
      long[] v = d.valueBits().get(s);
      c.series++;
      for (int from = 0; from < t.length; from += blockSamples) {
        int to = Math.min(t.length, from + blockSamples);
        int n = to - from;
        System.arraycopy(t, from, tb, 0, n);
        System.arraycopy(v, from, vb, 0, n);
        byte[] chunk = codec.encode(tb, vb, n);
        ChunkCodec.decode(chunk, t2, v2);
        if (!Arrays.equals(tb, 0, n, t2, 0, n) || !Arrays.equals(vb, 0, n, v2, 0, n)) {
          throw new AssertionError(
              "bug: series " + s + " chunk at " + from + " does not round trip");
        }
        c.samples += n;
        c.chunks++;
        c.chunkBytes += chunk.length;
        c.valueKinds[chunk[0] & 7]++;
        tsPlan.plan(tb, n);
        c.chunkTsBits += tsPlan.bits;
        c.gorillaTsBits += GorillaReference.timestampBits(t, from, to);
        c.gorillaValueBits += GorillaReference.valueBits(v, from, to);
        if (zstdLevel != 0) {
          int z = Zstd.compress(chunk, zstdLevel).length;
          c.zstdBytes += z;
          c.bestOfBytes += Math.min(z, chunk.length) + 1; // + 1 flag byte: compressed or not
        }
      }
    }
    return byKind;
  }

  static Cost total(Map<String, Cost> byKind) {
    Cost all = new Cost();
    byKind.values().forEach(all::add);
    return all;
  }

  static String table(Dataset d, int blockSamples, Map<String, Cost> byKind, boolean zstd) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%n%s, %d series, %d samples, chunks of %d samples%n%n",
        d.name(), d.kinds().size(), d.samples(), blockSamples));
    sb.append("| series kind | share | Gorilla ts | Gorilla values | **Gorilla** | chunk ts"
        + " | chunk values | **chunk** | chunks const/dec/xor/raw-int |");
    sb.append(zstd ? " chunk+zstd | best-of +1 B |\n" : "\n");
    sb.append("|---|---|---|---|---|---|---|---|---|").append(zstd ? "---|---|\n" : "\n");
    Cost all = total(byKind);
    List<Map.Entry<String, Cost>> rows = new ArrayList<>(byKind.entrySet());
    rows.sort((a, b) -> Long.compare(b.getValue().chunkBytes, a.getValue().chunkBytes));
    for (Map.Entry<String, Cost> e : rows) {
      row(sb, e.getKey(), e.getValue(), all.samples, zstd);
    }
    row(sb, "**all**", all, all.samples, zstd);
    return sb.toString();
  }

  private static void row(StringBuilder sb, String name, Cost c, long allSamples, boolean zstd) {
    double n = c.samples;
    double chunkTs = c.chunkTsBits / 8.0 / n;
    sb.append(String.format(Locale.ROOT,
        "| %s | %.1f %% | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d/%d/%d/%d |",
        name, 100.0 * c.samples / allSamples, c.gorillaTsBits / 8.0 / n,
        c.gorillaValueBits / 8.0 / n,
        c.gorilla(), chunkTs, c.chunk() - chunkTs, c.chunk(), c.valueKinds[0], c.valueKinds[1],
        c.valueKinds[2], c.valueKinds[3]));
    if (zstd) {
      sb.append(String.format(Locale.ROOT, " %.3f | %.3f |", c.zstdBytes / n, c.bestOfBytes / n));
    }
    sb.append('\n');
  }

  /**
   * @param args a dump file, then chunk sizes in samples (default 120 240 480)
   */
  public static void main(String[] args) throws IOException {
    Dataset d = readDump(Path.of(args.length > 0 ? args[0] : "/tmp/chunkbench/s2k-2880.bin"));
    int[] sizes = args.length > 1
        ? Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray()
        : new int[] {120, 240, 480};
    for (int b : sizes) {
      System.out.print(table(d, b, measure(d, b, 3), true));
    }
  }
}
