package org.vnpu.api.region;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A chip's region (layout in {@code vnpu_contract.h}): the 128 bytes through which the shims of
 * every container on the chip pass the AI Core token. The device plugin creates it; containers get
 * this one file mounted read-write and nothing else of the chip's directory, so they can neither
 * replace it nor plant files beside it. Every container can write its bytes, so the shim trusts
 * none of them (docs/security.md).
 */
public final class ChipRegion {

  public static final int MAGIC = 0x55504E56;
  public static final int VERSION = 3;
  public static final int SIZE = 128;
  public static final int TOKEN_OFFSET = 16;
  public static final int CREDITOR_NOTICE_OFFSET = 24;
  public static final int DIE_ID_OFFSET = 32;
  public static final int ONLINE_NOTICE_OFFSET = 96;
  public static final int OFFLINE_NOTICE_OFFSET = 104;
  private static final int ID_LENGTH = 64;

  private ChipRegion() {}

  /**
   * Creates the region of chip {@code dieId} at {@code file} (mode 0666: containers run as any
   * user), or writes its header again in place when the file exists, so that running containers
   * keep their mount of it.
   *
   * @throws IOException also when {@code file} exists and is no regular file
   */
  public static void prepare(Path file, String dieId) throws IOException {
    byte[] id = dieId.getBytes(StandardCharsets.UTF_8);
    if (id.length >= ID_LENGTH) {
      throw new IOException("die ID '" + dieId + "' is longer than " + (ID_LENGTH - 1) + " bytes");
    }
    ByteBuffer header = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    header.putInt(0, MAGIC).putInt(4, VERSION).putInt(8, SIZE).put(DIE_ID_OFFSET, id);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      Path temporary = Files.createTempFile(file.getParent(), ".region-", ".tmp");
      Files.write(temporary, header.array());
      Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-rw-rw-"));
      Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
      return;
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(file + " is not a regular file; it cannot be a chip region");
    }
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      channel.truncate(SIZE);
      channel.write(header.slice(0, TOKEN_OFFSET), 0);
      channel.write(header.slice(DIE_ID_OFFSET, ID_LENGTH), DIE_ID_OFFSET);
      if (channel.size() < SIZE) {
        channel.write(ByteBuffer.allocate(1), SIZE - 1);
      }
    }
  }
}
