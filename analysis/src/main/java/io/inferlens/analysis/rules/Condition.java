package io.inferlens.analysis.rules;

/**
 * One condition of an exported rule, in PromQL and in words.
 *
 * @param state what holds while it holds, capitalised, e.g. "Queue backed up", "GPU saturated"
 * @param negated what holds while it does not, e.g. "Queue not backed up"
 * @param promql an instant-vector expression giving one series without labels while the
 *     condition holds and nothing otherwise; safe to put after {@code and on()} or
 *     {@code unless on()} as it stands (parenthesised where it has operators of its own)
 * @param words what it tests, for a person, e.g. "GPU utilisation at least 90 %"
 */
record Condition(String state, String negated, String promql, String words) {}
