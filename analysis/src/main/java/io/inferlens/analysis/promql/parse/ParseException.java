package io.inferlens.analysis.promql.parse;

import io.inferlens.analysis.promql.ast.GoFormat;

/**
 * A query that is not valid PromQL: a syntax error, a bad literal, or a type error. The message
 * is Prometheus 2.42's ({@code ParseErr.Error} in {@code promql/parser/parse.go}):
 * {@code <line>:<column>: parse error: <detail>}, such as
 * {@code 1:9: parse error: unexpected end of input}. As in Prometheus, the line is 1-based and
 * the column is the 1-based byte offset (UTF-8) from the start of the line.
 */
public final class ParseException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final int position;
  private final int line;
  private final int column;
  private final String detail;

  /**
   * @param query the whole query
   * @param position where the error is, a char index into {@code query} (0 to its length)
   * @param detail the message after {@code parse error: }
   */
  ParseException(String query, int position, String detail) {
    this(position, lineOf(query, position), columnOf(query, position), detail);
  }

  private ParseException(int position, int line, int column, String detail) {
    super(line + ":" + column + ": parse error: " + detail);
    this.position = position;
    this.line = line;
    this.column = column;
    this.detail = detail;
  }

  private static int lineOf(String query, int position) {
    int line = 1;
    for (int i = 0; i < position; i++) {
      if (query.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  private static int columnOf(String query, int position) {
    int lineStart = query.lastIndexOf('\n', position - 1) + 1;
    // Go: pos - lastLineBreak, both byte offsets, so the column is 1-based.
    return GoFormat.utf8Length(query, lineStart, position) + 1;
  }

  /** @return the char index into the query where the error is */
  public int position() {
    return position;
  }

  /** @return the 1-based line */
  public int line() {
    return line;
  }

  /** @return the 1-based column, in UTF-8 bytes from the start of the line */
  public int column() {
    return column;
  }

  /** @return the message without the position, such as {@code unexpected end of input} */
  public String detail() {
    return detail;
  }
}
