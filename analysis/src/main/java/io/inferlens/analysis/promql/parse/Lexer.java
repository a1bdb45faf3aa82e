package io.inferlens.analysis.promql.parse;

import io.inferlens.analysis.promql.ast.GoFormat;
import io.inferlens.analysis.promql.parse.Token.Kind;

/**
 * Splits a PromQL query into {@link Token}s, as Prometheus's lexer does ({@code
 * promql/parser/lex.go} at v2.42.0): the same tokens, the same modes (inside braces keywords are
 * plain identifiers; after {@code [} a duration is expected and any letter is a colon), and the
 * same error messages, which end the token stream with one {@link Kind#ERROR} token.
 *
 * <p>Positions are char indices into the query. Code points are read whole; a U+FFFD or a lone
 * surrogate stands for the invalid UTF-8 that Go reports as {@code invalid UTF-8 rune} in strings.
 *
 * <p>Thread safety: not thread-safe; one lexer per query.
 */
public final class Lexer {

  private static final int EOF = -1;

  private final String input;
  private int pos;
  private int start;
  /** Width in chars of the last code point read, for {@link #backup()}; 0 at the end. */
  private int width;

  private int parenDepth;
  private boolean braceOpen;
  private boolean bracketOpen;
  private boolean gotColon;
  /** After '[': the next token is lexed as a duration. */
  private boolean durationNext;
  private boolean done;

  /** @param input the query */
  public Lexer(String input) {
    this.input = input;
  }

  /**
   * Scans the next token. After an {@link Kind#ERROR} or {@link Kind#EOF} token every further
   * call returns {@link Kind#EOF}.
   *
   * @return the next token, comments included
   */
  public Token next() {
    if (done) {
      return new Token(Kind.EOF, start, "");
    }
    Token t = scan();
    if (t.kind() == Kind.ERROR || t.kind() == Kind.EOF) {
      done = true;
    }
    return t;
  }

  private Token scan() {
    while (true) {
      if (durationNext) {
        durationNext = false;
        return lexDuration();
      }
      if (braceOpen) {
        Token t = lexInsideBraces();
        if (t != null) {
          return t;
        }
        continue;
      }
      if (input.startsWith("#", pos)) {
        return lexComment();
      }
      int r = nextRune();
      if (r == EOF) {
        if (parenDepth != 0) {
          return error("unclosed left parenthesis");
        }
        if (bracketOpen) {
          return error("unclosed left bracket");
        }
        return emit(Kind.EOF);
      }
      if (isSpace(r)) {
        skipSpaces();
        continue;
      }
      switch (r) {
        case ',':
          return emit(Kind.COMMA);
        case '*':
          return emit(Kind.MUL);
        case '/':
          return emit(Kind.DIV);
        case '%':
          return emit(Kind.MOD);
        case '+':
          return emit(Kind.ADD);
        case '-':
          return emit(Kind.SUB);
        case '^':
          return emit(Kind.POW);
        case '=': {
          int t = peek();
          if (t == '=') {
            nextRune();
            return emit(Kind.EQLC);
          }
          if (t == '~') {
            return error("unexpected character after '=': " + GoFormat.quoteRune(t));
          }
          return emit(Kind.EQL);
        }
        case '!': {
          int t = nextRune();
          if (t == '=') {
            return emit(Kind.NEQ);
          }
          return error("unexpected character after '!': " + GoFormat.quoteRune(t));
        }
        case '<':
          if (peek() == '=') {
            nextRune();
            return emit(Kind.LTE);
          }
          return emit(Kind.LSS);
        case '>':
          if (peek() == '=') {
            nextRune();
            return emit(Kind.GTE);
          }
          return emit(Kind.GTR);
        case '"':
        case '\'':
          return lexString(r);
        case '`':
          return lexRawString();
        case '(':
          parenDepth++;
          return emit(Kind.LEFT_PAREN);
        case ')': {
          Token t = emit(Kind.RIGHT_PAREN);
          parenDepth--;
          if (parenDepth < 0) {
            return error("unexpected right parenthesis " + GoFormat.quoteRune(r));
          }
          return t;
        }
        case '{':
          braceOpen = true;
          return emit(Kind.LEFT_BRACE);
        case '[': {
          if (bracketOpen) {
            return error("unexpected left bracket " + GoFormat.quoteRune(r));
          }
          gotColon = false;
          Token t = emit(Kind.LEFT_BRACKET);
          if (isSpace(peek())) {
            skipSpaces();
          }
          bracketOpen = true;
          durationNext = true;
          return t;
        }
        case ']':
          if (!bracketOpen) {
            return error("unexpected right bracket " + GoFormat.quoteRune(r));
          }
          bracketOpen = false;
          return emit(Kind.RIGHT_BRACKET);
        case '@':
          return emit(Kind.AT);
        default:
          break;
      }
      if (isDigit(r) || (r == '.' && isDigit(peek()))) {
        backup();
        return lexNumberOrDuration();
      }
      if (isAlpha(r) || r == ':') {
        if (!bracketOpen) {
          backup();
          return lexKeywordOrIdentifier();
        }
        if (gotColon) {
          return error("unexpected colon " + GoFormat.quoteRune(r));
        }
        gotColon = true;
        return emit(Kind.COLON);
      }
      return error("unexpected character: " + GoFormat.quoteRune(r));
    }
  }

