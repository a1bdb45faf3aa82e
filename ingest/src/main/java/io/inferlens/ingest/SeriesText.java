package io.inferlens.ingest;

import io.inferlens.storage.LabelSet;
import java.time.Instant;

/**
 * How remote-write error messages name a series and its strings: the labels as sent, PromQL
 * style, each name and value escaped and cut so that a 1 MiB value never makes a 1 MiB message
 * (Mimir cuts label values in its messages the same way). Stateless.
 */
final class SeriesText {

  /** Error messages quote at most this many characters of a series' labels. */
  static final int MAX_SERIES_TEXT_CHARS = 1024;

  /** Error messages quote at most this many characters of one label name or value (as Mimir). */
  static final int MAX_STRING_TEXT_CHARS = 200;

  private SeriesText() {}

  /**
   * The labels as sent (before canonicalisation), PromQL style, the first {@code __name__} label
   * moved to the front so that the metric name is always named, each name and value cut at
   * {@value #MAX_STRING_TEXT_CHARS} characters, the whole capped at about
   * {@value #MAX_SERIES_TEXT_CHARS} characters.
   *
   * @param names label names in the order sent, {@code [0, count)} used
   * @param values their values, parallel
   * @param count the number of labels, &ge; 0
   * @return e.g. {@code {__name__="up", job="a"}}
   */
  static String of(String[] names, String[] values, int count) {
    int metric = -1;
    for (int i = 0; i < count && metric < 0; i++) {
      if (names[i].equals(LabelSet.METRIC_NAME)) {
        metric = i;
      }
    }
    StringBuilder sb = new StringBuilder("{");
    if (metric >= 0) {
      appendLabel(sb, names[metric], values[metric]);
    }
    for (int i = 0; i < count && sb.length() < MAX_SERIES_TEXT_CHARS; i++) {
      if (i != metric) {
        appendLabel(sb, names[i], values[i]);
      }
    }
    if (sb.length() >= MAX_SERIES_TEXT_CHARS) {
      sb.setLength(MAX_SERIES_TEXT_CHARS);
      sb.append("...");
    }
    return sb.append('}').toString();
  }

  private static void appendLabel(StringBuilder sb, String name, String value) {
    if (sb.length() > 1) {
      sb.append(", ");
    }
    appendCut(sb, name);
    sb.append('=');
    appendQuoted(sb, value);
  }

  /** @return {@code s} in double quotes, escaped, cut at {@value #MAX_STRING_TEXT_CHARS} chars */
  static String quoted(String s) {
    StringBuilder sb = new StringBuilder(Math.min(s.length(), MAX_STRING_TEXT_CHARS) + 8);
    appendQuoted(sb, s);
    return sb.toString();
  }

  private static void appendQuoted(StringBuilder sb, String s) {
    sb.append('"');
    appendCut(sb, s);
    sb.append('"');
  }

  /**
   * Appends {@code s} escaped as a PromQL string body, its first {@value #MAX_STRING_TEXT_CHARS}
   * characters followed by "..." when longer.
   */
  private static void appendCut(StringBuilder sb, String s) {
    int n = Math.min(s.length(), MAX_STRING_TEXT_CHARS);
    for (int k = 0; k < n; k++) {
      char c = s.charAt(k);
      switch (c) {
        case '\\': sb.append("\\\\"); break;
        case '"': sb.append("\\\""); break;
        case '\n': sb.append("\\n"); break;
        default: sb.append(c);
      }
    }
    if (s.length() > n) {
      sb.append("...");
    }
  }

  /** @return e.g. "1 float sample", "2 float samples" */
  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /** @return {@code ms} (epoch milliseconds) as an ISO-8601 UTC instant */
  static String instant(long ms) {
    return Instant.ofEpochMilli(ms).toString();
  }
}
