import java.util.List;
import java.util.function.Function;

// Inline breakpoints: several lambdas on one line, and lambdas nested in
// lambdas (TestInlineBreakpoints).
public class Inline {
    static int sum;

    static void sink(int v) {
        sum += v;
    }

    public static void main(String[] args) {
        List<Integer> xs = List.of(1, 2, 3);
        xs.stream().map(x -> x * 2).filter(y -> y > 3).forEach(z -> sink(z)); // @chain
        Function<Integer, Function<Integer, Integer>> add = p -> q -> p + q; // @nested
        sink(add.apply(10).apply(20));
        System.out.println("sum " + sum);
    }
}
