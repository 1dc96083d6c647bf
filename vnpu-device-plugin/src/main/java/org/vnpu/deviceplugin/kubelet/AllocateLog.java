package org.vnpu.deviceplugin.kubelet;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The device plugin's log line for one {@code Allocate} call: the resource and, per container of
 * the request, its device IDs as {@link #shown} gives them. It records the kubelet's order of calls
 * and its choice of IDs, which the real-node scenario reads back ({@link #parse}) to compare
 * kubelets.
 */
public final class AllocateLog {

  private static final String PREFIX = "Allocate ";
  private static final String MIDDLE = ": device IDs per container ";
  private static final Pattern LINE =
      Pattern.compile(Pattern.quote(PREFIX) + "(\\S+)" + Pattern.quote(MIDDLE) + "\\[(.*)]\\s*$");
  private static final Pattern CONTAINER = Pattern.compile("(\\d+ )?\\[[^\\]]*](\\.\\.\\.)?");

  /** One logged call: the resource and each container's IDs as shown. */
  public record Call(String resource, List<String> shownPerContainer) {}

  private AllocateLog() {}

  /** The log line of an Allocate call of {@code resource}. */
  public static String line(String resource, List<List<String>> idsPerContainer) {
    return PREFIX + resource + MIDDLE + idsPerContainer.stream().map(AllocateLog::shown).toList();
  }

  /** Device IDs as a log line shows them: sorted, and past four only how many and the first 3. */
  public static String shown(List<String> ids) {
    List<String> sorted = ids.stream().sorted().toList();
    return sorted.size() <= 4
        ? sorted.toString()
        : sorted.size() + " " + sorted.subList(0, 3) + "...";
  }

  /** How many IDs a {@link #shown} text stands for. */
  public static int count(String shown) {
    if (shown.equals("[]")) {
      return 0;
    }
    return shown.startsWith("[")
        ? shown.split(",").length
        : Integer.parseInt(shown.substring(0, shown.indexOf(' ')));
  }

  /** The call a log line records, or empty for any other line (a log prefix before it is fine). */
  public static Optional<Call> parse(String logLine) {
    Matcher line = LINE.matcher(logLine);
    if (!line.find()) {
      return Optional.empty();
    }
    List<String> shown = new ArrayList<>();
    Matcher container = CONTAINER.matcher(line.group(2));
    while (container.find()) {
      shown.add(container.group());
    }
    return Optional.of(new Call(line.group(1), List.copyOf(shown)));
  }
}
