package io.inferlens.analysis.target;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One diagnosed unit: the values of the grouping labels (by default {@code job}, {@code instance},
 * {@code model_name}) shared by a set of engine series. A label the engine does not expose (TGI
 * and llama.cpp have no model label) has the empty value.
 *
 * <p>Equality is that of the label map (order-insensitive), while {@link #id()} follows the map's
 * order: build targets in the grouping order of one {@link TargetConfig}, as
 * {@link TargetDiscovery} does.
 *
 * @param labels grouping label → value, in the grouping order of the {@link TargetConfig}; every
 *     grouping label is present, values may be empty. Unmodifiable.
 */
public record Target(Map<String, String> labels) {

  /** Copies the map, keeping its order. */
  public Target {
    Objects.requireNonNull(labels, "labels");
    Map<String, String> copy = new LinkedHashMap<>();
    labels.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "label name"),
        Objects.requireNonNull(v, "label value")));
    labels = Collections.unmodifiableMap(copy);
  }

  /**
   * Convenience for literal pairs: {@code Target.of("job", "vllm", "instance", "a:8000", "model_name", "m")}.
   *
   * @param nameValuePairs alternating names and values, in grouping order
   * @return the target
   * @throws IllegalArgumentException on an odd count
   */
  public static Target of(String... nameValuePairs) {
    if (nameValuePairs.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of arguments: " + nameValuePairs.length);
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < nameValuePairs.length; i += 2) {
      m.put(nameValuePairs[i], nameValuePairs[i + 1]);
    }
    return new Target(m);
  }

  /**
   * @param name a grouping label
   * @return its value, the empty string when the label is absent or empty
   */
  public String get(String name) {
    return labels.getOrDefault(name, "");
  }

  /**
   * A stable, URL-safe identifier: the label values in grouping order, each percent-encoded
   * (everything but {@code A-Z a-z 0-9 - . _} becomes {@code %XX} of its UTF-8 bytes, so {@code ~}
   * never occurs inside a value), joined by {@code ~}. Example:
   * {@code vllm~vllm-a%3A8000~Qwen%2FQwen3-32B-FP8}. Equal targets under the same grouping labels
   * have equal ids; the id does not change across restarts.
   *
   * @return the id, only characters from {@code A-Z a-z 0-9 - . _ ~ %}
   */
  public String id() {
    StringBuilder sb = new StringBuilder();
    boolean first = true;
    for (String v : labels.values()) {
      if (!first) {
        sb.append('~');
      }
      first = false;
      for (byte b : v.getBytes(StandardCharsets.UTF_8)) {
        int c = b & 0xff;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || c == '-' || c == '.' || c == '_') {
          sb.append((char) c);
        } else {
          sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
              .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
        }
      }
    }
    return sb.toString();
  }

  /**
   * @param label the label holding {@code host:port}, usually {@code instance}
   * @return the host part of that label's value, see {@link TargetConfig#hostOf(String)}
   */
  public String host(String label) {
    return TargetConfig.hostOf(get(label));
  }

  /**
   * @param label a grouping label to drop, e.g. {@code model_name}
   * @return this target without that label (for per-instance questions such as version history)
   */
  public Target without(String label) {
    Map<String, String> m = new LinkedHashMap<>(labels);
    m.remove(label);
    return new Target(m);
  }
}
