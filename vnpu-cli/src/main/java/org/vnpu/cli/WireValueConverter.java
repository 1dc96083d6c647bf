package org.vnpu.cli;

import org.vnpu.api.WireValue;
import picocli.CommandLine;

/** Reads an option in the spelling the wire contract uses, naming the choices when it is wrong. */
abstract class WireValueConverter<E extends Enum<E> & WireValue>
    implements CommandLine.ITypeConverter<E> {

  private final Class<E> type;

  WireValueConverter(Class<E> type) {
    this.type = type;
  }

  @Override
  public E convert(String text) {
    return WireValue.parse(type, text)
        .orElseThrow(
            () ->
                new CommandLine.TypeConversionException(
                    "'" + text + "' is not one of " + WireValue.choices(type)));
  }
}
