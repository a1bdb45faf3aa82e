package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Regexes Go 1.19 accepts (checked against Prometheus 2.42) but RE2/J 1.8 rejects as written, and
 * that they match as Go matches them.
 */
class GoRegexSyntaxTest {

  @Test
  void literalBraceBeforeARepetitionIsEscaped() {
    assertThat(GoRegexSyntax.forRe2j("x{*")).isEqualTo("x\\{*");
    assertThat(GoRegexSyntax.forRe2j("{{2,}")).isEqualTo("\\{{2,}");
    // Go reads "{01}" as literal text: no leading zeros in a repeat count.
    assertThat(GoRegexSyntax.forRe2j("a{01}")).isEqualTo("a\\{01}");
    Matcher m = Matcher.re("a", "x{*");
    assertThat(m.matches("x")).isTrue();
    assertThat(m.matches("x{{")).isTrue();
    assertThat(m.matches("xx")).isFalse();
    assertThat(Matcher.re("a", "a{01}").matches("a{01}")).isTrue();
  }

  @Test
  void repeatsEscapesClassesAndQuotesAreKept() {
    for (String re : new String[] {"a{2}", "a{2,}", "a{1,3}b", "\\p{Greek}+", "\\x{41}",
        "[{]*", "[]{]", "[[:alpha:]{]", "\\Q{*\\E", "\\{*", "(?i)abc|def"}) {
      assertThat(GoRegexSyntax.forRe2j(re)).as(re).isEqualTo(re);
    }
    assertThat(Matcher.re("a", "\\Q{*\\E").matches("{*")).isTrue();
  }

  @Test
  void repeatedGroupNamesGetFreshOnes() {
    assertThat(GoRegexSyntax.forRe2j("(?P<n>a)|(?P<n>b)")).isEqualTo("(?P<n>a)|(?P<n_2>b)");
    Matcher m = Matcher.re("a", "(?P<n>a)|(?P<n>b)");
    assertThat(m.matches("b")).isTrue();
    assertThat(m.matches("c")).isFalse();
  }
}
