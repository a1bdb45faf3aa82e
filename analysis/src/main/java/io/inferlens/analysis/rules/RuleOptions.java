package io.inferlens.analysis.rules;

import java.util.Objects;

/**
 * How exported rules are written.
 *
 * @param forMs how long a rule's condition must hold before its alert fires (the rule's
 *     {@code for}), milliseconds, &gt; 0; default 5 minutes as the analysis's {@code --for}
 * @param windowMs the range of every {@code rate} in the expressions, milliseconds, &gt; 0;
 *     default the server's rate window (5 minutes)
 * @param externalUrl where users reach InferLens, e.g. {@code http://inferlens:9201}, without a
 *     trailing slash; the base of each alert's {@code runbook_url}
 */
public record RuleOptions(long forMs, long windowMs, String externalUrl) {

  /**
   * Drops a trailing slash of the URL.
   *
   * @throws IllegalArgumentException naming {@code for} or {@code window} when not positive, or
   *     {@code external_url} when it is not an absolute http(s) URL
   */
  public RuleOptions {
    if (forMs <= 0) {
      throw new IllegalArgumentException("parameter for must be positive, got " + forMs + " ms");
    }
    if (windowMs <= 0) {
      throw new IllegalArgumentException("parameter window must be positive, got " + windowMs
          + " ms");
    }
    Objects.requireNonNull(externalUrl, "externalUrl");
    if (!externalUrl.startsWith("http://") && !externalUrl.startsWith("https://")) {
      throw new IllegalArgumentException("parameter external_url must be an absolute http(s)"
          + " URL such as http://inferlens:9201, got \"" + externalUrl + "\"");
    }
    while (externalUrl.endsWith("/")) {
      externalUrl = externalUrl.substring(0, externalUrl.length() - 1);
    }
  }
}
