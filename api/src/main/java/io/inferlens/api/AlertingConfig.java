package io.inferlens.api;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where incidents are sent and how they are labelled: Prometheus's {@code alerting} section and
 * {@code global.external_labels}, as flags.
 *
 * @param alertmanagers base URLs of the Alertmanagers ({@code --alertmanager.url}, repeatable),
 *     e.g. {@code http://127.0.0.1:9093}; each gets every alert at {@code <url>/api/v2/alerts}
 *     (a URL already ending in {@code /api/v2/alerts} is used as given); empty sends nothing
 * @param externalLabels labels added to every alert sent that does not already carry the name
 *     ({@code --external-label NAME=VALUE}, as Prometheus's notifier)
 * @param resendDelayMs how often a firing alert is re-sent, milliseconds ({@code
 *     --alert.resend-delay}, default 1 min, Prometheus's {@code --rules.alert.resend-delay}),
 *     &ge; 1000
 * @param queueCapacity alerts queued per Alertmanager before the oldest are dropped ({@code
 *     --alertmanager.notification-queue-capacity}, default 10,000 as Prometheus), &ge; 1
 * @param externalUrl where users reach InferLens ({@code --web.external-url}), without a
 *     trailing slash: the base of each alert's {@code generatorURL} and {@code runbook_url}
 */
public record AlertingConfig(List<URI> alertmanagers, Map<String, String> externalLabels,
    long resendDelayMs, int queueCapacity, String externalUrl) {

  /** Prometheus's default resend delay, 1 minute in milliseconds. */
  public static final long DEFAULT_RESEND_DELAY_MS = 60_000L;
  /** Prometheus's default notification queue capacity. */
  public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException naming the flag: a URL that is not absolute http(s), an
   *     external label name outside {@code [a-zA-Z_][a-zA-Z0-9_]*}, a resend delay under 1 s,
   *     a queue capacity under 1
   */
  public AlertingConfig {
    alertmanagers = List.copyOf(alertmanagers);
    for (URI u : alertmanagers) {
      if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
          || u.getHost() == null) {
        throw new IllegalArgumentException("--alertmanager.url \"" + u
            + "\" must be an absolute http:// or https:// URL, e.g. http://127.0.0.1:9093");
      }
    }
    externalLabels = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(externalLabels));
    for (Map.Entry<String, String> e : externalLabels.entrySet()) {
      if (!e.getKey().matches("[a-zA-Z_][a-zA-Z0-9_]*") || e.getKey().startsWith("__")) {
        throw new IllegalArgumentException("--external-label name \"" + e.getKey()
            + "\" must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __");
      }
      if (e.getValue() == null || e.getValue().isEmpty()) {
        throw new IllegalArgumentException("--external-label " + e.getKey()
            + " has an empty value");
      }
    }
    if (resendDelayMs < 1000) {
      throw new IllegalArgumentException("--alert.resend-delay (" + resendDelayMs
          + " ms) must be at least 1s");
    }
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("--alertmanager.notification-queue-capacity ("
          + queueCapacity + ") must be at least 1");
    }
    externalUrl = externalUrl == null ? null : externalUrl.replaceAll("/+$", "");
  }

  /**
   * @param externalUrl the base of alert links, or null to derive it from the listen address
   * @return no Alertmanager, no external labels, Prometheus's defaults
   */
  public static AlertingConfig none(String externalUrl) {
    return new AlertingConfig(List.of(), Map.of(), DEFAULT_RESEND_DELAY_MS,
        DEFAULT_QUEUE_CAPACITY, externalUrl);
  }

  /**
   * @param url where users reach InferLens
   * @return a copy with that external URL
   */
  AlertingConfig withExternalUrl(String url) {
    return new AlertingConfig(alertmanagers, externalLabels, resendDelayMs, queueCapacity, url);
  }

  /**
   * Parses a URL flag.
   *
   * @param flag the flag's name, for the message
   * @param text the value
   * @return the URI
   * @throws IllegalArgumentException naming the flag if it is not a URI
   */
  static URI parseUrl(String flag, String text) {
    try {
      return new URI(text.trim());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException(flag + " \"" + text + "\" is not a URL ("
          + e.getReason() + "); expected an absolute http:// or https:// URL", e);
    }
  }

  /**
   * @param alertmanager a base URL of {@link #alertmanagers()}
   * @return where alerts are posted: {@code <url>/api/v2/alerts} (Alertmanager API v2)
   */
  static URI postUrl(URI alertmanager) {
    String s = alertmanager.toString().replaceAll("/+$", "");
    return URI.create(s.endsWith("/api/v2/alerts") ? s : s + "/api/v2/alerts");
  }
}
