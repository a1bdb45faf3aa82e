package io.inferlens.analysis.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small Prometheus text-format (0.0.4) parser for tests: {@code name{labels} value [timestamp]}
 * lines, {@code # TYPE} comments remembered per family, other comments and blank lines skipped.
 * Handles escaped label values ({@code \\}, {@code \"}, {@code \n}), Go/Python/C++ number
 * spellings ({@code 4.1237590784e+010}, {@code 1.912345e+06}, {@code +Inf}, {@code -Inf},
 * {@code NaN}). Not a validating parser: it trusts well-formed input and throws
 * {@link IllegalArgumentException} with the line number on anything it cannot read.
 */
public final class ExpositionParser {

  /** The family type from a {@code # TYPE} line. */
  public enum Type { COUNTER, GAUGE, HISTOGRAM, SUMMARY, UNTYPED }

  /**
   * One sample line.
   *
   * @param name the metric name
   * @param labels labels in line order, unescaped
   * @param value the value
   * @param type the type of its family ({@code _bucket}/{@code _sum}/{@code _count}/{@code _total}
   *     resolved to the declared family), UNTYPED when none was declared
   */
  public record Sample(String name, Map<String, String> labels, double value, Type type) {}

  private ExpositionParser() {}

  /**
   * @param text a whole exposition
   * @return the samples in file order
   */
  public static List<Sample> parse(String text) {
    Map<String, Type> types = new HashMap<>();
    List<Sample> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        String[] parts = line.split("\\s+");
        if (parts.length >= 4 && parts[1].equals("TYPE")) {
          types.put(parts[2], Type.valueOf(parts[3].toUpperCase(java.util.Locale.ROOT)));
        }
        continue;
      }
      try {
        out.add(sample(line, types));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage() + ": " + line, e);
      }
    }
    return out;
  }

  private static Sample sample(String line, Map<String, Type> types) {
    int pos = 0;
    while (pos < line.length() && line.charAt(pos) != '{' && !Character.isWhitespace(line.charAt(pos))) {
      pos++;
    }
    String name = line.substring(0, pos);
    if (name.isEmpty()) {
      throw new IllegalArgumentException("no metric name");
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (pos < line.length() && line.charAt(pos) == '{') {
      pos++;
      while (true) {
        pos = skipSpaces(line, pos);
        if (line.charAt(pos) == '}') {
          pos++;
          break;
        }
        int eq = line.indexOf('=', pos);
        String label = line.substring(pos, eq).strip();
        pos = skipSpaces(line, eq + 1);
        if (line.charAt(pos) != '"') {
          throw new IllegalArgumentException("label value of " + label + " is not quoted");
        }
        pos++;
        StringBuilder v = new StringBuilder();
        while (line.charAt(pos) != '"') {
          char c = line.charAt(pos++);
          if (c == '\\') {
            char n = line.charAt(pos++);
            v.append(n == 'n' ? '\n' : n);
          } else {
            v.append(c);
          }
        }
        pos++;
        labels.put(label, v.toString());
        pos = skipSpaces(line, pos);
        if (line.charAt(pos) == ',') {
          pos++;
        }
      }
    }
    String[] rest = line.substring(pos).strip().split("\\s+");
    return new Sample(name, Collections.unmodifiableMap(labels), number(rest[0]), typeOf(name, types));
  }

  private static int skipSpaces(String s, int pos) {
    while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
      pos++;
    }
    return pos;
  }

  /**
   * @param text a sample value as exporters print it
   * @return the double
   */
  public static double number(String text) {
    switch (text) {
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        return Double.parseDouble(text); // accepts 4.1237590784e+010 and 1.912345e+06
    }
  }

  private static Type typeOf(String name, Map<String, Type> types) {
    Type t = types.get(name);
    if (t != null) {
      return t;
    }
    for (String suffix : new String[] {"_bucket", "_sum", "_count", "_total", "_created"}) {
      if (name.endsWith(suffix)) {
        t = types.get(name.substring(0, name.length() - suffix.length()));
        if (t != null) {
          return t;
        }
      }
    }
    return Type.UNTYPED;
  }
}
