package org.vnpu.api;

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

  /** Environment variable that points the shim at {@link #CONTAINER_CONFIG}. */
  public static final String CONFIG_ENV = "VNPU_CONFIG";

  /**
   * Parent of the per-chip shared-region directories, the same path on the host (under the device
   * plugin's state directory) and in the container: {@code <this>/<dieId>/}.
   */
  public static final String CONTAINER_CHIPS = "/var/run/vnpu/chips";

  /** The shared-region file in a chip's directory. */
  public static final String REGION_FILE = "region";

  private ShimContract() {}

  /** The shared-region directory of the chip with {@code dieId}, inside a container. */
  public static String chipDirectory(String dieId) {
    return CONTAINER_CHIPS + "/" + dieId;
  }
}
