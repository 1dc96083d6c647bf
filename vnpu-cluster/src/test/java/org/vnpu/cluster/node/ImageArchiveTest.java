package org.vnpu.cluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageArchiveTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path directory;

  @Test
  void writesADockerSaveArchiveWhoseLayerMatchesItsDigestAndHoldsEveryParent() throws Exception {
    Path program = directory.resolve("tool");
    Files.writeString(program, "#!/bin/sh\n");
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-x---"));
    Path tar = directory.resolve("image.tar");

    ImageArchive.named("localhost/vnpu/test:1")
        .file("/usr/local/bin/tool", program)
        .text("/etc/passwd", "root:x:0:0::/root:/bin/sh\n")
        .symlink("/bin/sh", "busybox")
        .scratchDirectory("/tmp")
        .entrypoint(List.of("/usr/local/bin/tool"))
        .env("PATH", "/usr/local/bin:/bin")
        .write(tar);

    Map<String, byte[]> files = read(Files.newInputStream(tar));
    JsonNode manifest = JSON.readTree(files.get("manifest.json")).get(0);
    assertThat(manifest.get("RepoTags").get(0).asText()).isEqualTo("localhost/vnpu/test:1");
    JsonNode config = JSON.readTree(files.get(manifest.get("Config").asText()));
    byte[] layer = files.get(manifest.get("Layers").get(0).asText());
    assertThat(config.at("/rootfs/diff_ids/0").asText())
        .isEqualTo(
            "sha256:"
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(layer)));
    assertThat(config.at("/config/Entrypoint/0").asText()).isEqualTo("/usr/local/bin/tool");
    assertThat(config.at("/config/Env/0").asText()).isEqualTo("PATH=/usr/local/bin:/bin");
    assertThat(config.get("os").asText()).isEqualTo("linux");

    Map<String, TarArchiveEntry> entries = entries(layer);
    assertThat(entries.keySet())
        .as("every parent directory comes before what it holds")
        .containsExactly(
            "bin/",
            "bin/sh",
            "etc/",
            "etc/passwd",
            "tmp/",
            "usr/",
            "usr/local/",
            "usr/local/bin/",
            "usr/local/bin/tool");
    assertThat(entries.get("usr/local/bin/tool").getMode() & 07777).isEqualTo(0750);
    assertThat(entries.get("tmp/").getMode() & 07777).isEqualTo(01777);
    assertThat(entries.get("bin/sh").getLinkName()).isEqualTo("busybox");
  }

  @Test
  void aTreeKeepsItsLinksAndModes() throws IOException {
    Path runtime = Files.createDirectories(directory.resolve("runtime/bin"));
    Files.writeString(runtime.resolve("java"), "elf");
    Files.setPosixFilePermissions(
        runtime.resolve("java"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createSymbolicLink(runtime.resolve("jre"), Path.of("java"));
    Path tar = directory.resolve("image.tar");

    ImageArchive.named("localhost/vnpu/java:1")
        .tree("/opt/java", directory.resolve("runtime"))
        .write(tar);

    Map<String, byte[]> files = read(Files.newInputStream(tar));
    JsonNode manifest = JSON.readTree(files.get("manifest.json")).get(0);
    Map<String, TarArchiveEntry> entries =
        entries(files.get(manifest.get("Layers").get(0).asText()));
    assertThat(entries.get("opt/java/bin/java").getMode() & 0777).isEqualTo(0755);
    assertThat(entries.get("opt/java/bin/jre").getLinkName()).isEqualTo("java");
  }

  @Test
  void refusesReferencesAPullWouldTakeElsewhereAndPathsOutsideTheImage() {
    assertThatThrownBy(() -> ImageArchive.named("vnpu:1"))
        .hasMessageContaining("image reference 'vnpu:1' must be host/repository:tag");
    ImageArchive image = ImageArchive.named("localhost/vnpu/test:1");
    for (String path : List.of("relative/file", "/a/../../etc", "/", "//x")) {
      assertThatThrownBy(() -> image.text(path, ""))
          .as(path)
          .hasMessageContaining("image path '" + path + "' must be absolute and normal");
    }
  }

  private static Map<String, byte[]> read(InputStream in) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
        files.put(entry.getName(), tar.readAllBytes());
      }
    }
    return files;
  }

  private static Map<String, TarArchiveEntry> entries(byte[] layer) throws IOException {
    Map<String, TarArchiveEntry> entries = new LinkedHashMap<>();
    try (TarArchiveInputStream tar = new TarArchiveInputStream(new ByteArrayInputStream(layer))) {
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
        entries.put(entry.getName(), entry);
      }
    }
    return entries;
  }
}
