package io.inferlens.analysis.catalog;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A serving stack or exporter named in the catalog ({@code vllm}, {@code sglang}, {@code tgi},
 * {@code triton}, {@code llamacpp}, {@code dcgm}, {@code kafka}, or a user-defined one).
 *
 * @param name the stack name, not empty; sources refer to it
 * @param role how its series are used
 * @param labelAliases target grouping label → the label this stack uses for it, e.g. Triton's
 *     {@code model_name → model}; unmapped labels keep their name. Unmodifiable.
 * @param joinOn for {@link StackRole#GATEWAY}: the grouping labels that must match the target
 *     (empty: all of them); ignored for other roles. Unmodifiable.
 */
public record Stack(String name, StackRole role, Map<String, String> labelAliases, List<String> joinOn) {

  /** Copies the collections and checks the name. */
  public Stack {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("stack with an empty name");
    }
    labelAliases = Map.copyOf(labelAliases);
    joinOn = List.copyOf(joinOn);
  }

  /**
   * @param groupingLabel a target grouping label such as {@code model_name}
   * @return the label this stack's series carry for it
   */
  public String labelFor(String groupingLabel) {
    return labelAliases.getOrDefault(groupingLabel, groupingLabel);
  }
}
