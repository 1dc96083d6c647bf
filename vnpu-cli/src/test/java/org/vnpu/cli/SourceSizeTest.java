package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link SourceSizes}' rules over the main Java sources of every module and the shim's C sources
 * ({@code libvnpu/src}); tests, fakes and generated code are free of them.
 */
class SourceSizeTest {

  /** The project root: this module's parent. */
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void noMainSourceFileIsOverTheFileRule() {
    assertThat(check(mainSources(), SourceSizes::longFile)).isEmpty();
  }

  @Test
  void noJavaFunctionIsOverTheFunctionRuleWithoutAReason() {
    assertThat(check(javaSources(), SourceSizes::longJavaFunctions)).isEmpty();
  }

  @Test
  void noShimFunctionIsOverTheFunctionRuleWithoutAReason() {
    assertThat(check(shimSources(), SourceSizes::longCFunctions)).isEmpty();
  }

  @Test
  void theRulesSeeTheProjectsSources() {
    assertThat(javaSources()).hasSizeGreaterThan(300);
    assertThat(shimSources()).extracting(path -> path.getFileName().toString()).contains("token.c");
  }

  @Test
  void aLongJavaMethodIsReportedUnlessACommentSaysWhyItIsKeptWhole() {
    String body = statements(SourceSizes.FUNCTION_LINES);
    String longOne = "class A {\n  void longOne() {\n" + body + "  }\n}\n";
    String reasoned =
        "class A {\n  /** Kept whole: one table. */\n  void longOne() {\n" + body + "  }\n}\n";
    String fits = "class A {\n  void fits() {\n" + statements(58) + "  }\n}\n";

    assertThat(SourceSizes.longJavaFunctions("A.java", longOne))
        .containsExactly(
            "A.java:2 longOne has 62 lines (at most 60, or a comment that starts \"Kept whole:\""
                + " and says why it cannot be split)");
    assertThat(SourceSizes.longJavaFunctions("A.java", reasoned)).isEmpty();
    assertThat(SourceSizes.longJavaFunctions("A.java", fits)).isEmpty();
  }

  @Test
  void aLongCFunctionIsReportedUnlessTheCommentAboveSaysWhyItIsKeptWhole() {
    String body = statements(SourceSizes.FUNCTION_LINES);
    String longOne =
        "static int x = 1;\n\nstatic int long_one(int a,\n    int b) {\n" + body + "}\n";
    String reasoned = "/* Kept whole: one state machine. */\nint long_one(void) {\n" + body + "}\n";

    assertThat(SourceSizes.longCFunctions("a.c", longOne))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("a.c:3 long_one has 63 lines");
    assertThat(SourceSizes.longCFunctions("a.c", reasoned)).isEmpty();
  }

  @Test
  void aLongFileIsReported() {
    assertThat(SourceSizes.longFile("A.java", statements(401))).hasSize(1);
    assertThat(SourceSizes.longFile("A.java", statements(400))).isEmpty();
  }

  private static String statements(int count) {
    return IntStream.range(0, count).mapToObj(i -> "    i++;\n").collect(Collectors.joining());
  }

  private static List<String> check(
      List<Path> sources, BiFunction<String, String, List<String>> rule) {
    List<String> violations = new ArrayList<>();
    for (Path source : sources) {
      try {
        violations.addAll(rule.apply(ROOT.relativize(source).toString(), Files.readString(source)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return violations;
  }

  private static List<Path> mainSources() {
    List<Path> sources = new ArrayList<>(javaSources());
    sources.addAll(shimSources());
    return sources;
  }

  private static List<Path> javaSources() {
    try (Stream<Path> modules = Files.list(ROOT)) {
      return modules
          .filter(module -> Files.isDirectory(module.resolve("src/main/java")))
          .flatMap(module -> files(module.resolve("src/main/java"), ".java"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> shimSources() {
    return files(ROOT.resolve("libvnpu/src"), ".c").sorted().toList();
  }

  private static Stream<Path> files(Path directory, String suffix) {
    try (Stream<Path> walk = Files.walk(directory)) {
      return walk.filter(path -> path.toString().endsWith(suffix)).toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
