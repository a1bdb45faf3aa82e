package io.inferlens.api;

/**
 * Whether InferLens keeps one store per tenant, as Mimir and Cortex do: {@code --multitenancy}
 * and {@code --multitenancy.max-tenants} ({@link Tenants} applies them).
 *
 * @param enabled whether requests name their tenant in {@code X-Scope-OrgID}; false, there is
 *     one store and the header is ignored
 * @param maxTenants most tenants with a store, &ge; 1; a write naming one more is refused with
 *     400 (default {@value #DEFAULT_MAX_TENANTS})
 * @param limits per-tenant overrides of the {@code --limits.*} flags
 *     ({@code --multitenancy.limits}; default {@link TenantLimits#NONE})
 */
public record Multitenancy(boolean enabled, int maxTenants, TenantLimits limits) {

  /**
   * Default tenant limit: 100. Each tenant has its own RocksDB instance (its files, a
   * background thread, its head), which the shared block cache and memtable ceiling bound in
   * memory but not in threads and open files.
   */
  public static final int DEFAULT_MAX_TENANTS = 100;

  /** One store, no tenants: the default. */
  public static final Multitenancy OFF =
      new Multitenancy(false, DEFAULT_MAX_TENANTS, TenantLimits.NONE);

  /**
   * Tenants without per-tenant overrides.
   *
   * @param enabled whether requests name their tenant
   * @param maxTenants most tenants with a store, &ge; 1
   */
  public Multitenancy(boolean enabled, int maxTenants) {
    this(enabled, maxTenants, TenantLimits.NONE);
  }

  /**
   * @throws IllegalArgumentException naming {@code --multitenancy.max-tenants} if it is below 1,
   *     or {@code --multitenancy.limits} if it is given without {@code --multitenancy}
   */
  public Multitenancy {
    java.util.Objects.requireNonNull(limits, "limits");
    if (!enabled && !limits.overrides().isEmpty()) {
      throw new IllegalArgumentException("--multitenancy.limits needs --multitenancy");
    }
    if (maxTenants < 1) {
      throw new IllegalArgumentException(Tenants.FLAG_MAX_TENANTS + " (" + maxTenants
          + ") must be at least 1");
    }
  }
}
