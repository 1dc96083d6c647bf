package org.vnpu.cli;

import org.vnpu.core.chip.InvalidCatalogException;
import org.vnpu.core.input.InvalidInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code vnpu} entry point. */
@Command(
    name = "vnpu",
    mixinStandardHelpOptions = true,
    versionProvider = VnpuCommand.Version.class,
    description = "Fine-grained sharing of Huawei Ascend NPUs on Kubernetes.",
    synopsisSubcommandLabel = "COMMAND",
    commandListHeading = "%nCommands:%n",
    footer = {"", "Run `vnpu COMMAND --help` for the options of one command."},
    subcommands = {
      DemoCommand.class,
      ChipsCommand.class,
      ValidatePodCommand.class,
      SimulateCommand.class,
      RebalanceCommand.class,
      GetCommand.class,
      WhyCommand.class,
      DoctorCommand.class,
      DevicePluginCommand.class,
      DraDriverCommand.class,
      SchedulerCommand.class,
      ExporterCommand.class,
      VolcanoConfigCommand.class,
      KeysCommand.class,
      ClusterCommand.class,
      ThroughputCommand.class,
      RealNodeCommand.class
    })
public final class VnpuCommand implements Runnable {

  /** The help line of every command that talks to the API server. */
  static final String KUBERNETES_CONNECTION =
      "The Kubernetes connection is fabric8's default: in a pod its service account, elsewhere"
          + " $KUBECONFIG or ~/.kube/config.";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, for {@link #main} and tests. */
  public static CommandLine commandLine() {
    return new CommandLine(new VnpuCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExecutionExceptionHandler(VnpuCommand::inputError);
  }

  /**
   * Input the user can fix (an unreadable file, a bad catalog) ends with its message and exit code
   * 2; anything else is a bug and keeps its stack trace.
   */
  private static int inputError(
      Exception e, CommandLine command, CommandLine.ParseResult parseResult) throws Exception {
    if (!(e instanceof InputException
        || e instanceof InvalidCatalogException
        || e instanceof InvalidInputException)) {
      throw e;
    }
    command.getErr().println("vnpu " + command.getCommandName() + ": " + e.getMessage());
    command.getErr().flush();
    return 2;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version from the jar manifest; "development" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = VnpuCommand.class.getPackage().getImplementationVersion();
      return new String[] {"vnpu " + (version == null ? "development" : version)};
    }
  }
}
