package org.vnpu.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.vnpu.api.SplitMode;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodOptions;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;
import org.vnpu.core.validation.Problem;
import org.vnpu.core.validation.Validated;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code vnpu validate-pod}: checks pod manifests against the vNPU contract. */
@Command(
    name = "validate-pod",
    mixinStandardHelpOptions = true,
    description = {
      "Check the vNPU requests of Pod manifests.",
      "Prints each container's typed request, or every problem with the field, the value and the"
          + " rule."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every pod is valid", "1:a pod has problems", "2:the input cannot be read"})
final class ValidatePodCommand implements Callable<Integer> {

  @Parameters(
      paramLabel = "FILE",
      description =
          "Pod manifest, YAML or JSON; several documents allowed; - reads standard input.")
  String file;

  @Mixin CatalogOption catalog;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  /** The outcome for one pod, as {@code --output json} prints it. */
  record PodVerdict(String pod, boolean valid, PodRequest request, List<String> problems) {}

  @Override
  public Integer call() {
    RequestParser parser = new RequestParser(catalog.load());
    List<PodVerdict> verdicts = new ArrayList<>();
    for (PodManifest pod : readPods()) {
      String name = pod.namespace() + "/" + pod.name();
      Validated<PodRequest> result = parser.parse(pod);
      verdicts.add(
          result instanceof Validated.Invalid<PodRequest> invalid
              ? new PodVerdict(
                  name, false, null, invalid.problems().stream().map(Problem::message).toList())
              : new PodVerdict(name, true, result.orElseThrow(), List.of()));
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(output.render(verdicts, ValidatePodCommand::text));
    out.flush();
    return verdicts.stream().allMatch(PodVerdict::valid) ? 0 : 1;
  }

  private List<PodManifest> readPods() {
    if (file.equals("-")) {
      return PodManifestReader.read("standard input", System.in);
    }
    try (InputStream in = Files.newInputStream(Path.of(file))) {
      return PodManifestReader.read(file, in);
    } catch (NoSuchFileException e) {
      throw new InputException(file + ": no such file");
    } catch (IOException e) {
      throw new InputException(file + ": cannot be read: " + e.getMessage());
    }
  }

  private static String text(List<PodVerdict> verdicts) {
    StringBuilder out = new StringBuilder();
    for (PodVerdict verdict : verdicts) {
      if (!verdict.valid()) {
        int count = verdict.problems().size();
        out.append("pod ")
            .append(verdict.pod())
            .append(": ")
            .append(count)
            .append(count == 1 ? " problem\n" : " problems\n");
        verdict.problems().forEach(problem -> out.append("  - ").append(problem).append('\n'));
      } else if (!verdict.request().requestsVnpus()) {
        out.append("pod ").append(verdict.pod()).append(": valid, requests no vNPU\n");
      } else {
        out.append("pod ")
            .append(verdict.pod())
            .append(": valid\n")
            .append("  ")
            .append(options(verdict.request().options()))
            .append('\n')
            .append(containers(verdict.request().containers()));
      }
    }
    return out.toString();
  }

  private static String options(PodOptions options) {
    return "mode "
        + options.mode().wireName()
        + (options.mode() == SplitMode.HARD
            ? ", AI CPU level " + options.aiCpuLevel().wireName()
            : "")
        + ", node policy "
        + options.nodePolicy().wireName()
        + ", device policy "
        + options.devicePolicy().wireName()
        + (options.dieId() == null ? "" : ", die ID " + options.dieId());
  }

  private static String containers(List<ContainerRequest> containers) {
    TextTable table =
        new TextTable("CONTAINER", "VNPUS", "KIND", "AI CORE", "MEMORY", "POLICY", "CHIP TYPE");
    for (ContainerRequest c : containers) {
      table.row(
          c.init() ? c.name() + " (init)" : c.name(),
          c.count(),
          c.wholeCard() ? "whole card" : "share",
          c.cores() + "%",
          c.memoryMiB() == null ? "whole chip" : MemoryText.of(c.memoryMiB()),
          c.policy() == null ? "-" : c.policy().wireName(),
          c.chipTypes().toString());
    }
    return table.render("  ");
  }
}
