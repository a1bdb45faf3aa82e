package io.inferlens.api;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.ServerCacheControl;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.file.FileService;
import com.linecorp.armeria.server.file.HttpFile;

/**
 * Serves the browser UI of the {@code web} module from the classpath on the API's port:
 *
 * <ul>
 *   <li>{@code /} → {@code io/inferlens/web/index.html}, a single-page app with hash routes
 *       ({@code #/}, {@code #/target/ID?tab=live&range=6h}, {@code #/diagnosis/ID},
 *       {@code #/trends/ID}) so every view has a shareable URL
 *   <li>{@code /app.js}, {@code /style.css}, … → the other files of {@code io/inferlens/web/}
 *       (ES modules, no build step)
 *   <li>{@code /webjars/…} → {@code META-INF/resources/webjars/…}, e.g.
 *       {@code /webjars/uplot/1.6.30/dist/uPlot.esm.js} from {@code org.webjars.npm:uplot}
 * </ul>
 *
 * <p>Bind it after the API routes: its catch-all prefix {@code /} must not shadow {@code /api},
 * {@code /metrics} or {@code /-/} (Armeria prefers exact and longer routes, so the order only
 * matters for readability). Unknown paths answer 404 in the JSON error envelope
 * ({@code "errorType":"not_found"}). The app's files are revalidated on every
 * load ({@code no-cache}) so an upgrade is picked up at once; the versioned WebJar is cached for a
 * day.
 */
public final class WebUi {

  /** Classpath folder of the app's files. */
  static final String ROOT = "io/inferlens/web";
  /** Classpath folder of the WebJars. */
  static final String WEBJARS = "META-INF/resources/webjars";

  private WebUi() {}

  /** @param sb the builder to add the UI routes to, after the API routes */
  public static void bind(ServerBuilder sb) {
    ClassLoader cl = WebUi.class.getClassLoader();
    sb.service("/", HttpFile.builder(cl, ROOT + "/index.html")
        .cacheControl(ServerCacheControl.REVALIDATED)
        .setHeader(HttpHeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff")
        .build().asService());
    sb.serviceUnder("/webjars/", FileService.builder(cl, WEBJARS)
        .cacheControl(ServerCacheControl.builder().maxAgeSeconds(86_400).build())
        .build());
    // Paths that are neither a route nor a UI file: the JSON 404 envelope, not "File not found".
    sb.serviceUnder("/", FileService.builder(cl, ROOT)
        .cacheControl(ServerCacheControl.REVALIDATED)
        .build()
        .orElse((ctx, req) -> JsonEndpoints.error(ErrorMapping.Kind.NOT_FOUND,
            "no route or file at " + ctx.path())));
  }
}
