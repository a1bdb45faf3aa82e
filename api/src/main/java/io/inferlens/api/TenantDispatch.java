package io.inferlens.api;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;

/**
 * One route of a multi-tenant server ({@code --multitenancy}): finds the request's tenant from
 * its {@code X-Scope-OrgID} header ({@link Tenants#forRead}) and hands the request to that
 * tenant's own service for the route's pattern ({@link Tenant#routes()}). A request without
 * the header answers 401, a malformed id 400, both before anything is read: in Prometheus's
 * JSON error envelope, or in plain text on remote read, whose clients expect no JSON.
 */
final class TenantDispatch implements HttpService {

  private final Tenants tenants;
  private final String pattern;
  private final boolean plainText;

  /**
   * @param tenants the tenants
   * @param pattern the route's path pattern, one of {@link Tenant#routes()}'s keys
   */
  TenantDispatch(Tenants tenants, String pattern) {
    this.tenants = tenants;
    this.pattern = pattern;
    this.plainText = pattern.equals("/api/v1/read");
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) throws Exception {
    Tenant t;
    try {
      t = tenants.forRead(req.headers());
    } catch (Tenants.TenantException e) {
      tenants.refused(e);
      return plainText
          ? HttpResponse.of(ErrorMapping.status(e.kind()), MediaType.PLAIN_TEXT_UTF_8,
              e.getMessage() + "\n")
          : JsonEndpoints.error(e.kind(), e.getMessage());
    }
    return t.routes().get(pattern).serve(ctx, req);
  }
}
