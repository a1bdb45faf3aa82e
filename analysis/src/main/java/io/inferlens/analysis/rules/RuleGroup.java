package io.inferlens.analysis.rules;

import java.util.List;

/**
 * The rule group of one target, and what it could not write.
 *
 * @param name the group name, {@code inferlens-<target id>}
 * @param comments one line each, written as YAML comments before the group: rules left out and
 *     why (no learned baseline yet, a signal the target does not expose); unmodifiable
 * @param rules the alerting rules, possibly none; unmodifiable
 */
public record RuleGroup(String name, List<String> comments, List<AlertRule> rules) {

  /** Copies the lists. */
  public RuleGroup {
    comments = List.copyOf(comments);
    rules = List.copyOf(rules);
  }
}
