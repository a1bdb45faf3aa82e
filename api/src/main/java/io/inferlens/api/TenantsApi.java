package io.inferlens.api;

import com.linecorp.armeria.server.ServerBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/tenants}: whether the server keeps one store per tenant and which tenants
 * have one, for the web UI's tenant picker and for operators. Needs no {@code X-Scope-OrgID}.
 *
 * <p>Answer: {@code {"status":"success","data":{"multitenancy":true,"header":"X-Scope-OrgID",
 * "maxTenants":100,"tenants":[{"id":"team-a","series":1200,"activeSeries":1180,"limits":{
 * "max-series":1000000,…,"ingestion-rate":0.0,"ingestion-burst":0}}]}}} (each tenant's limits
 * after {@code --multitenancy.limits}, 0 where a limit is off), tenants sorted by id; without {@code --multitenancy}, {@code "multitenancy":false} and no tenants.
 * Tenant ids are not secret from anyone who may call the server: like Mimir, InferLens trusts
 * the header, so separating teams from each other needs a proxy in front that sets it.
 */
final class TenantsApi {

  private final Tenants tenants;

  /** @param tenants the server's tenants */
  TenantsApi(Tenants tenants) {
    this.tenants = tenants;
  }

  /** @param sb the server to bind {@code /api/v1/tenants} on */
  void bind(ServerBuilder sb) {
    sb.service("/api/v1/tenants", JsonEndpoints.get("tenant list", p -> list()));
  }

  /**
   * @return the answer's {@code data}
   * @throws io.inferlens.storage.StorageException if a store cannot count its series
   */
  Map<String, Object> list() throws io.inferlens.storage.StorageException {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("multitenancy", tenants.multi());
    data.put("header", Tenants.HEADER);
    List<Object> list = new ArrayList<>();
    if (tenants.multi()) {
      data.put("maxTenants", tenants.maxTenants());
      for (Tenant t : tenants.all()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", t.id());
        m.put("series", t.store().seriesCount());
        m.put("activeSeries", t.store().activeSeriesCount());
        m.put("limits", limits(t.config()));
        list.add(m);
      }
    }
    data.put("tenants", list);
    return data;
  }

  /** @return the tenant's limits under the names of {@link TenantLimits#KEYS} (0: off) */
  private static Map<String, Object> limits(ServerConfig c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("max-series", c.seriesLimits().maxSeries());
    m.put("max-series-per-metric", c.seriesLimits().maxSeriesPerMetric());
    m.put("max-label-names-per-series", c.labelLimits().maxLabelNamesPerSeries());
    m.put("max-label-name-length", c.labelLimits().maxLabelNameLength());
    m.put("max-label-value-length", c.labelLimits().maxLabelValueLength());
    m.put("max-metric-name-length", c.labelLimits().maxMetricNameLength());
    m.put("ingestion-rate", c.ingestionRate().samplesPerSecond());
    m.put("ingestion-burst", c.ingestionRate().isOff() ? 0 : c.ingestionRate().effectiveBurst());
    return m;
  }
}
