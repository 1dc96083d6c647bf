package org.vnpu.api;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where the runtime shim finds its files inside a container, and how the device plugin names them
 * on the host. The C side reads the same names from {@code libvnpu/include/vnpu_contract.h}.
 */
public final class ShimContract {

  /** The shim library inside a container. */
  public static final String CONTAINER_LIBRARY = "/usr/local/vnpu/lib/libvnpu.so";

  /** The preload list inside a container; it names {@link #CONTAINER_LIBRARY}. */
  public static final String CONTAINER_PRELOAD = "/etc/ld.so.preload";

  /**
   * The container's own config file (read-only), format {@link
   * org.vnpu.api.codec.ShimConfigFormat}.
   */
  public static final String CONTAINER_CONFIG = "/etc/vnpu/vnpu.conf";

  /**
   * Environment variable that points the shim at another config, honoured only where nothing is at
   * {@link #CONTAINER_CONFIG} (outside a vNPU container: the sandbox and the C tests).
   */
  public static final String CONFIG_ENV = "VNPU_CONFIG";

  /** Where a chip's region is mounted in a container: {@code <this>/<dieId>/region}. */
  public static final String CONTAINER_CHIPS = "/var/run/vnpu/chips";

  /** The region file in a chip's directory. */
  public static final String REGION_FILE = "region";

  /** The container's own books directory, one file per chip named by its die ID. */
  public static final String CONTAINER_BOOKS = "/var/run/vnpu/books";

  private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,253}");

  private ShimContract() {}

  /** The region of the chip with {@code dieId}, inside a container. */
  public static String chipRegion(String dieId) {
    return CONTAINER_CHIPS + "/" + dieId + "/" + REGION_FILE;
  }

  /**
   * The region of the chip with {@code dieId} on the host, under the device plugin's state
   * directory.
   *
   * @throws IllegalArgumentException when the die ID could name another path
   */
  public static Path hostRegion(Path state, String dieId) {
    return state.resolve("chips").resolve(safe(dieId, "die ID")).resolve(REGION_FILE);
  }

  /**
   * A container's books directory on the host, under the device plugin's state directory: {@code
   * pods/<key>/<container>.books}. The key names the hand-out: the reservation's nonce for the
   * device plugin (it stays with the allocation when interchangeable pods swap, ADR 0013), the
   * claim's UID for the DRA driver.
   *
   * @throws IllegalArgumentException when the key or the container name could name another path
   */
  public static Path hostBooksDirectory(Path state, String key, String container) {
    return hostFilesDirectory(state, key).resolve(safe(container, "container name") + ".books");
  }

  /** The directory of one hand-out's files on the host: {@code pods/<key>}. */
  public static Path hostFilesDirectory(Path state, String key) {
    return state.resolve("pods").resolve(safe(key, "hand-out key"));
  }

  /** A container's books of the chip with {@code dieId} on the host. */
  public static Path hostBooks(Path state, String key, String container, String dieId) {
    return hostBooksDirectory(state, key, container).resolve(safe(dieId, "die ID"));
  }

  private static String safe(String name, String what) {
    if (!SAFE_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException(what + " '" + name + "' cannot name a file on the node");
    }
    return name;
  }
}
