package org.vnpu.cluster.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * A container image of one layer, written as a {@code docker save} archive: {@code manifest.json},
 * the image config and the layer's tar. {@code ctr images import} loads it into containerd, and Jib
 * takes it as a base image ({@code tar://}). Paths in the image are absolute; a directory is
 * created for every parent a file needs. Nothing is read from a registry.
 */
public final class ImageArchive {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String reference;
  private final Map<String, Entry> entries = new TreeMap<>();
  private List<String> entrypoint = List.of();
  private final Map<String, String> environment = new LinkedHashMap<>();

  private ImageArchive(String reference) {
    this.reference = reference;
  }

  /**
   * An empty image that will be tagged {@code reference}.
   *
   * @param reference {@code repository:tag}; a repository without a registry host is one a kubelet
   *     would pull from Docker Hub, so a local image carries {@code localhost/}
   */
  public static ImageArchive named(String reference) {
    if (!reference.matches("[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+:[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException(
          "image reference '"
              + reference
              + "' must be host/repository:tag in lower case, e.g. localhost/vnpu/pause:v1");
    }
    return new ImageArchive(reference);
  }

  public String reference() {
    return reference;
  }

  /** The file {@code source} at {@code path}, with its permissions; symbolic links are followed. */
  public ImageArchive file(String path, Path source) throws IOException {
    put(path, Entry.file(Files.readAllBytes(source), mode(source)));
    return this;
  }

  public ImageArchive bytes(String path, byte[] content, int mode) {
    put(path, Entry.file(content.clone(), mode));
    return this;
  }

  public ImageArchive text(String path, String content) {
    return bytes(path, content.getBytes(StandardCharsets.UTF_8), 0644);
  }

  public ImageArchive directory(String path) {
    put(path, Entry.directory(0755));
    return this;
  }

  /** An empty directory anyone may write, with the sticky bit, as {@code /tmp} is. */
  public ImageArchive scratchDirectory(String path) {
    put(path, Entry.directory(01777));
    return this;
  }

  public ImageArchive symlink(String path, String target) {
    put(path, Entry.symlink(target));
    return this;
  }

  /** Everything below {@code source} under {@code path}, symbolic links kept as links. */
  public ImageArchive tree(String path, Path source) throws IOException {
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String target = join(path, source.relativize(file).toString());
        if (Files.isSymbolicLink(file)) {
          symlink(target, Files.readSymbolicLink(file).toString());
        } else if (Files.isDirectory(file)) {
          put(target, Entry.directory(mode(file)));
        } else {
          file(target, file);
        }
      }
    }
    return this;
  }

  public ImageArchive entrypoint(List<String> command) {
    this.entrypoint = List.copyOf(command);
    return this;
  }

  public ImageArchive env(String name, String value) {
    environment.put(name, value);
    return this;
  }

  /** Writes the archive to {@code tar}. */
  public void write(Path tar) throws IOException {
    byte[] layer = layer();
    String layerDigest = sha256(layer);
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("architecture", architecture());
    config.put("os", "linux");
    Map<String, Object> runtime = new LinkedHashMap<>();
    runtime.put(
        "Env", environment.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    if (!entrypoint.isEmpty()) {
      runtime.put("Entrypoint", entrypoint);
    }
    config.put("config", runtime);
    config.put("rootfs", Map.of("type", "layers", "diff_ids", List.of("sha256:" + layerDigest)));
    byte[] configJson = JSON.writeValueAsBytes(config);
    String configName = sha256(configJson) + ".json";
    String layerName = layerDigest + "/layer.tar";
    byte[] manifest =
        JSON.writeValueAsBytes(
            List.of(
                Map.of(
                    "Config",
                    configName,
                    "RepoTags",
                    List.of(reference),
                    "Layers",
                    List.of(layerName))));
    Files.createDirectories(tar.toAbsolutePath().getParent());
    try (TarArchiveOutputStream out = tarStream(Files.newOutputStream(tar))) {
      add(out, layerDigest, Entry.directory(0755));
      add(out, layerName, Entry.file(layer, 0644));
      add(out, configName, Entry.file(configJson, 0644));
      add(out, "manifest.json", Entry.file(manifest, 0644));
    }
  }

  private byte[] layer() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream out = tarStream(bytes)) {
      for (Map.Entry<String, Entry> entry : entries.entrySet()) {
        add(out, entry.getKey().substring(1), entry.getValue());
      }
    }
    return bytes.toByteArray();
  }

  private void put(String path, Entry entry) {
    if (!path.startsWith("/")
        || path.contains("//")
        || path.contains("/../")
        || path.length() < 2) {
      throw new IllegalArgumentException(
          "image path '" + path + "' must be absolute and normal, e.g. /usr/bin/tool");
    }
    String normal = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    for (int slash = normal.indexOf('/', 1); slash > 0; slash = normal.indexOf('/', slash + 1)) {
      entries.putIfAbsent(normal.substring(0, slash), Entry.directory(0755));
    }
    entries.put(normal, entry);
  }

  private static TarArchiveOutputStream tarStream(OutputStream out) {
    TarArchiveOutputStream tar = new TarArchiveOutputStream(out);
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
    return tar;
  }

  private static void add(TarArchiveOutputStream out, String name, Entry entry) throws IOException {
    TarArchiveEntry tar;
    if (entry.link() != null) {
      tar = new TarArchiveEntry(name, TarArchiveEntry.LF_SYMLINK);
      tar.setLinkName(entry.link());
    } else {
      tar = new TarArchiveEntry(entry.content() == null ? name + "/" : name);
      tar.setMode((entry.content() == null ? 040000 : 0100000) | entry.mode());
      if (entry.content() != null) {
        tar.setSize(entry.content().length);
      }
    }
    tar.setModTime(0);
    out.putArchiveEntry(tar);
    if (entry.content() != null) {
      out.write(entry.content());
    }
    out.closeArchiveEntry();
  }

  private static String join(String path, String relative) {
    if (relative.isEmpty()) {
      return path;
    }
    return (path.endsWith("/") ? path : path + "/") + relative;
  }

  private static int mode(Path file) throws IOException {
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
    int mode = 0;
    for (PosixFilePermission permission : permissions) {
      mode |= 1 << (8 - permission.ordinal());
    }
    return Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS) ? mode | 0755 : mode;
  }

  private static String architecture() {
    String arch = System.getProperty("os.arch");
    return switch (arch) {
      case "amd64", "x86_64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      default -> throw new IllegalStateException("no image architecture for os.arch " + arch);
    };
  }

  private static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A file (content), directory (neither) or symbolic link (link). */
  private record Entry(byte[] content, int mode, String link) {
    static Entry file(byte[] content, int mode) {
      return new Entry(content, mode, null);
    }

    static Entry directory(int mode) {
      return new Entry(null, mode, null);
    }

    static Entry symlink(String target) {
      return new Entry(null, 0777, target);
    }
  }

  /** The entries' paths in order, for tests. */
  List<String> paths() {
    return new ArrayList<>(entries.keySet());
  }
}
