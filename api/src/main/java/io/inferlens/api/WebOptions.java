package io.inferlens.api;

import java.util.Objects;

/**
 * Who may reach the HTTP port and do what: the web configuration file
 * ({@code --web.config.file}: TLS, basic-auth users, response headers) and whether the admin
 * endpoints are on ({@code --web.enable-admin-api}), both as Prometheus's flags of those names.
 *
 * @param file the parsed web configuration file, {@link WebConfigFile#NONE} without one
 * @param adminApi whether {@code /api/v1/admin/...} acts; off, they answer 403
 *     {@code forbidden} "admin APIs disabled" (Prometheus's words)
 */
public record WebOptions(WebConfigFile file, boolean adminApi) {

  /** The defaults: plain HTTP, no authentication, admin endpoints off (as Prometheus). */
  public static final WebOptions DEFAULTS = new WebOptions(WebConfigFile.NONE, false);

  /** Checks the file is given. */
  public WebOptions {
    Objects.requireNonNull(file, "file");
  }

  /**
   * @param on whether the admin endpoints act
   * @return a copy with that setting
   */
  public WebOptions withAdminApi(boolean on) {
    return new WebOptions(file, on);
  }

  /**
   * @param newFile the web configuration file's settings
   * @return a copy with them
   */
  public WebOptions withFile(WebConfigFile newFile) {
    return new WebOptions(newFile, adminApi);
  }
}
