package io.inferlens.analysis.promql.parse;

import io.inferlens.analysis.promql.ast.AggregationOp;
import io.inferlens.analysis.promql.ast.BinaryOp;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Expr.VectorMatching.Cardinality;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.promql.ast.GoFormat;
import io.inferlens.analysis.promql.ast.LargeStack;
import io.inferlens.analysis.promql.ast.ValueType;
import io.inferlens.analysis.promql.parse.Literals.LiteralException;
import io.inferlens.analysis.promql.parse.Token.Kind;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A hand-written parser for PromQL as Prometheus 2.42 accepts it: precedence climbing for
 * binary operators, recursive descent for the rest, then the type checks of {@link TypeChecker}.
 * It accepts exactly what Prometheus's yacc grammar ({@code promql/parser/generated_parser.y} at
 * v2.42.0) and {@code parse.go} accept, builds the same tree, and fails with the same first
 * error message at the same position:
 *
 * <ul>
 *   <li>Precedence, loosest first: {@code or}; {@code and unless}; comparisons; {@code + -};
 *       {@code * / % atan2}; {@code ^} (right-associative). Unary {@code -}/{@code +} binds like
 *       {@code *}, so {@code -2^2} is {@code -(2^2)}; on a number literal it is folded into the
 *       literal. {@code [..]}, {@code offset} and {@code @} bind to the operand just before them.
 *   <li>Keywords that Prometheus lets stand for a metric name ({@code sum}, {@code by},
 *       {@code and}, {@code offset}, {@code start}, ...) are metric names where an expression
 *       starts; an aggregator is an aggregation only when {@code (}, {@code by} or
 *       {@code without} follows.
 *   <li>A syntax error is reported as {@code unexpected <token>} with the context yacc's error
 *       rules give ({@code in aggregation}, {@code in grouping opts, expected label}, ...),
 *       chosen from a stack of the constructs being parsed, innermost first.
 * </ul>
 *
 * <p>Thread safety: each call parses with its own state; the class is safe to use from any
 * thread.
 */
public final class Parser {

  /** Tokens that may start an expression (FIRST(expr) of the grammar). */
  private static final Set<Kind> EXPR_START = EnumSet.of(Kind.NUMBER, Kind.STRING,
      Kind.LEFT_PAREN, Kind.LEFT_BRACE, Kind.IDENTIFIER, Kind.METRIC_IDENTIFIER, Kind.ADD,
      Kind.SUB, Kind.AVG, Kind.BOTTOMK, Kind.COUNT, Kind.COUNT_VALUES, Kind.GROUP, Kind.MAX,
      Kind.MIN, Kind.QUANTILE, Kind.STDDEV, Kind.STDVAR, Kind.SUM, Kind.TOPK, Kind.BY, Kind.LAND,
      Kind.LOR, Kind.LUNLESS, Kind.OFFSET, Kind.START, Kind.END, Kind.WITHOUT);

  /** Keywords that are metric names where an expression starts (metric_identifier). */
  private static final Set<Kind> NAME_KEYWORDS = EnumSet.of(Kind.BY, Kind.LAND, Kind.LOR,
      Kind.LUNLESS, Kind.OFFSET, Kind.START, Kind.END, Kind.WITHOUT);

  /** Tokens that are label names in {@code by (...)} and the like (maybe_label). */
  private static final Set<Kind> MAYBE_LABEL = EnumSet.of(Kind.AVG, Kind.BOOL, Kind.BOTTOMK,
      Kind.BY, Kind.COUNT, Kind.COUNT_VALUES, Kind.GROUP, Kind.GROUP_LEFT, Kind.GROUP_RIGHT,
      Kind.IDENTIFIER, Kind.IGNORING, Kind.LAND, Kind.LOR, Kind.LUNLESS, Kind.MAX,
      Kind.METRIC_IDENTIFIER, Kind.MIN, Kind.OFFSET, Kind.ON, Kind.QUANTILE, Kind.STDDEV,
      Kind.STDVAR, Kind.SUM, Kind.TOPK, Kind.START, Kind.END, Kind.ATAN2);

  private static final String OFFSET_TARGET = "offset modifier must be preceded by an instant "
      + "vector selector or range vector selector or a subquery";
  private static final String AT_TARGET = "@ modifier must be preceded by an instant vector "
      + "selector or range vector selector or a subquery";

  private final String input;
  private final Lexer lexer;
  /** The lookahead, or null when the next token has not been read yet. */
  private Token lookahead;
  /** The end of the last ')' that closed call arguments or grouping labels. */
  private int lastEnd;
  /** The yacc error rules in force, innermost first: {context, expected}. */
  private final Deque<String[]> catchers = new ArrayDeque<>();
  /** Start and end (char indices) of every node built, for error positions. */
  final Map<Expr, int[]> spans = new IdentityHashMap<>();
  /** The matching clause of every binary operation as written, for the type checks. */
  final Map<Expr, Expr.VectorMatching> written = new IdentityHashMap<>();
  /**
   * Types of binary, unary and parenthesized nodes, whose {@link Expr#type()} walks down the
   * tree; kept so a long chain such as {@code a + b + ... + z} parses in linear time.
   */
  private final Map<Expr, ValueType> derivedTypes = new IdentityHashMap<>();

  private Parser(String input) {
    this.input = input;
    this.lexer = new Lexer(input);
  }

  /**
   * Parses and type-checks a query (Prometheus's {@code parser.ParseExpr}).
   *
   * @param query the PromQL text; may span lines and hold {@code #} comments
   * @return the expression tree; durations and times in it are milliseconds
   * @throws ParseException if Prometheus 2.42 rejects the query; the message is its first error,
   *     such as {@code 1:9: parse error: unexpected end of input}
   */
  public static Expr parse(String query) {
    // Deep nesting (thousands of levels) is parsed again on a thread with a larger stack.
    return LargeStack.call(() -> parseOnce(query));
  }

  private static Expr parseOnce(String query) {
    Parser p = new Parser(query);
    if (p.peek().kind() == Kind.EOF) {
      throw new ParseException(query, 0, "no expression found in input");
    }
    Expr e = p.expr(0);
    p.expectEnd();
    new TypeChecker(query, p.spans, p.written).check(e);
    return e;
  }

  /**
   * Parses a series selector such as a {@code match[]} parameter (Prometheus's
   * {@code parser.ParseMetricSelector}): one instant vector selector and nothing else. As in
   * Prometheus no type check is made, so {@code {}} gives no matchers and a name given twice is
   * kept; the HTTP API checks for a non-empty matcher itself.
   *
   * @param selector the text, such as {@code up{job=~"api.*"}}
   * @return the matchers; with a metric name, its {@code __name__} matcher first, then the rest
   *     in the order written
   * @throws ParseException if it is not a lone selector, for example {@code unexpected "["} for
   *     {@code up[5m]}
   */
  public static List<Matcher> parseSelector(String selector) {
    Parser p = new Parser(selector);
    Token t = p.peek();
    Token name = null;
    if (t.kind() == Kind.IDENTIFIER || t.kind() == Kind.METRIC_IDENTIFIER
        || t.kind().isAggregator() || NAME_KEYWORDS.contains(t.kind())) {
      name = p.advance();
    } else if (t.kind() != Kind.LEFT_BRACE) {
      throw p.unexpected(t);
    }
    Expr.VectorSelector vs = p.selector(name);
    p.expectEnd();
    return vs.matchers();
  }

  /**
   * Parses a PromQL duration such as {@code 5m} or {@code 1h30m} (units {@code ms s m h d w y},
   * each at most once, largest first; as {@code model.ParseDuration} of prometheus/common v0.39,
   * plus the parser's rule that it be positive).
   *
   * @param text the duration
   * @return milliseconds, positive
   * @throws IllegalArgumentException with Prometheus's message: {@code not a valid duration
   *     string: "1.5h"}, {@code duration out of range} (over about 292 years), {@code duration
   *     must be greater than 0}
   */
  public static long parseDuration(String text) {
    try {
      return Literals.duration(text);
    } catch (LiteralException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
  }

  // ---- tokens and errors

  private Token peek() {
    if (lookahead == null) {
      Token t = lexer.next();
      while (t.kind() == Kind.COMMENT) {
        t = lexer.next();
      }
      if (t.kind() == Kind.ERROR) {
        throw new ParseException(input, t.pos(), t.text());
      }
      lookahead = t;
    }
    return lookahead;
  }

  private Token advance() {
    Token t = peek();
    lookahead = null;
    return t;
  }

  private void expectEnd() {
    Token t = peek();
    if (t.kind() != Kind.EOF) {
      throw unexpected(t);
    }
  }

  /** A syntax error at {@code t}, in the innermost context that has a yacc error rule. */
  private ParseException unexpected(Token t) {
    StringBuilder sb = new StringBuilder("unexpected ").append(t.describe());
    String[] c = catchers.peek();
    if (c != null) {
      if (!c[0].isEmpty()) {
        sb.append(" in ").append(c[0]);
      }
      if (!c[1].isEmpty()) {
        sb.append(", expected ").append(c[1]);
      }
    }
    return new ParseException(input, t.pos(), sb.toString());
  }

  private ParseException error(int pos, String detail) {
    return new ParseException(input, pos, detail);
  }

  /** Replaces the innermost context (the parser moved on within one construct). */
  private void context(String context, String expected) {
    catchers.pop();
    catchers.push(new String[] {context, expected});
  }

  private <T extends Expr> T span(T e, int start, int end) {
    spans.put(e, new int[] {start, end});
    return e;
  }

  private int start(Expr e) {
    return spans.get(e)[0];
  }

  private int end(Expr e) {
    return spans.get(e)[1];
  }

  // ---- expressions

  /** Binary operations whose operators bind at least as tightly as {@code minPrec}. */
  private Expr expr(int minPrec) {
    Expr lhs = unary();
    while (true) {
      BinaryOp op = binaryOp(peek().kind());
      if (op == null || op.precedence() < minPrec) {
        return lhs;
      }
      advance();
      boolean returnBool = peek().kind() == Kind.BOOL;
      if (returnBool) {
        advance();
      }
      Expr.VectorMatching matching = matchingClause();
      Expr rhs = expr(op.isRightAssociative() ? op.precedence() : op.precedence() + 1);
      lhs = binary(op, lhs, rhs, returnBool, matching);
    }
  }

  /**
   * {@code on|ignoring (labels) [group_left|group_right [(labels)]]} after the operator (and
   * {@code bool}); one-to-one with no labels when there is none.
   */
  private Expr.VectorMatching matchingClause() {
    Token t = peek();
    if (t.kind() != Kind.ON && t.kind() != Kind.IGNORING) {
      return new Expr.VectorMatching(Cardinality.ONE_TO_ONE, false, List.of(), List.of());
    }
    advance();
    List<String> labels = groupingLabels();
    Token g = peek();
    Cardinality card = Cardinality.ONE_TO_ONE;
    List<String> include = List.of();
    if (g.kind() == Kind.GROUP_LEFT || g.kind() == Kind.GROUP_RIGHT) {
      advance();
      card = g.kind() == Kind.GROUP_LEFT ? Cardinality.MANY_TO_ONE : Cardinality.ONE_TO_MANY;
      Token n = peek();
      if (n.kind() == Kind.LEFT_PAREN) {
        include = groupingLabels();
      } else if (!EXPR_START.contains(n.kind())) {
        catchers.push(new String[] {"grouping opts", "\"(\""});
        throw unexpected(n);
      }
    }
    return new Expr.VectorMatching(card, t.kind() == Kind.ON, labels, include);
  }

  private Expr binary(BinaryOp op, Expr lhs, Expr rhs, boolean returnBool,
      Expr.VectorMatching asWritten) {
    Expr.VectorMatching matching = null;
    ValueType lt = typeOf(lhs);
    ValueType rt = typeOf(rhs);
    if (lt == ValueType.VECTOR && rt == ValueType.VECTOR) {
      matching = asWritten;
      if (op.isSetOperator() && matching.card() == Cardinality.ONE_TO_ONE) {
        matching = new Expr.VectorMatching(Cardinality.MANY_TO_MANY, matching.on(),
            matching.labels(), matching.include());
      }
    }
    Expr.Binary b = new Expr.Binary(op, lhs, rhs, returnBool, matching);
    written.put(b, asWritten);
    derivedTypes.put(b, lt == ValueType.SCALAR && rt == ValueType.SCALAR
        ? ValueType.SCALAR : ValueType.VECTOR);
    return span(b, start(lhs), end(rhs));
  }

  private ValueType typeOf(Expr e) {
    ValueType t = derivedTypes.get(e);
    return t != null ? t : e.type();
  }

  private static BinaryOp binaryOp(Kind k) {
    return switch (k) {
      case ADD -> BinaryOp.ADD;
      case SUB -> BinaryOp.SUB;
      case MUL -> BinaryOp.MUL;
      case DIV -> BinaryOp.DIV;
      case MOD -> BinaryOp.MOD;
      case POW -> BinaryOp.POW;
      case ATAN2 -> BinaryOp.ATAN2;
      case EQLC -> BinaryOp.EQL;
      case NEQ -> BinaryOp.NEQ;
      case GTR -> BinaryOp.GTR;
      case LSS -> BinaryOp.LSS;
      case GTE -> BinaryOp.GTE;
      case LTE -> BinaryOp.LTE;
      case LAND -> BinaryOp.AND;
      case LUNLESS -> BinaryOp.UNLESS;
      case LOR -> BinaryOp.OR;
      default -> null;
    };
  }

  /** Unary {@code -}/{@code +} (binding like {@code *}), or an operand with its modifiers. */
  private Expr unary() {
    Token t = peek();
    if (t.kind() != Kind.ADD && t.kind() != Kind.SUB) {
      return postfix(primary());
    }
    advance();
    boolean negate = t.kind() == Kind.SUB;
    Expr operand = expr(BinaryOp.POW.precedence());
    if (operand instanceof Expr.NumberLiteral n) {
      return span(new Expr.NumberLiteral(negate ? n.value() * -1 : n.value()), t.pos(),
          end(operand));
    }
    Expr.Unary u = new Expr.Unary(negate, operand);
    derivedTypes.put(u, typeOf(operand));
    return span(u, t.pos(), end(operand));
  }

  /** {@code [range]}, {@code [range:step]}, {@code offset d} and {@code @ t}, any number. */
  private Expr postfix(Expr e) {
    while (true) {
      switch (peek().kind()) {
        case LEFT_BRACKET -> e = rangeOrSubquery(e);
        case OFFSET -> e = offset(e);
        case AT -> e = at(e);
        default -> {
          return e;
        }
      }
    }
  }

  private Expr primary() {
    Token t = peek();
    switch (t.kind()) {
      case NUMBER: {
        advance();
        return span(new Expr.NumberLiteral(number(t)), t.pos(), t.end());
      }
      case STRING:
        advance();
        return span(new Expr.StringLiteral(Literals.unquote(t.text())), t.pos(), t.end());
      case LEFT_PAREN: {
        advance();
        Expr inner = expr(0);
        Token r = peek();
        if (r.kind() != Kind.RIGHT_PAREN) {
          throw unexpected(r);
        }
        advance();
        Expr.Paren p = new Expr.Paren(inner);
        derivedTypes.put(p, typeOf(inner));
        return span(p, t.pos(), r.end());
      }
      case LEFT_BRACE:
        return selector(null);
      case IDENTIFIER: {
        advance();
        if (peek().kind() == Kind.LEFT_PAREN) {
          return call(t);
        }
        return selector(t);
      }
      default:
        break;
    }
    if (t.kind().isAggregator()) {
      advance();
      Kind n = peek().kind();
      if (n == Kind.LEFT_PAREN || n == Kind.BY || n == Kind.WITHOUT) {
        return aggregate(t);
      }
      return selector(t);
    }
    if (t.kind() == Kind.METRIC_IDENTIFIER || NAME_KEYWORDS.contains(t.kind())) {
      advance();
      return selector(t);
    }
    throw unexpected(t);
  }

  private double number(Token t) {
    try {
      return Literals.number(t.text());
    } catch (LiteralException e) {
      throw error(t.pos(), e.getMessage());
    }
  }

  private long duration(Token t) {
    try {
      return Literals.duration(t.text());
    } catch (LiteralException e) {
      throw error(t.pos(), e.getMessage());
    }
  }

  // ---- selectors

  /**
   * A vector selector; {@code name} (already read) is its metric name or null, and braces may
   * follow.
   */
  private Expr.VectorSelector selector(Token name) {
    List<Matcher> matchers = new ArrayList<>();
    if (name != null) {
      matchers.add(Matcher.eq(LabelSet.METRIC_NAME, name.text()));
    }
    int startPos = name != null ? name.pos() : peek().pos();
    int endPos = name != null ? name.end() : 0;
    if (name == null || peek().kind() == Kind.LEFT_BRACE) {
      endPos = labelMatchers(matchers);
    }
    return span(new Expr.VectorSelector(name == null ? null : name.text(), matchers, 0, null),
        startPos, endPos);
  }

  /** {@code {a="b", ...}} at the lookahead; adds the matchers, returns the end of the '}'. */
  private int labelMatchers(List<Matcher> out) {
    advance();
    catchers.push(new String[] {"label matching", "identifier or \"}\""});
    Token t = peek();
    while (t.kind() != Kind.RIGHT_BRACE) {
      if (t.kind() != Kind.IDENTIFIER) {
        throw unexpected(t);
      }
      advance();
      context("label matching", "label matching operator");
      Token op = peek();
      Matcher.Type type = switch (op.kind()) {
        case EQL -> Matcher.Type.EQ;
        case NEQ -> Matcher.Type.NEQ;
        case EQL_REGEX -> Matcher.Type.RE;
        case NEQ_REGEX -> Matcher.Type.NRE;
        default -> throw unexpected(op);
      };
      advance();
      context("label matching", "string");
      Token v = peek();
      if (v.kind() != Kind.STRING) {
        throw unexpected(v);
      }
      advance();
      out.add(matcher(type, t, v));
      context("label matching", "\",\" or \"}\"");
      t = peek();
      if (t.kind() == Kind.COMMA) {
        advance();
        context("label matching", "identifier or \"}\"");
        t = peek();
      } else if (t.kind() != Kind.RIGHT_BRACE) {
        throw unexpected(t);
      }
    }
    advance();
    catchers.pop();
    return t.end();
  }

  private Matcher matcher(Matcher.Type type, Token label, Token value) {
    String v = Literals.unquote(value.text());
    if (type == Matcher.Type.RE || type == Matcher.Type.NRE) {
      String err = Literals.regexError(v);
      if (err != null) {
        throw error(label.pos(), err);
      }
    }
    try {
      return new Matcher(type, label.text(), v);
    } catch (IllegalArgumentException e) {
      throw error(label.pos(), e.getMessage());
    }
  }

  /** {@code [range]} or {@code [range:step]} after {@code e}. */
  private Expr rangeOrSubquery(Expr e) {
    Token open = advance();
    catchers.push(new String[] {"subquery selector", "duration"});
    Token d = peek();
    if (d.kind() != Kind.DURATION) {
      throw unexpected(d);
    }
    advance();
    long range = duration(d);
    context("subquery or range", "\":\" or \"]\"");
    Token t = peek();
    if (t.kind() == Kind.RIGHT_BRACKET) {
      advance();
      catchers.pop();
      return matrix(e, open, range, t);
    }
    if (t.kind() != Kind.COLON) {
      throw unexpected(t);
    }
    advance();
    context("subquery selector", "duration or \"]\"");
    t = peek();
    long step = 0;
    if (t.kind() == Kind.DURATION) {
      advance();
      step = duration(t);
      context("subquery selector", "\"]\"");
      t = peek();
    }
    if (t.kind() != Kind.RIGHT_BRACKET) {
      throw unexpected(t);
    }
    advance();
    catchers.pop();
    return span(new Expr.Subquery(e, range, step, 0, null), start(e), t.end());
  }

  private Expr matrix(Expr e, Token open, long range, Token close) {
    if (!(e instanceof Expr.VectorSelector vs)) {
      throw error(open.pos(), "ranges only allowed for vector selectors");
    }
    if (vs.offsetMs() != 0) {
      throw error(open.pos(), "no offset modifiers allowed before range");
    }
    if (vs.at() != null && vs.at().kind() == Expr.At.Kind.TIMESTAMP) {
      throw error(open.pos(), "no @ modifiers allowed before range");
    }
    return span(new Expr.MatrixSelector(vs, range), start(e), close.end());
  }

  /** {@code offset [-]d} after {@code e}. */
  private Expr offset(Expr e) {
    advance();
    catchers.push(new String[] {"offset", "duration"});
    Token t = peek();
    boolean negative = t.kind() == Kind.SUB;
    if (negative) {
      advance();
      t = peek();
    }
    if (t.kind() != Kind.DURATION) {
      throw unexpected(t);
    }
    advance();
    long d = duration(t);
    catchers.pop();
    long offsetMs = negative ? -d : d;
    if (e instanceof Expr.VectorSelector vs) {
      checkNoOffset(e, vs.offsetMs());
      return span(new Expr.VectorSelector(vs.name(), vs.matchers(), offsetMs, vs.at()),
          start(e), t.end());
    }
    if (e instanceof Expr.MatrixSelector m) {
      Expr.VectorSelector vs = m.selector();
      checkNoOffset(e, vs.offsetMs());
      Expr.VectorSelector moved = span(
          new Expr.VectorSelector(vs.name(), vs.matchers(), offsetMs, vs.at()), start(vs),
          end(vs));
      return span(new Expr.MatrixSelector(moved, m.rangeMs()), start(e), t.end());
    }
    if (e instanceof Expr.Subquery q) {
      checkNoOffset(e, q.offsetMs());
      return span(new Expr.Subquery(q.expr(), q.rangeMs(), q.stepMs(), offsetMs, q.at()),
          start(e), t.end());
    }
    throw error(start(e), OFFSET_TARGET);
  }

  private void checkNoOffset(Expr e, long offsetMs) {
    if (offsetMs != 0) {
      throw error(start(e), "offset may not be set multiple times");
    }
  }

  /** {@code @ t}, {@code @ start()} or {@code @ end()} after {@code e}. */
  private Expr at(Expr e) {
    advance();
    catchers.push(new String[] {"@", "timestamp"});
    Token t = peek();
    Expr.At at;
    Token last;
    if (t.kind() == Kind.START || t.kind() == Kind.END) {
      advance();
      Token open = peek();
      if (open.kind() != Kind.LEFT_PAREN) {
        throw unexpected(open);
      }
      advance();
      last = peek();
      if (last.kind() != Kind.RIGHT_PAREN) {
        throw unexpected(last);
      }
      advance();
      at = new Expr.At(t.kind() == Kind.START ? Expr.At.Kind.START : Expr.At.Kind.END, 0);
    } else {
      boolean negative = t.kind() == Kind.SUB;
      if (negative || t.kind() == Kind.ADD) {
        advance();
        t = peek();
      }
      if (t.kind() != Kind.NUMBER) {
        throw unexpected(t);
      }
      advance();
      last = t;
      double seconds = number(t);
      try {
        at = new Expr.At(Expr.At.Kind.TIMESTAMP,
            Literals.atTimestampMs(negative ? -seconds : seconds));
      } catch (LiteralException ex) {
        throw error(start(e), ex.getMessage());
      }
    }
    catchers.pop();
    if (e instanceof Expr.VectorSelector vs) {
      checkNoAt(e, vs.at());
      return span(new Expr.VectorSelector(vs.name(), vs.matchers(), vs.offsetMs(), at),
          start(e), last.end());
    }
    if (e instanceof Expr.MatrixSelector m) {
      Expr.VectorSelector vs = m.selector();
      checkNoAt(e, vs.at());
      Expr.VectorSelector moved = span(
          new Expr.VectorSelector(vs.name(), vs.matchers(), vs.offsetMs(), at), start(vs),
          end(vs));
      return span(new Expr.MatrixSelector(moved, m.rangeMs()), start(e), last.end());
    }
    if (e instanceof Expr.Subquery q) {
      checkNoAt(e, q.at());
      return span(new Expr.Subquery(q.expr(), q.rangeMs(), q.stepMs(), q.offsetMs(), at),
          start(e), last.end());
    }
    throw error(start(e), AT_TARGET);
  }

  private void checkNoAt(Expr e, Expr.At at) {
    if (at != null) {
      throw error(start(e), "@ <timestamp> may not be set multiple times");
    }
  }

  // ---- calls and aggregations

  /** A function call; the name has been read and the lookahead is '('. */
  private Expr call(Token name) {
    List<Expr> args = callArgs();
    Function f = Function.byName(name.text());
    if (f == null) {
      throw error(name.pos(), "unknown function with name " + GoFormat.quote(name.text()));
    }
    return span(new Expr.Call(f, args), name.pos(), lastEnd);
  }

  /** {@code ( args )} at the lookahead; sets {@link #lastEnd} to the end of the ')'. */
  private List<Expr> callArgs() {
    advance();
    List<Expr> args = new ArrayList<>();
    Token t = peek();
    if (t.kind() != Kind.RIGHT_PAREN) {
      args.add(expr(0));
      t = peek();
      while (t.kind() == Kind.COMMA) {
        Token comma = advance();
        if (!EXPR_START.contains(peek().kind())) {
          throw error(comma.pos(), "trailing commas not allowed in function call args");
        }
        args.add(expr(0));
        t = peek();
      }
      if (t.kind() != Kind.RIGHT_PAREN) {
        throw unexpected(t);
      }
    }
    advance();
    lastEnd = t.end();
    return args;
  }

  /** An aggregation; the operator has been read, the lookahead is '(', by or without. */
  private Expr aggregate(Token op) {
    catchers.push(new String[] {"aggregation", ""});
    List<String> grouping = List.of();
    boolean without = false;
    boolean modifierFirst = peek().kind() != Kind.LEFT_PAREN;
    if (modifierFirst) {
      without = advance().kind() == Kind.WITHOUT;
      grouping = groupingLabels();
      if (peek().kind() != Kind.LEFT_PAREN) {
        throw unexpected(peek());
      }
    }
    List<Expr> args = callArgs();
    int endPos = lastEnd;
    if (!modifierFirst) {
      Kind k = peek().kind();
      if (k == Kind.BY || k == Kind.WITHOUT) {
        without = advance().kind() == Kind.WITHOUT;
        grouping = groupingLabels();
        endPos = lastEnd;
      }
    }
    catchers.pop();
    AggregationOp aop = AggregationOp.valueOf(op.kind().name());
    if (args.isEmpty()) {
      throw error(op.pos(), "no arguments for aggregate expression provided");
    }
    int desired = aop.paramType() != null ? 2 : 1;
    if (args.size() != desired) {
      throw error(op.pos(), "wrong number of arguments for aggregate expression provided, "
          + "expected " + desired + ", got " + args.size());
    }
    Expr param = desired == 2 ? args.get(0) : null;
    Expr.Aggregate a = new Expr.Aggregate(aop, args.get(desired - 1), param, grouping, without);
    return span(a, op.pos(), endPos);
  }

  /**
   * {@code (label, ...)} after by, without, on, ignoring, group_left or group_right; sets
   * {@link #lastEnd} to the end of the ')'.
   */
  private List<String> groupingLabels() {
    catchers.push(new String[] {"grouping opts", "\"(\""});
    Token t = peek();
    if (t.kind() != Kind.LEFT_PAREN) {
      throw unexpected(t);
    }
    advance();
    context("grouping opts", "label");
    List<String> labels = new ArrayList<>();
    t = peek();
    while (t.kind() != Kind.RIGHT_PAREN) {
      if (!MAYBE_LABEL.contains(t.kind())) {
        throw unexpected(t);
      }
      advance();
      if (!Lexer.isLabel(t.text())) {
        throw unexpected(t);
      }
      labels.add(t.text());
      context("grouping opts", "\",\" or \")\"");
      t = peek();
      if (t.kind() == Kind.COMMA) {
        advance();
        context("grouping opts", "label");
        t = peek();
      } else if (t.kind() != Kind.RIGHT_PAREN) {
        throw unexpected(t);
      }
    }
    advance();
    catchers.pop();
    lastEnd = t.end();
    return labels;
  }
}
