package io.inferlens.analysis.rules;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes rule groups as a Prometheus rule file (Prometheus docs, "Recording rules" → "Syntax
 * of rule files": {@code groups:}, each with {@code name} and {@code rules}; no
 * {@code interval}, so the global evaluation interval applies). Values are written by Jackson's
 * YAML generator (SnakeYAML), which quotes whatever YAML would read as another type or
 * structure ({@code on}, {@code 0.5}, {@code a: b}, {@code #x}); multi-line expressions and
 * annotations are literal blocks ({@code |-}). Comments, which Jackson cannot write, are placed
 * between the groups at column 0.
 *
 * <p>Thread safe.
 */
public final class RulesYaml {

  private static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      // A label value such as 0.5 stays a string for any YAML reader, not only Prometheus's.
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
      // One line per PromQL line and sentence, as a person would write the file.
      .disable(YAMLGenerator.Feature.SPLIT_LINES)
      .build());

  private RulesYaml() {}

  /**
   * @param header lines written first as comments (without {@code #})
   * @param groups the groups, in order; a group without rules is written as comments only
   *     (Prometheus loads an empty group, but it would only clutter its rules page)
   * @return the file's text, UTF-8 when written; {@code groups: []} when no group has a rule
   */
  public static String render(List<String> header, List<RuleGroup> groups) {
    StringBuilder sb = new StringBuilder();
    for (String h : header) {
      comment(sb, h);
    }
    boolean any = groups.stream().anyMatch(g -> !g.rules().isEmpty());
    sb.append(any ? "groups:\n" : "groups: []\n");
    for (RuleGroup g : groups) {
      if (g.rules().isEmpty()) {
        comment(sb, g.name() + ": no rules written");
      }
      for (String c : g.comments()) {
        comment(sb, g.name() + ": " + c);
      }
      if (!g.rules().isEmpty()) {
        sb.append(write(List.of(toMap(g))));
      }
    }
    return sb.toString();
  }

  private static void comment(StringBuilder sb, String text) {
    for (String line : text.split("\n", -1)) {
      sb.append(line.isEmpty() ? "#" : "# " + line).append('\n');
    }
  }

  private static Map<String, Object> toMap(RuleGroup g) {
    List<Map<String, Object>> rules = new ArrayList<>();
    for (AlertRule r : g.rules()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("alert", r.alert());
      m.put("expr", r.expr());
      m.put("for", r.forDuration());
      m.put("labels", r.labels());
      m.put("annotations", r.annotations());
      rules.add(m);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", g.name());
    m.put("rules", rules);
    return m;
  }

  private static String write(Object value) {
    try {
      return YAML.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
