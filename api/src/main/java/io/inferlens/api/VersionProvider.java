package io.inferlens.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The {@code --version} text of {@code inferlens} and its subcommands: {@code InferLens VERSION},
 * where VERSION is the jar manifest's {@code Implementation-Version} when present, else the
 * Maven project version that the build writes into {@code io/inferlens/api/version.properties}.
 */
public final class VersionProvider implements IVersionProvider {

  /**
   * @return the version, e.g. {@code 0.1.0-SNAPSHOT}; {@code unknown} only if the build left
   *     neither a manifest entry nor the properties resource (never from a Maven build)
   */
  public static String version() {
    String v = VersionProvider.class.getPackage().getImplementationVersion();
    if (v != null && !v.isBlank()) {
      return v;
    }
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** @return one line, {@code InferLens VERSION} */
  @Override
  public String[] getVersion() {
    return new String[] {"InferLens " + version()};
  }
}
