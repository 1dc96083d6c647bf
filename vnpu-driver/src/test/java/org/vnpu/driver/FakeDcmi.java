package org.vnpu.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The fake libdcmi.so of libvnpu/fakes and the config file it reads (see fake_dcmi.c). */
final class FakeDcmi {

  static final Path LIBRARY = Path.of(System.getProperty("vnpu.fake.dcmi"));
  static final Path CONFIG = Path.of(System.getenv("VNPU_FAKE_DCMI_CONFIG"));

  private FakeDcmi() {}

  /** Replaces the fake's config atomically, so that a running driver never reads half a file. */
  static void configure(String... lines) throws IOException {
    Files.createDirectories(CONFIG.getParent());
    Path temporary = CONFIG.resolveSibling("fake-dcmi.conf.tmp");
    Files.writeString(temporary, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    Files.move(
        temporary, CONFIG, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
