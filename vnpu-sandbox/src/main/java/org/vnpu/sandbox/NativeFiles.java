package org.vnpu.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The C side the sandbox runs, built by libvnpu and packed into the jar: the shim, the fake Ascend
 * runtime, the workload program every container runs, and the fake DCMI a real node's device plugin
 * loads.
 *
 * @param shim libvnpu.so
 * @param workload the container program; it finds the fake runtime beside itself
 */
public record NativeFiles(Path shim, Path workload) {

  private static final String RESOURCES = "native/";
  private static final List<String> FILES =
      List.of(
          "libvnpu.so",
          "fakes/libruntime.so",
          "fakes/libascendcl.so",
          "fakes/vnpu-workload",
          "fakes/libdcmi.so");

  /** Unpacks the files into {@code directory}. */
  public static NativeFiles unpack(Path directory) throws IOException {
    for (String name : FILES) {
      Path target = directory.resolve(name);
      Files.createDirectories(target.getParent());
      try (InputStream in = NativeFiles.class.getResourceAsStream(RESOURCES + name)) {
        if (in == null) {
          throw new IOException(
              "the jar lacks "
                  + RESOURCES
                  + name
                  + "; build libvnpu first (./mvnw -pl vnpu-sandbox -am package)");
        }
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return new NativeFiles(
        directory.resolve("libvnpu.so"), directory.resolve("fakes/vnpu-workload"));
  }

  /** A fake library beside the workload program: libruntime.so, libascendcl.so or libdcmi.so. */
  public Path fake(String library) {
    return workload.resolveSibling(library);
  }
}
