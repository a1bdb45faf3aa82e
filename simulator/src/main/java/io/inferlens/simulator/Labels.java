package io.inferlens.simulator;

import java.util.Arrays;

/**
 * A label set rendered as prometheus_client renders it: label names sorted (the fixtures of
 * prometheus_client-based servers, multiprocess or not, write them sorted), values escaped by
 * {@link PromFormat#escape}. Immutable.
 */
final class Labels {

  /** No labels: renders as nothing. */
  static final Labels NONE = new Labels(new String[0], new String[0]);

  private final String[] names;
  private final String[] values;
  private final String text;

  private Labels(String[] names, String[] values) {
    this.names = names;
    this.values = values;
    this.text = render(null, null);
  }

  /**
   * @param nameValuePairs alternating label names and raw (unescaped) values, any order
   * @return the label set, names sorted
   * @throws IllegalArgumentException on an odd count
   */
  static Labels of(String... nameValuePairs) {
    if (nameValuePairs.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of arguments: " + nameValuePairs.length);
    }
    Integer[] order = new Integer[nameValuePairs.length / 2];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> nameValuePairs[2 * a].compareTo(nameValuePairs[2 * b]));
    String[] n = new String[order.length];
    String[] v = new String[order.length];
    for (int i = 0; i < order.length; i++) {
      n[i] = nameValuePairs[2 * order[i]];
      v[i] = PromFormat.escape(nameValuePairs[2 * order[i] + 1]);
    }
    return new Labels(n, v);
  }

  /** @return {@code {a="1",b="2"}}, or the empty string without labels */
  String text() {
    return text;
  }

  /**
   * @param name a label name not in this set, e.g. {@code le}
   * @param value its value, already in exposition form (not escaped again)
   * @return this set's text with that label inserted at its sorted place
   */
  String textWith(String name, String value) {
    return render(name, value);
  }

  private String render(String extraName, String extraValue) {
    if (names.length == 0 && extraName == null) {
      return "";
    }
    StringBuilder sb = new StringBuilder(64);
    sb.append('{');
    boolean inserted = extraName == null;
    boolean first = true;
    for (int i = 0; i < names.length; i++) {
      if (!inserted && extraName.compareTo(names[i]) < 0) {
        first = pair(sb, first, extraName, extraValue);
        inserted = true;
      }
      first = pair(sb, first, names[i], values[i]);
    }
    if (!inserted) {
      pair(sb, first, extraName, extraValue);
    }
    return sb.append('}').toString();
  }

  private static boolean pair(StringBuilder sb, boolean first, String n, String v) {
    if (!first) {
      sb.append(',');
    }
    sb.append(n).append("=\"").append(v).append('"');
    return false;
  }
}
