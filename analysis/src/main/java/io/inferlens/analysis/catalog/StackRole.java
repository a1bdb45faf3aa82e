package io.inferlens.analysis.catalog;

/** What a serving stack's series describe, which decides discovery and how series join a target. */
public enum StackRole {
  /**
   * An inference engine (vLLM, SGLang, TGI, Triton, llama.cpp): its series define targets and are
   * matched by the target's grouping labels (after {@link Stack#labelAliases()}).
   */
  ENGINE,
  /**
   * Something in front of the engine (a gateway or router): matched by the grouping labels listed
   * in {@link Stack#joinOn()} (after aliases), but never defines a target.
   */
  GATEWAY,
  /** GPU telemetry (dcgm-exporter): joined by host, see {@code TargetConfig}. */
  GPU,
  /** The upstream request queue (kafka_exporter): joined by consumer group mapping or host. */
  UPSTREAM
}
