package io.inferlens.api;

import io.inferlens.storage.Matcher;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses a PromQL series selector as used in {@code match[]} parameters:
 * {@code metric_name}, {@code metric_name{label="v", other=~"re"}}, {@code {__name__=~"vllm:.*"}}.
 * Strings may use double quotes, single quotes (both with Go escapes) or backticks (raw). Names
 * that are not identifiers can be quoted as in Prometheus 3: {@code {"my metric", "a b"="v"}}.
 * Metric names may contain colons (vLLM's {@code vllm:num_requests_waiting}).
 *
 * <p>Source: the PromQL grammar for vector selectors (prometheus/promql/parser), restricted to
 * what {@code match[]} accepts: no range, offset or {@code @} modifiers.
 */
public final class SelectorParser {

  private final String text;
  private int pos;

  private SelectorParser(String text) {
    this.text = text;
  }

  /**
   * @param selector the selector text
   * @return its matchers, the metric name (if any) first as {@code __name__="…"}
   * @throws IllegalArgumentException if the text is not a selector, or selects everything (no
   *     matcher that fails on the empty string); the message quotes the selector and the position
   */
  public static List<Matcher> parse(String selector) {
    SelectorParser p = new SelectorParser(selector);
    List<Matcher> matchers = p.parseSelector();
    boolean bounded = false;
    for (Matcher m : matchers) {
      bounded |= !m.matchesEmpty();
    }
    if (!bounded) {
      throw new IllegalArgumentException("selector " + selector
          + " must contain at least one matcher that does not match the empty string");
    }
    return matchers;
  }

  /**
   * Like {@link #parse} but also accepts selectors whose matchers all match the empty string
   * (used to filter targets by label, where no series scan follows).
   *
   * @param selector the selector text
   * @return its matchers
   * @throws IllegalArgumentException if the text is not a selector
   */
  public static List<Matcher> parseAny(String selector) {
    return new SelectorParser(selector).parseSelector();
  }

  private List<Matcher> parseSelector() {
    List<Matcher> out = new ArrayList<>();
    skipSpace();
    if (pos < text.length() && isNameStart(text.charAt(pos), true)) {
      out.add(Matcher.eq("__name__", readName(true)));
      skipSpace();
    }
    if (pos < text.length() && text.charAt(pos) == '{') {
      pos++;
      skipSpace();
      while (pos < text.length() && text.charAt(pos) != '}') {
        String name;
        if (text.charAt(pos) == '"' || text.charAt(pos) == '\'' || text.charAt(pos) == '`') {
          // Prometheus 3 UTF-8 names: {"metric name"} or {"label name"="v"}.
          name = readString();
          skipSpace();
          if (pos >= text.length() || text.charAt(pos) == ',' || text.charAt(pos) == '}') {
            out.add(Matcher.eq("__name__", name));
            if (pos < text.length() && text.charAt(pos) == ',') {
              pos++;
              skipSpace();
            }
            continue;
          }
        } else {
          name = readName(false);
        }
        skipSpace();
        Matcher.Type type = readOp();
        skipSpace();
        String value = readString();
        try {
          out.add(new Matcher(type, name, value));
        } catch (IllegalArgumentException e) {
          throw error(e.getMessage());
        }
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == ',') {
          pos++;
          skipSpace();
        } else if (pos < text.length() && text.charAt(pos) != '}') {
          throw error("expected ',' or '}'");
        }
      }
      if (pos >= text.length()) {
        throw error("missing closing '}'");
      }
      pos++;
      skipSpace();
    }
    if (pos != text.length()) {
      throw error("unexpected text");
    }
    if (out.isEmpty()) {
      throw error("empty selector");
    }
    return out;
  }

  private Matcher.Type readOp() {
    if (text.startsWith("=~", pos)) {
      pos += 2;
      return Matcher.Type.RE;
    }
    if (text.startsWith("!~", pos)) {
      pos += 2;
      return Matcher.Type.NRE;
    }
    if (text.startsWith("!=", pos)) {
      pos += 2;
      return Matcher.Type.NEQ;
    }
    if (text.startsWith("=", pos)) {
      pos += 1;
      return Matcher.Type.EQ;
    }
    throw error("expected one of =, !=, =~, !~");
  }

  private String readName(boolean metric) {
    int start = pos;
    if (pos >= text.length() || !isNameStart(text.charAt(pos), metric)) {
      throw error("expected a " + (metric ? "metric" : "label") + " name");
    }
    pos++;
    while (pos < text.length() && isNameChar(text.charAt(pos), metric)) {
      pos++;
    }
    return text.substring(start, pos);
  }

  private String readString() {
    if (pos >= text.length()) {
      throw error("expected a quoted string");
    }
    char q = text.charAt(pos);
    if (q != '"' && q != '\'' && q != '`') {
      throw error("expected a quoted string");
    }
    pos++;
    StringBuilder sb = new StringBuilder();
    while (pos < text.length()) {
      char c = text.charAt(pos++);
      if (c == q) {
        return sb.toString();
      }
      if (c == '\\' && q != '`') {
        if (pos >= text.length()) {
          break;
        }
        char e = text.charAt(pos++);
        switch (e) {
          case 'n': sb.append('\n'); break;
          case 't': sb.append('\t'); break;
          case 'r': sb.append('\r'); break;
          case '\\': sb.append('\\'); break;
          case '"': sb.append('"'); break;
          case '\'': sb.append('\''); break;
          default:
            // Keep unknown escapes such as \d or \. so regexes written with one backslash work.
            sb.append('\\').append(e);
        }
      } else {
        sb.append(c);
      }
    }
    throw error("unterminated string");
  }

  private void skipSpace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private static boolean isNameStart(char c, boolean metric) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':');
  }

  private static boolean isNameChar(char c, boolean metric) {
    return isNameStart(c, metric) || (c >= '0' && c <= '9');
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(
        "invalid selector " + text + " at character " + pos + ": " + what);
  }
}
