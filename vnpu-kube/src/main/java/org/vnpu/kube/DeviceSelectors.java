package org.vnpu.kube;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * DRA device selectors ({@code DeviceSelector.cel.expression} of DeviceClasses and claim requests)
 * evaluated as kube-scheduler's allocator evaluates them: the variable {@code device} with {@code
 * driver}, {@code attributes[domain][name]} and {@code capacity[domain][name]}, where a name
 * without a domain belongs to the driver's ({@code
 * staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go}, {@code DeviceMatches});
 * capacities are quantities with the Kubernetes quantity library ({@code
 * staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go}: {@code quantity}, {@code isQuantity},
 * {@code compareTo}, {@code isGreaterThan}, {@code isLessThan}, {@code sign}, {@code isInteger},
 * {@code asInteger}, {@code asApproximateFloat}, {@code add}, {@code sub}); an expression must be a
 * bool. Version attributes are offered as strings (this project's devices publish none). A missing
 * attribute is an evaluation error, as upstream: the allocator then fails on that node.
 *
 * <p>Compiled expressions are cached; the class is thread-safe.
 */
public final class DeviceSelectors {

  /** A Kubernetes {@code resource.Quantity}; equal when numerically equal, as upstream. */
  public record QuantityValue(BigDecimal value) {

    static QuantityValue parse(String text) {
      return new QuantityValue(
          io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
              new io.fabric8.kubernetes.api.model.Quantity(text)));
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof QuantityValue quantity && quantity.value.compareTo(value) == 0;
    }

    @Override
    public int hashCode() {
      return value.stripTrailingZeros().hashCode();
    }
  }

  private static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");

  private static final Cel CEL =
      CelFactory.standardCelBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addCompilerLibraries(CelExtensions.strings())
          .addRuntimeLibraries(CelExtensions.strings())
          .addVar("device", MapType.create(SimpleType.STRING, SimpleType.DYN))
          .setResultType(SimpleType.BOOL)
          .addFunctionDeclarations(
              CelFunctionDecl.newFunctionDeclaration(
                  "quantity",
                  CelOverloadDecl.newGlobalOverload(
                      "string_to_quantity", QUANTITY, SimpleType.STRING)),
              CelFunctionDecl.newFunctionDeclaration(
                  "isQuantity",
                  CelOverloadDecl.newGlobalOverload(
                      "is_quantity_string", SimpleType.BOOL, SimpleType.STRING)),
              member("compareTo", "quantity_compareTo", SimpleType.INT, QUANTITY),
              member("isGreaterThan", "quantity_isGreaterThan", SimpleType.BOOL, QUANTITY),
              member("isLessThan", "quantity_isLessThan", SimpleType.BOOL, QUANTITY),
              member("add", "quantity_add", QUANTITY, QUANTITY),
              member("sub", "quantity_sub", QUANTITY, QUANTITY),
              member("sign", "quantity_sign", SimpleType.INT),
              member("isInteger", "quantity_isInteger", SimpleType.BOOL),
              member("asInteger", "quantity_asInteger", SimpleType.INT),
              member("asApproximateFloat", "quantity_asApproximateFloat", SimpleType.DOUBLE))
          .addFunctionBindings(
              CelFunctionBinding.from("string_to_quantity", String.class, QuantityValue::parse),
              CelFunctionBinding.from(
                  "is_quantity_string", String.class, DeviceSelectors::isQuantity),
              binary("quantity_compareTo", (a, b) -> (long) a.compareTo(b)),
              binary("quantity_isGreaterThan", (a, b) -> a.compareTo(b) > 0),
              binary("quantity_isLessThan", (a, b) -> a.compareTo(b) < 0),
              binary("quantity_add", (a, b) -> new QuantityValue(a.add(b))),
              binary("quantity_sub", (a, b) -> new QuantityValue(a.subtract(b))),
              CelFunctionBinding.from(
                  "quantity_sign", QuantityValue.class, q -> (long) q.value().signum()),
              CelFunctionBinding.from(
                  "quantity_isInteger", QuantityValue.class, q -> isInteger(q.value())),
              CelFunctionBinding.from(
                  "quantity_asInteger", QuantityValue.class, DeviceSelectors::asInteger),
              CelFunctionBinding.from(
                  "quantity_asApproximateFloat", QuantityValue.class, q -> q.value().doubleValue()))
          .build();

  /**
   * Compiled expressions kept at most: claims are written by tenants, so their number of distinct
   * expressions is not ours to bound; past it the cache starts again.
   */
  static final int MAX_PROGRAMS = 1024;

  private final Map<String, CelRuntime.Program> programs = new ConcurrentHashMap<>();

  /**
   * Whether {@code device} of {@code driver} satisfies {@code expression}.
   *
   * @throws IllegalArgumentException naming the expression, when it does not compile, is not a
   *     bool, or fails on this device (a missing attribute, say)
   */
  public boolean matches(String expression, String driver, Device device) {
    if (programs.size() >= MAX_PROGRAMS && !programs.containsKey(expression)) {
      programs.clear();
    }
    CelRuntime.Program program = programs.computeIfAbsent(expression, DeviceSelectors::compile);
    try {
      Object result = program.eval(Map.of("device", variable(driver, device)));
      if (result instanceof Boolean matches) {
        return matches;
      }
      throw new IllegalArgumentException(
          "selector \""
              + expression
              + "\" gave a "
              + result.getClass().getSimpleName()
              + " for device "
              + device.getName()
              + ", not a bool");
    } catch (CelEvaluationException e) {
      throw new IllegalArgumentException(
          "CEL runtime error for device "
              + device.getName()
              + " in selector \""
              + expression
              + "\": "
              + e.getMessage(),
          e);
    }
  }

  /** How many compiled expressions are kept now. */
  int cached() {
    return programs.size();
  }

  private static CelRuntime.Program compile(String expression) {
    try {
      CelAbstractSyntaxTree ast = CEL.compile(expression).getAst();
      return CEL.createProgram(ast);
    } catch (CelValidationException | CelEvaluationException e) {
      throw new IllegalArgumentException(
          "selector \"" + expression + "\" does not compile: " + e.getMessage(), e);
    }
  }

  /** The {@code device} variable of {@code DeviceMatches}. */
  private static Map<String, Object> variable(String driver, Device device) {
    Map<String, Map<String, Object>> attributes = new HashMap<>();
    if (device.getAttributes() != null) {
      for (Map.Entry<String, DeviceAttribute> entry : device.getAttributes().entrySet()) {
        qualified(attributes, entry.getKey(), driver).put(id(entry.getKey()), value(entry));
      }
    }
    Map<String, Map<String, Object>> capacity = new HashMap<>();
    if (device.getCapacity() != null) {
      for (Map.Entry<String, DeviceCapacity> entry : device.getCapacity().entrySet()) {
        qualified(capacity, entry.getKey(), driver)
            .put(id(entry.getKey()), QuantityValue.parse(entry.getValue().getValue().toString()));
      }
    }
    return Map.of(
        "driver",
        driver,
        "attributes",
        attributes,
        "capacity",
        capacity,
        "allowMultipleAllocations",
        Boolean.TRUE.equals(device.getAllowMultipleAllocations()));
  }

  /** The map of a qualified name's domain; a name without one is the driver's. */
  private static Map<String, Object> qualified(
      Map<String, Map<String, Object>> byDomain, String name, String driver) {
    int slash = name.indexOf('/');
    String domain = slash < 0 ? driver : name.substring(0, slash);
    return byDomain.computeIfAbsent(domain, key -> new HashMap<>());
  }

  private static String id(String name) {
    return name.substring(name.indexOf('/') + 1);
  }

  private static Object value(Map.Entry<String, DeviceAttribute> entry) {
    DeviceAttribute attribute = entry.getValue();
    if (attribute.getInt() != null) {
      return attribute.getInt();
    }
    if (attribute.getBool() != null) {
      return attribute.getBool();
    }
    if (attribute.getString() != null) {
      return attribute.getString();
    }
    if (attribute.getVersion() != null) {
      return attribute.getVersion();
    }
    throw new IllegalArgumentException(
        "attribute " + entry.getKey() + ": unsupported attribute value");
  }

  private static CelFunctionDecl member(
      String name, String overload, CelType result, OpaqueType... args) {
    CelType[] parameters = new CelType[args.length + 1];
    parameters[0] = QUANTITY;
    System.arraycopy(args, 0, parameters, 1, args.length);
    return CelFunctionDecl.newFunctionDeclaration(
        name, CelOverloadDecl.newMemberOverload(overload, result, parameters));
  }

  private static CelFunctionBinding binary(
      String overload, BiFunction<BigDecimal, BigDecimal, Object> function) {
    return CelFunctionBinding.from(
        overload,
        QuantityValue.class,
        QuantityValue.class,
        (a, b) -> function.apply(a.value(), b.value()));
  }

  private static boolean isQuantity(String text) {
    try {
      QuantityValue.parse(text);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean isInteger(BigDecimal value) {
    return value.stripTrailingZeros().scale() <= 0
        && value.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
  }

  private static long asInteger(QuantityValue quantity) {
    if (!isInteger(quantity.value())) {
      throw new IllegalArgumentException(
          "cannot convert value to integer: " + quantity.value().toPlainString());
    }
    return quantity.value().longValueExact();
  }
}
