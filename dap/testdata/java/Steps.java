import java.util.function.IntUnaryOperator;

/** Fixture for step filters, step-in targets and restartFrame. */
public class Steps {
    int v;

    Steps(int v) { // @ctor
        this.v = v;
    }

    static class Lazy {
        static int x = compute(); // @clinit

        static int compute() {
            return 5; // @compute
        }
    }

    static int apply(IntUnaryOperator f, int x) {
        return f.applyAsInt(x); // @apply
    }

    static int twice(int x) {
        return 2 * x; // @twice
    }

    static int sum(int a, int b) {
        return a + b; // @sum
    }

    public static void main(String[] args) {
        Steps s = new Steps(2); // @new
        int a = Lazy.x; // @lazy
        int b = apply(y -> y + 1, a); // @lambda
        int c = twice(sum(a, b)) + Math.abs(-3); // @targets
        System.out.println("steps " + s.v + " " + a + " " + b + " " + c); // @print
    }
}
