import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

// Block-bodied and nested lambdas, and assignments in them (issue 27 #7).
// Each show line holds a Java expression; TestBlockLambdas evaluates the
// same text in the Debug Console at @blocks (the same locals, a fresh
// Blocks, total reset) and compares it with what this program prints for
// it, javac-compiled.
public class Blocks {
    int hits;
    static int total;
    final List<String> words = List.of("pear", "fig", "banana", "kiwi");

    void expected() {
        total = 0;
        List<String> xs = words;
        int limit = 3;
        Map<String, Integer> m = new TreeMap<>(Map.of("a", 1, "b", 2));
        show("local", xs.stream().map(s -> { String t = s.toUpperCase(); return t + t.length(); }).collect(Collectors.toList()));
        show("for", xs.stream().mapToInt(s -> { int v = 0; for (int i = 0; i < s.length(); i++) { if (s.charAt(i) == 'a') continue; v += i; } return v; }).sum());
        show("while", IntStream.rangeClosed(1, 5).map(n -> { int f = 1; while (n > 1) { f *= n; n--; } return f; }).boxed().collect(Collectors.toList()));
        show("do", IntStream.of(12, 7).map(n -> { int c = 0; do { n = n % 2 == 0 ? n / 2 : 3 * n + 1; c++; } while (n != 1); return c; }).boxed().collect(Collectors.toList()));
        show("nested", xs.stream().map(s -> xs.stream().filter(o -> o.length() < s.length()).count()).collect(Collectors.toList()));
        show("nestedref", xs.stream().map(s -> s.chars().mapToObj(c -> String.valueOf((char) c)).map(String::toUpperCase).collect(Collectors.joining("-"))).collect(Collectors.toList()));
        show("outerlocal", xs.stream().map(s -> { int k = s.length() * limit; return IntStream.range(0, 3).map(i -> i * k + limit).sum(); }).collect(Collectors.toList()));
        show("field", xs.stream().mapToInt(s -> { hits += s.length(); return hits; }).max().getAsInt());
        show("static", xs.stream().mapToInt(s -> total += s.length()).sum());
        show("element", xs.stream().map(s -> { int[] n = {0}; s.chars().forEach(c -> n[0] += c == 'a' ? 1 : 0); return s + ":" + n[0]; }).collect(Collectors.toList()));
        show("foreach", Stream.of(xs).map(l -> { String r = ""; for (String w : l) { if (w.length() == 3) break; r += w.charAt(0); } return r; }).findFirst().get());
        show("var", m.entrySet().stream().map(e -> { var k = e.getKey(); var v = e.getValue() * 10; return k + v; }).collect(Collectors.joining(",")));
        show("supplier", Optional.of(limit).map(l -> IntStream.rangeClosed(1, l).mapToObj(i -> "x".repeat(i)).collect(Collectors.joining("|"))).get());
        show("comparator", xs.stream().sorted((a, b) -> { int d = a.length() - b.length(); return d != 0 ? d : a.compareTo(b); }).collect(Collectors.toList()));
        show("ifelse", xs.stream().map(s -> { String kind; if (s.length() > 4) kind = "long"; else if (s.length() > 3) kind = "mid"; else kind = "short"; return kind; }).collect(Collectors.toList()));
        show("increment", xs.stream().map(s -> { int i = 0; int a = i++; int b = ++i; return a + "," + b + "," + i; }).findFirst().get());
        show("narrow", Stream.of(1).map(x -> { byte b = 120; b += 10; char c = 'a'; c += 1; double d = 7; d /= 2; return b + " " + c + " " + d; }).findFirst().get());
        show("array", Stream.of(4).map(n -> { long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = 1L << (10 * i); return a[n - 1] + a[0]; }).findFirst().get());
        show("pattern", Stream.of(1, "two", 3.0, -4).map(o -> o instanceof String s ? s.length() : o instanceof Integer i && i > 0 ? i * 10 : -1).collect(Collectors.toList()));
        show("patternblock", Stream.of("a", 2).map(o -> { if (o instanceof Integer n) return n + 1; if (!(o instanceof String t)) return 0; return t.length(); }).collect(Collectors.toList()));
        show("catch", Stream.of("1", "x", "3").map(s -> { try { return Integer.parseInt(s); } catch (NumberFormatException e) { return -1; } }).collect(Collectors.toList()));
        show("multicatch", Stream.of(0, 1, 2).map(i -> { try { if (i == 0) throw new IllegalStateException("zero"); return List.of("a").get(i); } catch (IllegalStateException | IndexOutOfBoundsException e) { return e.getClass().getSimpleName(); } }).collect(Collectors.toList()));
        show("after", hits + " " + total);
    }

    void stop() {
        total = 0;
        List<String> xs = words;
        int limit = 3;
        Map<String, Integer> m = new TreeMap<>(Map.of("a", 1, "b", 2));
        System.out.println("stop " + xs.size() + limit + m.size()); // @blocks
    }

    static void show(String name, Object v) {
        System.out.println(name + "=" + v);
    }

    public static void main(String[] args) {
        new Blocks().expected();
        new Blocks().stop();
    }
}
