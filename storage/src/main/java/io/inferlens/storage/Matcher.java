package io.inferlens.storage;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Objects;

/**
 * A label matcher as in PromQL: {@code name=value}, {@code name!=value}, {@code name=~regex},
 * {@code name!~regex}. Regexes are fully anchored (PromQL wraps them as {@code ^(?:re)$}); an
 * absent label matches as the empty string, so {@code foo=""} selects series without {@code foo}.
 *
 * <p>Regexes use RE2 syntax and semantics, as PromQL does (Go's {@code regexp}), through RE2/J:
 * matching takes time linear in the input, so a pathological pattern such as
 * {@code (x+x+)+y} cannot stall a query (java.util.regex backtracks exponentially on it).
 *
 * <p>Thread safety: immutable.
 */
public final class Matcher {

  /** The four PromQL matcher types. */
  public enum Type {
    /** {@code =} */
    EQ("="),
    /** {@code !=} */
    NEQ("!="),
    /** {@code =~}, anchored */
    RE("=~"),
    /** {@code !~}, anchored */
    NRE("!~");

    private final String op;

    Type(String op) {
      this.op = op;
    }

    /** @return the PromQL operator text */
    public String op() {
      return op;
    }
  }

  private final Type type;
  private final String name;
  private final String value;
  private final Pattern pattern;

  /**
   * @param type the matcher type
   * @param name the label name, not empty
   * @param value the value or regex
   * @throws IllegalArgumentException if the name is empty or the regex does not compile; the
   *     message names the matcher
   */
  public Matcher(Type type, String name, String value) {
    this.type = Objects.requireNonNull(type, "type");
    this.name = Objects.requireNonNull(name, "name");
    this.value = Objects.requireNonNull(value, "value");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("matcher with an empty label name");
    }
    if (type == Type.RE || type == Type.NRE) {
      try {
        // GoRegexSyntax mends the two places where RE2/J rejects what Go accepts. No DOTALL:
        // Prometheus 2.42's FastRegexMatcher compiles "^(?:v)$", so '.' does not match '\n'.
        this.pattern = Pattern.compile("^(?:" + GoRegexSyntax.forRe2j(value) + ")$");
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(
            "invalid regex in matcher " + name + type.op() + "\"" + value + "\": "
                + e.getDescription(), e);
      }
    } else {
      this.pattern = null;
    }
  }

  /** Shorthand for {@code new Matcher(Type.EQ, name, value)}. */
  public static Matcher eq(String name, String value) {
    return new Matcher(Type.EQ, name, value);
  }

  /** Shorthand for {@code new Matcher(Type.NEQ, name, value)}. */
  public static Matcher neq(String name, String value) {
    return new Matcher(Type.NEQ, name, value);
  }

  /** Shorthand for {@code new Matcher(Type.RE, name, regex)}. */
  public static Matcher re(String name, String regex) {
    return new Matcher(Type.RE, name, regex);
  }

  /** Shorthand for {@code new Matcher(Type.NRE, name, regex)}. */
  public static Matcher nre(String name, String regex) {
    return new Matcher(Type.NRE, name, regex);
  }

  /**
   * @param labelValue the series' value of {@link #name()}, the empty string when absent
   * @return whether the value satisfies this matcher
   */
  public boolean matches(String labelValue) {
    switch (type) {
      case EQ:
        return value.equals(labelValue);
      case NEQ:
        return !value.equals(labelValue);
      case RE:
        return pattern.matcher(labelValue).matches();
      case NRE:
        return !pattern.matcher(labelValue).matches();
      default:
        throw new AssertionError("unknown matcher type " + type);
    }
  }

  /** @return whether this matcher matches a series that lacks the label */
  public boolean matchesEmpty() {
    return matches("");
  }

  /** @return the matcher type */
  public Type type() {
    return type;
  }

  /** @return the label name */
  public String name() {
    return name;
  }

  /** @return the value or regex as given */
  public String value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Matcher)) {
      return false;
    }
    Matcher m = (Matcher) o;
    return type == m.type && name.equals(m.name) && value.equals(m.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, name, value);
  }

  @Override
  public String toString() {
    return name + type.op + "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
