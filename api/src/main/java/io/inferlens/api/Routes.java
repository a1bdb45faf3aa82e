package io.inferlens.api;

import com.linecorp.armeria.server.HttpService;

/**
 * Where an API class binds its routes: the server itself ({@code ServerBuilder::service}) when
 * InferLens serves one store, or one tenant's route table when it serves a store per tenant
 * ({@code --multitenancy}, {@link Tenants}), which the server's dispatching routes pick from per
 * request. An API class sees only the store, engine and journal it was built with, so a route
 * of one tenant cannot read another's.
 */
@FunctionalInterface
interface Routes {

  /**
   * @param pathPattern Armeria's path pattern, e.g. {@code /api/v1/series} or
   *     {@code /api/v1/incidents/{id}}
   * @param service what answers it
   */
  void service(String pathPattern, HttpService service);
}
