package org.vnpu.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process of the real cluster: its command, its log (stdout and stderr, appended) and a PID
 * file, so that another process ({@code vnpu cluster down}) can stop it. There is no systemd here;
 * a component is tracked by its PID, and a PID is only signalled while its command line still names
 * the component's binary, so a reused PID is never killed.
 */
public final class Component {

  private static final Logger LOG = LoggerFactory.getLogger(Component.class);
  private static final Duration GRACE = Duration.ofSeconds(10);
  private static final int LOG_LINES = 30;

  private final String name;
  private final List<String> command;
  private final String binary;
  private final Map<String, String> environment;
  private final Path log;
  private final Path pidFile;
  private Process process;

  /**
   * @param name how messages name it, and its log and PID files
   * @param order its place in the start order: {@link #stopAll} stops the last started first
   * @param logs the directory every component's log goes to
   */
  public Component(
      String name,
      int order,
      List<String> command,
      Map<String, String> environment,
      Path logs,
      Path pids) {
    this(name, order, List.of(), command, environment, logs, pids);
  }

  private Component(
      String name,
      int order,
      List<String> wrapper,
      List<String> command,
      Map<String, String> environment,
      Path logs,
      Path pids) {
    this.name = name;
    List<String> all = new ArrayList<>(wrapper);
    all.addAll(command);
    this.command = List.copyOf(all);
    this.binary = Path.of(command.get(0)).getFileName().toString();
    this.environment = Map.copyOf(environment);
    this.log = logs.resolve(name + ".log");
    this.pidFile = pids.resolve(String.format("%03d-%s.pid", order, name));
  }

  /**
   * A component run in the network namespace at {@code namespace} (a file under {@code
   * /var/run/netns}) by nsenter, which enters only that namespace and execs the command: the PID is
   * the component's own. ({@code ip netns exec} would also mount a fresh {@code /sys}, hiding the
   * cgroup mounts the kubelet and runc need.)
   */
  public static Component inNetworkNamespace(
      String name,
      int order,
      Path namespace,
      List<String> command,
      Map<String, String> environment,
      Path logs,
      Path pids) {
    return new Component(
        name,
        order,
        List.of("nsenter", "--net=" + namespace, "--"),
        command,
        environment,
        logs,
        pids);
  }

  public String name() {
    return name;
  }

  public Path log() {
    return log;
  }

  /** The process's PID; -1 before it started. */
  public long pid() {
    return process == null ? -1 : process.pid();
  }

  /** Starts the process and records its PID. */
  public Component start() throws IOException {
    Files.createDirectories(log.getParent());
    Files.createDirectories(pidFile.getParent());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new ComponentFailure(name + " did not start: " + e.getMessage(), e);
    }
    Files.writeString(pidFile, process.pid() + " " + binary + "\n");
    LOG.info("started {} (pid {}), log {}", name, process.pid(), log);
    return this;
  }

  /**
   * Waits until {@code ready} holds, polling; fails naming the component and showing its log's last
   * lines when the process exits first or {@code timeout} passes.
   */
  public Component awaitReady(BooleanSupplier ready, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new ComponentFailure(
            name + " exited with code " + process.exitValue() + " before it was ready" + tail());
      }
      if (ready.getAsBoolean()) {
        LOG.info("{} is ready", name);
        return this;
      }
      if (System.nanoTime() > deadline) {
        throw new ComponentFailure(
            name + " was not ready within " + timeout.toSeconds() + " s" + tail());
      }
      Thread.sleep(200);
    }
  }

  /** Kills the process at once (SIGKILL), as a crash would; its PID file stays until stop. */
  public void kill() {
    if (process != null) {
      process.destroyForcibly();
      LOG.info("killed {} (pid {})", name, process.pid());
    }
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  /** Stops the process: SIGTERM, then SIGKILL after {@link #GRACE}; removes its PID file. */
  public void stop() {
    if (process != null) {
      stop(process.toHandle(), name);
    }
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      LOG.warn("cannot remove {}: {}", pidFile, e.toString());
    }
  }

  /**
   * Stops every process whose PID file is in {@code pids} and whose command still names the binary
   * the file records, the last started first; returns the names of those stopped.
   */
  public static List<String> stopAll(Path pids) throws IOException {
    List<String> stopped = new ArrayList<>();
    if (!Files.isDirectory(pids)) {
      return stopped;
    }
    try (var files = Files.list(pids)) {
      List<Path> started =
          files
              .filter(f -> f.toString().endsWith(".pid"))
              .sorted(Comparator.reverseOrder())
              .toList();
      for (Path file : started) {
        String name =
            file.getFileName().toString().replaceFirst("^[0-9]+-", "").replaceFirst("\\.pid$", "");
        String[] fields = Files.readString(file).strip().split(" ");
        Optional<ProcessHandle> handle = ProcessHandle.of(Long.parseLong(fields[0]));
        boolean same =
            handle.isPresent()
                && handle.get().info().command().map(c -> c.endsWith(fields[1])).orElse(false);
        if (same) {
          stop(handle.get(), name);
          stopped.add(name);
        }
        Files.delete(file);
      }
    }
    return stopped;
  }

  private static void stop(ProcessHandle handle, String name) {
    if (!handle.isAlive()) {
      return;
    }
    handle.destroy();
    try {
      handle.onExit().get(GRACE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warn(
          "{} (pid {}) did not stop in {} s; killing it", name, handle.pid(), GRACE.toSeconds());
      handle.destroyForcibly();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      handle.destroyForcibly();
    }
    LOG.info("stopped {} (pid {})", name, handle.pid());
  }

  /** The last lines of the log, for a failure's message. */
  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return "; last lines of "
          + log
          + ":\n  "
          + String.join("\n  ", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    } catch (IOException e) {
      return "; its log " + log + " cannot be read: " + e.getMessage();
    }
  }

  /** A component that did not start or become ready. */
  public static final class ComponentFailure extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ComponentFailure(String message) {
      super(message);
    }

    ComponentFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
