package io.inferlens.storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable, canonical label set: label names in ascending UTF-8 byte order, no empty values,
 * no duplicate or empty names. Two label sets that name the same series are {@link #equals equal}
 * and have the same {@link #encode() encoding}.
 *
 * <p>Canonical order is the UTF-8 byte order required by the remote-write 1.0 specification
 * ("Labels MUST be sorted by name in lexicographic order"), which differs from Java's UTF-16
 * {@link String#compareTo} for characters above U+FFFF; see {@link #UTF8_ORDER}.
 *
 * <p>Thread safety: immutable, safe to share.
 */
public final class LabelSet {

  /** The metric name label. */
  public static final String METRIC_NAME = "__name__";

  /**
   * Orders strings by their UTF-8 encoding, byte by byte, unsigned. For BMP characters this equals
   * code point order; surrogate pairs are compared by code point, which is what UTF-8 order is.
   */
  public static final Comparator<String> UTF8_ORDER = LabelSet::compareUtf8;

  private final String[] names;
  private final String[] values;
  private int hash;

  /**
   * The series of some store's index with these labels, remembered by {@link SeriesIndex#get}
   * (which checks it belongs to that index); a cache that is not part of the value, so it takes
   * no part in equals or hashCode. Benign races: any thread may set it, to an equal-labelled ref.
   */
  transient volatile SeriesRef indexRef;

  private LabelSet(String[] names, String[] values) {
    this.names = sharedNames(names);
    this.values = values;
  }

  /**
   * Most distinct label-name lists shared, JVM-wide and first come (entries are never dropped);
   * beyond it a label set keeps its own array, which is only less sharing, never wrong.
   */
  static final int MAX_SHARED_NAME_LISTS = 4_096;

  private static final java.util.concurrent.ConcurrentHashMap<NameList, String[]> NAME_LISTS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @return an equal, shared names array: the series of one metric family carry the same label
   *     names, so 100,000 series need a few hundred arrays instead of 100,000 (about 4 MB of
   *     live heap on the remote-write bench). The arrays are never written after construction.
   */
  private static String[] sharedNames(String[] names) {
    NameList key = new NameList(names);
    String[] shared = NAME_LISTS.get(key);
    if (shared != null) {
      return shared;
    }
    if (NAME_LISTS.size() < MAX_SHARED_NAME_LISTS) {
      shared = NAME_LISTS.putIfAbsent(key, names);
      return shared != null ? shared : names;
    }
    return names;
  }

  /** A names array compared by content, as a key of {@link #NAME_LISTS}. */
  private record NameList(String[] names) {
    @Override
    public boolean equals(Object o) {
      return o instanceof NameList other && Arrays.equals(names, other.names);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(names);
    }
  }

  /**
   * Builds a label set from names and values that the caller already validated: no duplicate
   * names, no empty names. Empty values are dropped and the result is sorted.
   *
   * @param names label names, same length as {@code values}
   * @param values label values; empty strings mean "label absent" and are dropped
   * @return the canonical label set
   * @throws IllegalArgumentException if a name is empty or appears twice (the message names it)
   */
  public static LabelSet of(List<String> names, List<String> values) {
    if (names.size() != values.size()) {
      throw new IllegalArgumentException(
          "names and values differ in length: " + names.size() + " vs " + values.size());
    }
    Integer[] order = new Integer[names.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> compareUtf8(names.get(a), names.get(b)));
    List<String> n = new ArrayList<>(order.length);
    List<String> v = new ArrayList<>(order.length);
    String prev = null;
    for (Integer i : order) {
      String name = names.get(i);
      String value = values.get(i);
      if (name.isEmpty()) {
        throw new IllegalArgumentException("label with an empty name");
      }
      if (name.equals(prev)) {
        throw new IllegalArgumentException("duplicate label name \"" + name + "\"");
      }
      prev = name;
      if (!value.isEmpty()) {
        n.add(name);
        v.add(value);
      }
    }
    return new LabelSet(n.toArray(new String[0]), v.toArray(new String[0]));
  }

  /**
   * Convenience for tests and callers with literal pairs: {@code of("__name__", "up", "job", "x")}.
   *
   * @param nameValuePairs alternating names and values
   * @return the canonical label set
   * @throws IllegalArgumentException on an odd count, empty or duplicate names
   */
  public static LabelSet of(String... nameValuePairs) {
    if (nameValuePairs.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of arguments: " + nameValuePairs.length);
    }
    List<String> n = new ArrayList<>();
    List<String> v = new ArrayList<>();
    for (int i = 0; i < nameValuePairs.length; i += 2) {
      n.add(nameValuePairs[i]);
      v.add(nameValuePairs[i + 1]);
    }
    return of(n, v);
  }

  /**
   * Decodes the bytes written by {@link #encode()}.
   *
   * @param bytes an encoding produced by {@link #encode()}
   * @return the label set
   * @throws IllegalStateException if the bytes are not a valid encoding (a corrupted index entry)
   */
  public static LabelSet decode(byte[] bytes) {
    List<String> n = new ArrayList<>();
    List<String> v = new ArrayList<>();
    int pos = 0;
    try {
      while (pos < bytes.length) {
        int len = readVarint(bytes, pos);
        pos += varintSize(len);
        n.add(new String(bytes, pos, len, StandardCharsets.UTF_8));
        pos += len;
        len = readVarint(bytes, pos);
        pos += varintSize(len);
        v.add(new String(bytes, pos, len, StandardCharsets.UTF_8));
        pos += len;
      }
    } catch (IndexOutOfBoundsException e) {
      throw new IllegalStateException("corrupt label set encoding at byte " + pos, e);
    }
    return new LabelSet(n.toArray(new String[0]), v.toArray(new String[0]));
  }

  /**
   * The canonical byte encoding: for each label in order, varint(len(name)) name
   * varint(len(value)) value, all UTF-8. Equal label sets have equal encodings; the layout is
   * frozen (it is a RocksDB key).
   *
   * @return a fresh array the caller owns
   */
  public byte[] encode() {
    int size = 0;
    byte[][] parts = new byte[names.length * 2][];
    for (int i = 0; i < names.length; i++) {
      parts[2 * i] = names[i].getBytes(StandardCharsets.UTF_8);
      parts[2 * i + 1] = values[i].getBytes(StandardCharsets.UTF_8);
      size += varintSize(parts[2 * i].length) + parts[2 * i].length;
      size += varintSize(parts[2 * i + 1].length) + parts[2 * i + 1].length;
    }
    byte[] out = new byte[size];
    int pos = 0;
    for (byte[] p : parts) {
      pos = writeVarint(out, pos, p.length);
      System.arraycopy(p, 0, out, pos, p.length);
      pos += p.length;
    }
    return out;
  }

  /** @return the number of labels, 0 or more */
  public int size() {
    return names.length;
  }

  /**
   * @param i index in canonical order, 0 ≤ i &lt; {@link #size()}
   * @return the i-th label name
   */
  public String name(int i) {
    return names[i];
  }

  /**
   * @param i index in canonical order, 0 ≤ i &lt; {@link #size()}
   * @return the i-th label value, never empty
   */
  public String value(int i) {
    return values[i];
  }

  /**
   * @param name a label name
   * @return its value, or the empty string when the label is absent (PromQL semantics)
   */
  public String get(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return values[i];
      }
    }
    return "";
  }

  /**
   * @param name a label name
   * @return this label set without that label (this same object when it has none); no re-sort,
   *     the order stays canonical
   */
  public LabelSet without(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        String[] n = new String[names.length - 1];
        String[] v = new String[names.length - 1];
        System.arraycopy(names, 0, n, 0, i);
        System.arraycopy(names, i + 1, n, i, n.length - i);
        System.arraycopy(values, 0, v, 0, i);
        System.arraycopy(values, i + 1, v, i, v.length - i);
        return new LabelSet(n, v);
      }
    }
    return this;
  }

  /** @return the {@code __name__} value, or the empty string if absent */
  public String metricName() {
    return get(METRIC_NAME);
  }

  /** @return the labels as an insertion-ordered map, in canonical order */
  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < names.length; i++) {
      m.put(names[i], values[i]);
    }
    return m;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof LabelSet)) {
      return false;
    }
    LabelSet other = (LabelSet) o;
    return Arrays.equals(names, other.names) && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      // Murmur3's per-word mixing over the strings' hashes, not Arrays.hashCode: that polynomial
      // is linear, and structured label sets (host-12/gpu-3 vs host-13/gpu-2...) collided so
      // often that index lookups of 100,000 bench series spent a third of ingest in equals.
      h = 0x9747b28c;
      for (int i = 0; i < names.length; i++) {
        h = mixWord(h, names[i].hashCode());
        h = mixWord(h, values[i].hashCode());
      }
      h ^= names.length;
      h ^= h >>> 16;
      h *= 0x85ebca6b;
      h ^= h >>> 13;
      h *= 0xc2b2ae35;
      h ^= h >>> 16;
      if (h == 0) {
        h = 1;
      }
      hash = h;
    }
    return h;
  }

  /** One Murmur3 (x86, 32-bit) block step: mixes {@code k} into {@code h}. */
  private static int mixWord(int h, int k) {
    k *= 0xcc9e2d51;
    k = Integer.rotateLeft(k, 15);
    k *= 0x1b873593;
    h ^= k;
    h = Integer.rotateLeft(h, 13);
    return h * 5 + 0xe6546b64;
  }

  /** @return PromQL-style text, e.g. {@code {__name__="up", job="node"}} */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(names[i]).append("=\"");
      escape(sb, values[i]);
      sb.append('"');
    }
    return sb.append('}').toString();
  }

  private static void escape(StringBuilder sb, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\': sb.append("\\\\"); break;
        case '"': sb.append("\\\""); break;
        case '\n': sb.append("\\n"); break;
        default: sb.append(c);
      }
    }
  }

  /**
   * Compares two strings by their UTF-8 bytes (unsigned), without encoding them.
   *
   * @return negative, zero or positive as {@code a} sorts before, equal to or after {@code b}
   */
  public static int compareUtf8(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char ca = a.charAt(i);
      char cb = b.charAt(i);
      if (ca != cb) {
        // Surrogates (U+D800..U+DFFF) encode code points above U+FFFF, which sort after
        // U+E000..U+FFFF in UTF-8 but before them in UTF-16: fix the order up.
        boolean sa = Character.isSurrogate(ca);
        boolean sb = Character.isSurrogate(cb);
        if (sa != sb) {
          return sa ? 1 : -1;
        }
        return ca - cb;
      }
    }
    return a.length() - b.length();
  }

  private static int varintSize(int v) {
    int n = 1;
    while ((v & ~0x7F) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static int writeVarint(byte[] out, int pos, int v) {
    while ((v & ~0x7F) != 0) {
      out[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[pos++] = (byte) v;
    return pos;
  }

  private static int readVarint(byte[] in, int pos) {
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      byte b = in[pos++];
      result |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalStateException("varint too long at byte " + pos);
  }
}
