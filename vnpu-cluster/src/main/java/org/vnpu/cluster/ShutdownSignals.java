package org.vnpu.cluster;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives SIGINT and SIGTERM back to the JVM's shutdown after a Helm call. Once helm-java's Go
 * library has run an install or upgrade, neither signal reaches the JVM's signal thread any more,
 * so Ctrl-C stopped nothing and the shutdown hooks that stop the cluster never ran (reproduced with
 * a program that upgrades a release and signals itself; re-registering the handlers restores them).
 * Each is registered again with what the JVM does by default: exit with 128 + the signal's number,
 * which runs the shutdown hooks. Reflection keeps the build free of the warning that {@code
 * sun.misc.Signal}, an unsupported but exported API, draws from the compiler.
 */
final class ShutdownSignals {

  private static final Logger LOG = LoggerFactory.getLogger(ShutdownSignals.class);

  private ShutdownSignals() {}

  /** Registers the JVM's exit on SIGINT and SIGTERM again. */
  static void reclaim() {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method number = signal.getMethod("getNumber");
      InvocationHandler exit =
          (proxy, method, arguments) ->
              switch (method.getName()) {
                case "handle" -> {
                  System.exit(128 + (int) number.invoke(arguments[0]));
                  yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == arguments[0];
                default -> "exit on a shutdown signal";
              };
      Object handler =
          Proxy.newProxyInstance(
              ShutdownSignals.class.getClassLoader(), new Class<?>[] {handlerType}, exit);
      Method handle = signal.getMethod("handle", signal, handlerType);
      for (String name : List.of("INT", "TERM")) {
        handle.invoke(null, signal.getConstructor(String.class).newInstance(name), handler);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "cannot register SIGINT and SIGTERM again; Ctrl-C may not stop this: {}", e.toString());
    }
  }
}
