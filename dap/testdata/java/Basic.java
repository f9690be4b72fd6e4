/** Fixture for launch, breakpoints, stepping and logpoints. Markers in comments name lines for the tests. */
public class Basic {
    static int counter = 5;
    static String greeting = "hello";
    int field = 7;
    String name = "basic";

    int add(int a, int b) {
        int sum = a + b; // @add-first
        sum += field;
        return sum; // @add-return
    }

    static int twice(int x) {
        int r = x * 2; // @twice-first
        return r;
    }

    public static void main(String[] args) {
        Basic b = new Basic(); // @main-first
        int x = 1;
        int y = b.add(x, 2); // @call-add
        int z = twice(y); // @call-twice
        for (int i = 0; i < 10; i++) {
            counter += i; // @loop
        }
        Later.run(z); // @call-later
        System.out.println("done " + z + " " + counter); // @done
    }
}