  /** One step inside braces; null when only spaces were skipped. */
  private Token lexInsideBraces() {
    if (input.startsWith("#", pos)) {
      return lexComment();
    }
    int r = nextRune();
    if (r == EOF) {
      return error("unexpected end of input inside braces");
    }
    if (isSpace(r)) {
      skipSpaces();
      return null;
    }
    if (isAlpha(r)) {
      while (isAlphaNumeric(nextRune())) {
        // absorb
      }
      backup();
      return emit(Kind.IDENTIFIER);
    }
    switch (r) {
      case ',':
        return emit(Kind.COMMA);
      case '"':
      case '\'':
        return lexString(r);
      case '`':
        return lexRawString();
      case '=':
        if (nextRune() == '~') {
          return emit(Kind.EQL_REGEX);
        }
        backup();
        return emit(Kind.EQL);
      case '!': {
        int nr = nextRune();
        if (nr == '~') {
          return emit(Kind.NEQ_REGEX);
        }
        if (nr == '=') {
          return emit(Kind.NEQ);
        }
        return error("unexpected character after '!' inside braces: " + GoFormat.quoteRune(nr));
      }
      case '{':
        return error("unexpected left brace " + GoFormat.quoteRune(r));
      case '}':
        braceOpen = false;
        return emit(Kind.RIGHT_BRACE);
      default:
        return error("unexpected character inside braces: " + GoFormat.quoteRune(r));
    }
  }

  private Token lexComment() {
    pos += 1;
    int r = nextRune();
    while (r != '\r' && r != '\n' && r != EOF) {
      r = nextRune();
    }
    backup();
    return emit(Kind.COMMENT);
  }

  /** A string in '...' or "...", Go escapes checked; the opening quote has been read. */
  private Token lexString(int quote) {
    while (true) {
      int r = nextRune();
      if (r == '\\') {
        String err = lexEscape(quote);
        if (err != null) {
          return error(err);
        }
        continue;
      }
      if (isInvalidRune(r)) {
        return error("invalid UTF-8 rune");
      }
      if (r == EOF || r == '\n') {
        return error("unterminated quoted string");
      }
      if (r == quote) {
        return emit(Kind.STRING);
      }
    }
  }

  /** Checks one escape after the backslash; returns the error message or null. */
  private String lexEscape(int quote) {
    int ch = nextRune();
    int n;
    int base;
    long max;
    switch (ch) {
      case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\':
        return null;
      case '0', '1', '2', '3', '4', '5', '6', '7':
        n = 3;
        base = 8;
        max = 255;
        break;
      case 'x':
        ch = nextRune();
        n = 2;
        base = 16;
        max = 255;
        break;
      case 'u':
        ch = nextRune();
        n = 4;
        base = 16;
        max = Character.MAX_CODE_POINT;
        break;
      case 'U':
        ch = nextRune();
        n = 8;
        base = 16;
        max = Character.MAX_CODE_POINT;
        break;
      case EOF:
        return "escape sequence not terminated";
      default:
        if (ch == quote) {
          return null;
        }
        return "unknown escape sequence " + GoFormat.unicodeSharp(ch);
    }
    long x = 0;
    while (n > 0) {
      int d = digitVal(ch);
      if (d >= base) {
        if (ch == EOF) {
          return "escape sequence not terminated";
        }
        return "illegal character " + GoFormat.unicodeSharp(ch) + " in escape sequence";
      }
      x = x * base + d;
      n--;
      if (n > 0) {
        ch = nextRune();
      }
    }
    if (x > max || (x >= 0xD800 && x < 0xE000)) {
      return "escape sequence is an invalid Unicode code point";
    }
    return null;
  }

