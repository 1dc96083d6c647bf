package org.vnpu.cli;

/** Memory sizes for people: whole GiB where exact, MiB otherwise. */
final class MemoryText {

  private MemoryText() {}

  static String of(long mebibytes) {
    return mebibytes % 1024 == 0 ? mebibytes / 1024 + " GiB" : mebibytes + " MiB";
  }
}
