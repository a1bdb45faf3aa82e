package io.inferlens.storage;

import java.util.HashSet;
import java.util.Set;

/**
 * Rewrites a regex in Go's syntax (Go 1.19 {@code regexp/syntax}, which PromQL uses) into an
 * equivalent one that RE2/J 1.8 compiles the same way. RE2/J is a port of Go's parser but differs
 * in two places, both of which reject patterns Go accepts:
 *
 * <ul>
 *   <li>A {@code {} that does not start a repeat such as {@code {2}} or {@code {1,3}} is a
 *       literal in Go; RE2/J then refuses a repetition operator after it ({@code x{*}: "invalid
 *       nested repetition operator"). Such braces are escaped: {@code x\{*}.
 *   <li>Go allows two capture groups of one name ({@code (?P<n>a)|(?P<n>b)}); RE2/J does not.
 *       Later groups of a name get a fresh one (names do not change what matches).
 * </ul>
 *
 * <p>Everything else is copied as written, so errors RE2/J reports are Go's. Escapes,
 * {@code \Q...\E} and character classes are copied whole.
 */
public final class GoRegexSyntax {

  private GoRegexSyntax() {}

  /**
   * @param re a regex in Go syntax, as written in a PromQL matcher
   * @return a regex RE2/J compiles to the same matching, usually {@code re} itself
   */
  public static String forRe2j(String re) {
    if (re.indexOf('{') < 0 && !re.contains("(?P<")) {
      return re;
    }
    StringBuilder out = new StringBuilder(re.length() + 8);
    Set<String> names = new HashSet<>();
    int i = 0;
    while (i < re.length()) {
      char c = re.charAt(i);
      if (c == '\\') {
        i = copyEscape(re, i, out);
      } else if (c == '[') {
        i = copyClass(re, i, out);
      } else if (c == '{') {
        if (!isRepeat(re, i)) {
          out.append('\\');
        }
        out.append(c);
        i++;
      } else if (c == '(' && re.startsWith("?P<", i + 1)) {
        int close = re.indexOf('>', i + 4);
        if (close < 0) {
          out.append(re, i, re.length());
          return out.toString();
        }
        String name = re.substring(i + 4, close);
        if (!names.add(name)) {
          String fresh = name;
          for (int n = 2; re.contains(fresh) || names.contains(fresh); n++) {
            fresh = name + "_" + n;
          }
          names.add(fresh);
          name = fresh;
        }
        out.append("(?P<").append(name).append('>');
        i = close + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Copies the escape at {@code i} (a backslash); returns the index after it. */
  private static int copyEscape(String re, int i, StringBuilder out) {
    if (i + 1 >= re.length()) {
      out.append('\\');
      return i + 1;
    }
    char e = re.charAt(i + 1);
    int end = i + 2;
    if (e == 'Q') {
      int q = re.indexOf("\\E", end);
      end = q < 0 ? re.length() : q + 2;
    } else if ((e == 'p' || e == 'P' || e == 'x') && end < re.length() && re.charAt(end) == '{') {
      int close = re.indexOf('}', end);
      end = close < 0 ? re.length() : close + 1;
    } else if (Character.isHighSurrogate(e) && end < re.length()) {
      end++;
    }
    out.append(re, i, end);
    return end;
  }

  /** Copies the character class at {@code i} (a '['); returns the index after it. */
  private static int copyClass(String re, int i, StringBuilder out) {
    int j = i + 1;
    if (j < re.length() && re.charAt(j) == '^') {
      j++;
    }
    // A ']' first in the class is a member.
    if (j < re.length() && re.charAt(j) == ']') {
      j++;
    }
    while (j < re.length() && re.charAt(j) != ']') {
      if (re.charAt(j) == '\\') {
        j += 2;
      } else if (re.startsWith("[:", j)) {
        int close = re.indexOf(":]", j + 2);
        j = close < 0 ? j + 1 : close + 2;
      } else {
        j++;
      }
    }
    int end = Math.min(j + 1, re.length());
    out.append(re, i, end);
    return end;
  }

  /**
   * Whether the '{' at {@code i} starts a repeat as Go's {@code parseRepeat} reads one:
   * {@code {n}}, {@code {n,}} or {@code {n,m}}, numbers without leading zeros.
   */
  private static boolean isRepeat(String re, int i) {
    int j = number(re, i + 1);
    if (j < 0) {
      return false;
    }
    if (j < re.length() && re.charAt(j) == ',') {
      j++;
      if (j < re.length() && re.charAt(j) != '}') {
        j = number(re, j);
        if (j < 0) {
          return false;
        }
      }
    }
    return j < re.length() && re.charAt(j) == '}';
  }

  /** The index after a number at {@code i}, or -1 if none (or it has a leading zero). */
  private static int number(String re, int i) {
    int j = i;
    while (j < re.length() && re.charAt(j) >= '0' && re.charAt(j) <= '9') {
      j++;
    }
    if (j == i || (j - i > 1 && re.charAt(i) == '0')) {
      return -1;
    }
    return j;
  }
}
