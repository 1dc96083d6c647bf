package org.vnpu.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.vnpu.scheduler.VolcanoSchedulerConf;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu volcano-config}: merges the vNPU extender into a Volcano scheduler configuration. */
@Command(
    name = "volcano-config",
    mixinStandardHelpOptions = true,
    description = {
      "Merge the vNPU extender into a Volcano scheduler configuration and print it.",
      "",
      "Volcano reads one configuration, its own release's (ConfigMap"
          + " <volcano-release>-scheduler-configmap, key volcano-scheduler.conf). Give its current"
          + " content with --from; the output keeps every other setting, adds the extender plugin"
          + " (no session verbs, not ignorable), drops the binpack plugin and sets nodeorder's"
          + " host-resource weights to 0 so that Volcano's own scores do not outvote the vNPU"
          + " placement. Without --from it merges into Volcano's default configuration.",
      "",
      "Then: helm upgrade volcano volcano-sh/volcano -n volcano-system --reuse-values"
          + " --set-file custom.scheduler_config_override=merged.conf (docs/install.md)."
    })
final class VolcanoConfigCommand implements Callable<Integer> {

  @Option(
      names = "--extender-url",
      required = true,
      paramLabel = "URL",
      description =
          "The vNPU scheduler's Volcano endpoint, e.g."
              + " http://vnpu-scheduler.vnpu-system.svc:9401/volcano (helm status prints it).")
  String extenderUrl;

  @Option(
      names = "--from",
      paramLabel = "FILE",
      description =
          "Volcano's current volcano-scheduler.conf; - reads standard input (default: Volcano's"
              + " default configuration).")
  String from;

  @Option(
      names = "--http-timeout",
      paramLabel = "DURATION",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description = "How long Volcano waits for each extender call (default: ${DEFAULT-VALUE}).")
  Duration httpTimeout;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    URI url;
    try {
      url = URI.create(extenderUrl);
    } catch (IllegalArgumentException e) {
      throw new InputException(
          "--extender-url " + extenderUrl + " is not a URL: " + e.getMessage());
    }
    if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())
        || url.getHost() == null) {
      throw new InputException(
          "--extender-url "
              + extenderUrl
              + " must be an http or https URL with a host, e.g."
              + " http://vnpu-scheduler.vnpu-system.svc:9401/volcano");
    }
    JsonNode current;
    try {
      current =
          from == null ? VolcanoSchedulerConf.volcanoDefault() : VolcanoSchedulerConf.parse(read());
    } catch (IllegalArgumentException e) {
      throw new InputException(
          (from.equals("-") ? "standard input" : from) + ": " + e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(
        VolcanoSchedulerConf.yaml(VolcanoSchedulerConf.merge(current, extenderUrl, httpTimeout)));
    out.flush();
    return 0;
  }

  private String read() throws IOException {
    if (from.equals("-")) {
      return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try {
      return Files.readString(Path.of(from));
    } catch (NoSuchFileException e) {
      throw new InputException("--from " + from + ": no such file");
    }
  }
}
