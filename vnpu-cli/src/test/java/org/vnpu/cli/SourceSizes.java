package org.vnpu.cli;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.comments.Comment;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The size rules of CONTRIBUTING.md ("Size"): a main source file has at most {@link #FILE_LINES}
 * lines and a function at most {@link #FUNCTION_LINES}, unless a comment on the function starts
 * with {@link #KEPT_WHOLE} and says why it cannot be split. Each check answers the rule's
 * violations in one source, as messages that name the file, the function, its lines and the rule.
 */
final class SourceSizes {

  static final int FILE_LINES = 400;
  static final int FUNCTION_LINES = 60;
  static final String KEPT_WHOLE = "Kept whole:";

  /** A line at column 0 that may open a C function definition: a name, then a parenthesis. */
  private static final Pattern C_SIGNATURE =
      Pattern.compile("^(?!typedef|struct\\s+\\w+\\s*\\{|enum|#|/|\\s)[A-Za-z_].*\\(.*");

  private SourceSizes() {}

  /** The file's violation of the file rule, if it breaks it. */
  static List<String> longFile(String name, String source) {
    long lines = source.lines().count();
    return lines > FILE_LINES
        ? List.of(name + " has " + lines + " lines (at most " + FILE_LINES + ")")
        : List.of();
  }

  /** The methods and constructors of a Java source over the function rule without a reason. */
  static List<String> longJavaFunctions(String name, String source) {
    ParseResult<CompilationUnit> parsed =
        new JavaParser(
                new ParserConfiguration()
                    .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17))
            .parse(source);
    CompilationUnit unit =
        parsed
            .getResult()
            .filter(ignored -> parsed.isSuccessful())
            .orElseThrow(() -> new IllegalArgumentException(name + ": " + parsed.getProblems()));
    List<String> violations = new ArrayList<>();
    for (CallableDeclaration<?> function : unit.findAll(CallableDeclaration.class)) {
      int begin = function.getBegin().orElseThrow().line;
      int lines = function.getEnd().orElseThrow().line - begin + 1;
      boolean reasoned =
          function.getComment().map(Comment::getContent).orElse("").contains(KEPT_WHOLE);
      if (lines > FUNCTION_LINES && !reasoned) {
        violations.add(violation(name, begin, function.getNameAsString(), lines));
      }
    }
    return violations;
  }

  /**
   * The function definitions of a C source over the function rule without a reason in the comment
   * right above them. A definition starts at column 0 and ends at the first {@code }} at column 0,
   * as clang-format lays out the shim.
   */
  static List<String> longCFunctions(String name, String source) {
    List<String> lines = source.lines().toList();
    List<String> violations = new ArrayList<>();
    for (int start = 0; start < lines.size(); start++) {
      int body = bodyOpening(lines, start);
      if (body < 0) {
        continue;
      }
      int end = body;
      while (end < lines.size() && !lines.get(end).equals("}")) {
        end++;
      }
      int length = end - start + 1;
      if (length > FUNCTION_LINES && !commentAbove(lines, start).contains(KEPT_WHOLE)) {
        String function = lines.get(start).replaceAll("\\(.*", "").replaceAll(".*[\\s*]", "");
        violations.add(violation(name, start + 1, function, length));
      }
      start = end;
    }
    return violations;
  }

  /** The line whose {@code {} opens the body of a definition that starts at {@code start}, or -1. */
  private static int bodyOpening(List<String> lines, int start) {
    if (!C_SIGNATURE.matcher(lines.get(start)).matches()) {
      return -1;
    }
    for (int line = start; line < lines.size(); line++) {
      String text = lines.get(line).strip();
      if (text.endsWith(";") || text.contains("=")) {
        return -1; // a declaration or an initializer
      }
      if (text.endsWith("{")) {
        return line;
      }
    }
    return -1;
  }

  private static String commentAbove(List<String> lines, int start) {
    StringBuilder comment = new StringBuilder();
    for (int line = start - 1; line >= 0; line--) {
      String text = lines.get(line).strip();
      if (!(text.startsWith("/*") || text.startsWith("*") || text.startsWith("//"))) {
        break;
      }
      comment.insert(0, text + "\n");
    }
    return comment.toString();
  }

  private static String violation(String file, int line, String function, int lines) {
    return file
        + ":"
        + line
        + " "
        + function
        + " has "
        + lines
        + " lines (at most "
        + FUNCTION_LINES
        + ", or a comment that starts \""
        + KEPT_WHOLE
        + "\" and says why it cannot be split)";
  }
}
