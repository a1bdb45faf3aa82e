package io.inferlens.analysis.target;

/**
 * One model (and model version) seen on an engine instance, and when: the base for detecting a
 * version regression (a new model or version slower than the previous one).
 *
 * @param model the model label value (e.g. {@code model_name}, Triton {@code model}); empty when
 *     the engine has no model label
 * @param version the version label value (Triton {@code version}); empty when absent
 * @param firstMs timestamp of the first sample seen for it in the range, milliseconds
 * @param lastMs timestamp of the last sample seen for it in the range, milliseconds, ≥ firstMs
 */
public record VersionSpan(String model, String version, long firstMs, long lastMs) {

  /** @throws IllegalArgumentException if {@code lastMs < firstMs} */
  public VersionSpan {
    if (lastMs < firstMs) {
      throw new IllegalArgumentException("lastMs " + lastMs + " < firstMs " + firstMs);
    }
  }
}
