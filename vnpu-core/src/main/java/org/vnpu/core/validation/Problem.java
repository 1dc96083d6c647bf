package org.vnpu.core.validation;

/**
 * One reason an input is refused, read as {@code <subject>: <rule>}, e.g. {@code
 * huawei.com/vnpu-number=2 with huawei.com/vnpu-cores=30 in container main: several vNPUs are only
 * allowed for whole cards}.
 *
 * @param subject what is wrong, with its value
 * @param rule the rule it breaks, and what to do where that helps
 */
public record Problem(String subject, String rule) {

  /** A problem with a free-form subject. */
  public static Problem of(String subject, String rule) {
    return new Problem(subject, rule);
  }

  /** A problem with one field's value: {@code field=value: rule}. */
  public static Problem field(String field, Object value, String rule) {
    return new Problem(field + "=" + value, rule);
  }

  /** The one-line message. */
  public String message() {
    return subject + ": " + rule;
  }

  @Override
  public String toString() {
    return message();
  }
}
