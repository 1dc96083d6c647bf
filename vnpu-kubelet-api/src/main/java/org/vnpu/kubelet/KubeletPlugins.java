package org.vnpu.kubelet;

/** The names a plugin and the kubelet's plugin watcher agree on. */
public final class KubeletPlugins {

  /** {@code PluginInfo.type} of a DRA driver. */
  public static final String DRA_PLUGIN = "DRAPlugin";

  /**
   * The DRA service version both speak ({@code dra/v1/types.go}); the kubelet takes the first of
   * the plugin's versions it knows.
   */
  public static final String DRA_V1 = "v1.DRAPlugin";

  private KubeletPlugins() {}
}
