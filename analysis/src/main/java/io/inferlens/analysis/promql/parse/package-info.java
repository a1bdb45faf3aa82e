/**
 * The PromQL parser: query text to the syntax tree of {@link io.inferlens.analysis.promql.ast},
 * accepting and rejecting exactly what Prometheus 2.42 does ({@code promql/parser} at tag
 * v2.42.0), with its error messages and positions. {@link io.inferlens.analysis.promql.parse.Lexer}
 * makes the {@link io.inferlens.analysis.promql.parse.Token}s,
 * {@link io.inferlens.analysis.promql.parse.Parser} builds the tree and runs the
 * {@code TypeChecker}; failures are {@link io.inferlens.analysis.promql.parse.ParseException}s.
 * {@code ParserGoldenTest} holds the parser to answers recorded from a real Prometheus 2.42
 * ({@code scripts/promql-golden.sh}). Durations and times in the tree are milliseconds.
 */
package io.inferlens.analysis.promql.parse;
