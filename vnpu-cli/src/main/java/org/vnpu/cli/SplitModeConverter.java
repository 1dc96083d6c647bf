package org.vnpu.cli;

import org.vnpu.api.SplitMode;

/** Reads {@code --split-mode} in the spelling of the {@code huawei.com/vnpu-mode} label. */
final class SplitModeConverter extends WireValueConverter<SplitMode> {

  SplitModeConverter() {
    super(SplitMode.class);
  }
}
