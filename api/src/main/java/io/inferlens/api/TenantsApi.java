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
 * "maxTenants":100,"tenants":[{"id":"team-a","series":1200,"activeSeries":1180}]}}}, tenants
 * sorted by id; without {@code --multitenancy}, {@code "multitenancy":false} and no tenants.
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
        list.add(m);
      }
    }
    data.put("tenants", list);
    return data;
  }
}
