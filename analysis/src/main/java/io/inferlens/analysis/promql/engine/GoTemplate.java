package io.inferlens.analysis.promql.engine;

/**
 * Expands a replacement template the way Go's {@code regexp.Regexp.ExpandString} does, as
 * {@code label_replace} uses it: {@code $1} or {@code ${1}} is a group by number, {@code $name}
 * or {@code ${name}} by name, the longest run of letters, digits and {@code _} after {@code $}
 * being the name ({@code $1x} means the group named {@code 1x}); a missing group expands to
 * nothing; {@code $$} is a literal {@code $}; a {@code $} not followed by a name is kept as is.
 */
final class GoTemplate {

  private GoTemplate() {}

  /**
   * @param template the replacement text
   * @param m a matcher that matched
   * @return the expanded text
   */
  static String expand(String template, com.google.re2j.Matcher m) {
    StringBuilder sb = new StringBuilder();
    int i = 0;
    int n = template.length();
    while (i < n) {
      char c = template.charAt(i);
      if (c != '$') {
        sb.append(c);
        i++;
        continue;
      }
      if (i + 1 < n && template.charAt(i + 1) == '$') {
        sb.append('$');
        i += 2;
        continue;
      }
      String name;
      int next;
      if (i + 1 < n && template.charAt(i + 1) == '{') {
        int close = template.indexOf('}', i + 2);
        if (close < 0 || close == i + 2 || !isName(template, i + 2, close)) {
          sb.append('$');
          i++;
          continue;
        }
        name = template.substring(i + 2, close);
        next = close + 1;
      } else {
        int j = i + 1;
        while (j < n && isNameChar(template.charAt(j))) {
          j++;
        }
        if (j == i + 1) {
          sb.append('$');
          i++;
          continue;
        }
        name = template.substring(i + 1, j);
        next = j;
      }
      sb.append(group(m, name));
      i = next;
    }
    return sb.toString();
  }

  private static boolean isName(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (!isNameChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isNameChar(char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  private static String group(com.google.re2j.Matcher m, String name) {
    boolean digits = true;
    for (int i = 0; i < name.length(); i++) {
      if (name.charAt(i) < '0' || name.charAt(i) > '9') {
        digits = false;
        break;
      }
    }
    String g;
    if (digits) {
      int idx;
      try {
        idx = Integer.parseInt(name);
      } catch (NumberFormatException e) {
        return "";
      }
      if (idx > m.groupCount()) {
        return "";
      }
      g = m.group(idx);
    } else {
      try {
        g = m.group(name);
      } catch (IllegalArgumentException e) {
        return "";
      }
    }
    return g == null ? "" : g;
  }
}
