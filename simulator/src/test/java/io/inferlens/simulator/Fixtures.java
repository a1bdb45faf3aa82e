package io.inferlens.simulator;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the exposition fixtures of {@code fixtures/} and parses exposition text just enough for
 * shape checks.
 */
final class Fixtures {

  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private Fixtures() {}

  /**
   * A fixture file's text, from the test classpath: {@code fixtures/} at the repository root (see
   * {@code fixtures/README.md}) is on every module's test classpath under {@code fixtures/} (parent
   * {@code pom.xml}), so this works in whichever module the test lives.
   */
  static String read(String name) throws IOException {
    String resource = "/fixtures/" + name;
    try (InputStream in = Fixtures.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("fixture " + resource + " is not on the test classpath"
            + " (fixtures/ at the repository root, added as a test resource by the parent pom.xml)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** One sample line. */
  record Sample(String name, Map<String, String> labels, double value) {
    String label(String k) {
      return labels.get(k);
    }
  }

  static List<Sample> samples(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new AssertionError("unparsable sample line: " + line);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      double v = Double.parseDouble(m.group(4).replace("+Inf", "Infinity"));
      out.add(new Sample(m.group(1), labels, v));
    }
    return out;
  }

  /** {@code # HELP} and {@code # TYPE} lines, in order. */
  static Set<String> metaLines(String text, String prefix) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : text.split("\n")) {
      if (line.startsWith(prefix)) {
        out.add(line);
      }
    }
    return out;
  }

  /** For every metric name, the label names in the order they are written (one entry per shape). */
  static Set<String> labelShapes(String text) {
    Set<String> out = new LinkedHashSet<>();
    for (Sample s : samples(text)) {
      out.add(s.name() + s.labels().keySet());
    }
    return out;
  }
}
