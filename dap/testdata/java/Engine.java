import java.util.ArrayList;
import java.util.List;

/** Fixture for the expression engine, setVariable and data breakpoints. Markers name lines for the tests. */
public class Engine {
    static int count = 3;
    static String label = "engine";
    int value = 10;
    long big = 5L;
    char letter = 'a';
    String name = "first";
    Integer boxed = 1;
    int[] nums = {1, 2, 3};
    Engine next;

    Engine() {}

    Engine(int v) {
        value = v;
    }

    static String pick(int x) { return "int"; }
    static String pick(long x) { return "long"; }
    static String pick(double x) { return "double"; }
    static String pick(Object x) { return "Object"; }
    static String pick(Integer x) { return "Integer"; }
    static String pick(int a, long b) { return "int,long"; }
    static String pick(long a, int b) { return "long,int"; }

    static int sum(int... xs) {
        int s = 0;
        for (int x : xs) s += x;
        return s;
    }

    int twice(int x) { return 2 * x; }

    String greet(String who) { return "hi " + who; }

    static int fail(String why) { throw new IllegalArgumentException("bad: " + why); }

    static int slow() throws InterruptedException {
        Thread.sleep(20_000);
        return 1;
    }

    @Override
    public String toString() { return "Engine(" + value + ")"; }

    static class Inner {
        static int depth = 2;
    }

    void work(int arg) {
        int local = arg + 1;
        long wide = 100;
        char ch = 'x';
        String text = "t";
        List<String> list = new ArrayList<>();
        list.add("a");
        Object obj = list;
        value = local; // @work
        value += 1; // @after-set
        System.out.println("work " + local + " " + wide + " " + ch + " " + text + " " + value + " " + name + " " + boxed + " " + nums[1] + " " + count + " " + obj); // @print
    }

    void touch() {
        int seen = value; // @touch-read
        value = seen + 1; // @touch-write
    }

    public static void main(String[] args) throws Exception {
        int depth = Inner.depth;
        Engine e = new Engine(10 + depth - 2);
        e.next = new Engine(20);
        e.work(41);
        e.touch();
        e.next.touch();
        System.out.println("end " + e.value + " " + e.next.value);
    }
}