  private Token lexRawString() {
    while (true) {
      int r = nextRune();
      if (isInvalidRune(r)) {
        return error("invalid UTF-8 rune");
      }
      if (r == EOF) {
        return error("unterminated raw string");
      }
      if (r == '`') {
        return emit(Kind.STRING);
      }
    }
  }

  /** The token after '[': a duration. */
  private Token lexDuration() {
    if (scanNumber()) {
      return error("missing unit character in duration");
    }
    if (!acceptRemainingDuration()) {
      return error("bad duration syntax: " + GoFormat.quote(input.substring(start, pos)));
    }
    backup();
    return emit(Kind.DURATION);
  }

  private Token lexNumberOrDuration() {
    if (scanNumber()) {
      return emit(Kind.NUMBER);
    }
    if (acceptRemainingDuration()) {
      backup();
      return emit(Kind.DURATION);
    }
    return error("bad number or duration syntax: " + GoFormat.quote(input.substring(start, pos)));
  }

  /** After the number part of a duration: units, more number-unit pairs, then no letter. */
  private boolean acceptRemainingDuration() {
    if (!accept("smhdwy")) {
      return false;
    }
    accept("s");
    while (accept("0123456789")) {
      while (accept("0123456789")) {
        // absorb
      }
      // 'y' may only come first.
      if (!accept("smhdw")) {
        return false;
      }
      accept("s");
    }
    return !isAlphaNumeric(nextRune());
  }

  /**
   * Scans decimal, hex or float digits; true when what follows is not alphanumeric. Whether the
   * text is a valid number is decided by the parser, as in Prometheus.
   */
  private boolean scanNumber() {
    String digits = "0123456789";
    if (accept("0") && accept("xX")) {
      digits = "0123456789abcdefABCDEF";
    }
    acceptRun(digits);
    if (accept(".")) {
      acceptRun(digits);
    }
    if (accept("eE")) {
      accept("+-");
      acceptRun("0123456789");
    }
    return !isAlphaNumeric(peek());
  }

  private Token lexKeywordOrIdentifier() {
    int r = nextRune();
    while (isAlphaNumeric(r) || r == ':') {
      r = nextRune();
    }
    backup();
    String word = input.substring(start, pos);
    Kind kw = Token.keyword(word);
    if (kw != null) {
      return emit(kw);
    }
    return emit(word.indexOf(':') < 0 ? Kind.IDENTIFIER : Kind.METRIC_IDENTIFIER);
  }

  private Token emit(Kind kind) {
    Token t = new Token(kind, start, input.substring(start, pos));
    start = pos;
    return t;
  }

  private Token error(String message) {
    return new Token(Kind.ERROR, start, message);
  }

  private void skipSpaces() {
    while (isSpace(peek())) {
      nextRune();
    }
    start = pos;
  }

  private int nextRune() {
    if (pos >= input.length()) {
      width = 0;
      return EOF;
    }
    int r = input.codePointAt(pos);
    width = Character.charCount(r);
    pos += width;
    return r;
  }

  private int peek() {
    int r = nextRune();
    backup();
    return r;
  }

  private void backup() {
    pos -= width;
  }

  private boolean accept(String valid) {
    int r = nextRune();
    if (r != EOF && valid.indexOf(r) >= 0) {
      return true;
    }
    backup();
    return false;
  }

  private void acceptRun(String valid) {
    while (accept(valid)) {
      // absorb
    }
  }

  private static boolean isInvalidRune(int r) {
    return r == 0xFFFD || (r >= Character.MIN_SURROGATE && r <= Character.MAX_SURROGATE);
  }

  private static int digitVal(int ch) {
    if (ch >= '0' && ch <= '9') {
      return ch - '0';
    }
    if (ch >= 'a' && ch <= 'f') {
      return ch - 'a' + 10;
    }
    if (ch >= 'A' && ch <= 'F') {
      return ch - 'A' + 10;
    }
    return 16;
  }

  /** @return whether {@code r} is a PromQL space: space, tab, newline, carriage return */
  static boolean isSpace(int r) {
    return r == ' ' || r == '\t' || r == '\n' || r == '\r';
  }

  private static boolean isDigit(int r) {
    return r >= '0' && r <= '9';
  }

  private static boolean isAlpha(int r) {
    return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
  }

  private static boolean isAlphaNumeric(int r) {
    return isAlpha(r) || isDigit(r);
  }

  /**
   * @param s a name
   * @return whether it is a valid label name: a letter or underscore, then letters, digits,
   *     underscores ({@code isLabel} in lex.go)
   */
  static boolean isLabel(String s) {
    if (s.isEmpty() || !isAlpha(s.charAt(0))) {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      if (!isAlphaNumeric(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
