package org.vnpu.kube;

import java.util.List;

/**
 * Whether a label meets one requirement of a selector, as {@code k8s.io/apimachinery}'s {@code
 * labels.Requirement.Matches} decides it: {@code In}, {@code NotIn}, {@code Exists} and {@code
 * DoesNotExist} for label selectors, and also {@code Gt} and {@code Lt} (one integer value) for
 * node selectors. An operator it does not know matches nothing.
 */
public final class LabelRequirements {

  private LabelRequirements() {}

  /**
   * @param operator the requirement's operator
   * @param values the requirement's values (null as none)
   * @param value the label's value, null when the object has no such label
   */
  public static boolean holds(String operator, List<String> values, String value) {
    List<String> wanted = values == null ? List.of() : values;
    boolean present = value != null;
    switch (operator == null ? "" : operator) {
      case "In":
        return present && wanted.contains(value);
      case "NotIn":
        return !present || !wanted.contains(value);
      case "Exists":
        return present;
      case "DoesNotExist":
        return !present;
      case "Gt":
      case "Lt":
        if (!present || wanted.size() != 1) {
          return false;
        }
        try {
          long label = Long.parseLong(value);
          long bound = Long.parseLong(wanted.get(0));
          return operator.equals("Gt") ? label > bound : label < bound;
        } catch (NumberFormatException e) {
          return false;
        }
      default:
        return false;
    }
  }
}
