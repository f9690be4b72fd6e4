import java.util.ArrayList;
import java.util.List;

/**
 * Debuggee of the jdwp integration tests. It prints READY, then polls the
 * static field scenario: the test sets it (ClassType.SetValues) and the main
 * thread runs that scenario once and prints a line saying what it saw. A
 * negative scenario makes main return. Lines the tests need are marked with
 * "// @name" comments, which the tests find by scanning this file, so no line
 * number is written down twice.
 */
public class Target {
    static volatile int scenario;

    static int staticInt = 42;
    static long staticLong = -5L;
    static boolean staticFlag = true;
    static String staticStr = "hello";
    static int[] ints = {1, 2, 3, 4, 5};
    static Object[] objs = {"a", Integer.valueOf(7), null};
    static List<String> names = new ArrayList<>(List.of("x", "y"));
    static Box<String> keep1 = new Box<>("k1");
    static Box<String> keep2 = new Box<>("k2");
    static Object[] holder = {keep1};
    static final Object lock = new Object();
    static final IllegalStateException STOP = new IllegalStateException("stop-from-debugger");
    static int counter = 10;
    static int computeCalls;
    static int contended;
    static int redefRuns;
    static int holdHits;
    static volatile boolean workerRan;

    int label = 5;
    double ratio = 0.5;

    interface Shape {
        int area();

        static int unit() {
            return 1;
        }
    }

    static class Box<T extends Comparable<T>> implements Shape, Comparable<Box<T>> {
        T value;
        int w = 3;
        int h = 4;

        Box(T value) {
            this.value = value;
        }

        public int area() {
            return w * h;
        }

        public int compareTo(Box<T> o) {
            return value.compareTo(o.value);
        }

        <U> U pick(U a, U b) {
            return a;
        }
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        for (;;) {
            int s = scenario;
            if (s == 0) {
                Thread.sleep(2);
                continue;
            }
            scenario = 0;
            if (s < 0) {
                break;
            }
            run(s);
        }
        System.out.println("BYE");
    }

    static void run(int s) throws Exception {
        switch (s) {
            case 1: new Target().inspect(7); break;
            case 2: System.out.println("STEP " + stepOuter()); break;
            case 3: caught(); break;
            case 4: uncaught(); break;
            case 5: System.out.println("LAZY " + LazyLoaded.touch()); break;
            case 6: boxes(); break;
            case 7: fields(); break;
            case 8: threads(); break;
            case 9: monitors(); break;
            case 10: pop(); break;
            case 11: early(); break;
            case 12: stopAndInterrupt(); break;
            case 13: redef(); break;
            case 14: hold(); break;
            default: System.out.println("UNKNOWN " + s);
        }
    }

    static int add(int a, int b) {
        return a + b;
    }

    static int boom() {
        throw new IllegalStateException("boom");
    }

    void inspect(int n) {
        int x = n * 2;
        String s = "local";
        long big = 1L << 40;
        double d = 2.5;
        Box<String> box = new Box<>("v");
        int y = x + 1; // @inspect
        int sum = 0;
        for (int v : ints) {
            sum += v;
        }
        System.out.println("INSPECT y=" + y + " sum=" + sum + " str=" + staticStr + " label=" + label + " area=" + box.area());
    }

    static int stepOuter() {
        int a = 1;
        a = stepInner(a); // @step_call
        a = a + 1; // @step_next
        return a;
    }

    static int stepInner(int v) {
        int w = v * 3; // @step_inner_first
        return w + 1; // @step_inner_second
    }

    static void caught() {
        try {
            throwIt("caught-one");
        } catch (IllegalStateException e) { // @catch
            System.out.println("CAUGHT " + e.getMessage());
        }
    }

    static void throwIt(String m) {
        throw new IllegalStateException(m); // @throw
    }

    static void uncaught() throws InterruptedException {
        Thread t = new Thread(() -> {
            throw new UnsupportedOperationException("nobody-catches-this"); // @uncaught
        }, "uncaught-thread");
        t.start();
        t.join();
        System.out.println("UNCAUGHT done");
    }

    static void boxes() {
        Box<Integer> b = new Box<>(9);
        System.out.println("BOXES " + b.area());
    }

    static void fields() {
        counter = counter + 5; // @field_write
        Box<Integer> b = new Box<>(1);
        b.w = 6; // @field_write_w
        System.out.println("FIELDS " + counter + " " + b.area());
    }

    static void threads() throws InterruptedException {
        Thread t = new Thread(() -> workerRan = true, "worker-thread");
        t.start();
        t.join();
        System.out.println("THREADS " + workerRan);
    }

    static void monitors() throws InterruptedException {
        Thread contender = new Thread(() -> {
            synchronized (lock) {
                contended++;
            }
        }, "contender");
        synchronized (lock) {
            contender.start();
            while (contender.getState() != Thread.State.BLOCKED) {
                Thread.sleep(1);
            }
            contended += 10; // @monitor_held
        }
        contender.join();
        synchronized (lock) {
            lock.wait(5);
        }
        System.out.println("MONITORS " + contended);
    }

    static int compute(int v) {
        computeCalls++;
        int r = v * 10; // @compute
        return r;
    }

    static void pop() {
        computeCalls = 0;
        int r = compute(4); // @pop_call
        System.out.println("POP r=" + r + " calls=" + computeCalls);
    }

    static void early() {
        computeCalls = 0;
        int r = compute(5);
        System.out.println("EARLY r=" + r + " calls=" + computeCalls);
    }

    static void stopAndInterrupt() {
        Thread sleeper = new Thread(() -> {
            try {
                System.out.println("SLEEPER ready");
                Thread.sleep(60_000);
                System.out.println("SLEEPER woke");
            } catch (InterruptedException e) {
                System.out.println("SLEEPER interrupted");
            }
        }, "sleeper");
        Thread spinner = new Thread(() -> {
            try {
                System.out.println("SPINNER ready");
                for (;;) {
                    Thread.sleep(5);
                }
            } catch (Throwable t) {
                System.out.println("SPINNER stopped " + t.getMessage());
            }
        }, "spinner");
        sleeper.setDaemon(true);
        spinner.setDaemon(true);
        sleeper.start();
        spinner.start();
    }

    static void redef() {
        redefRuns++;
        System.out.println("REDEF#" + redefRuns + " v=" + Redef.value());
    }

    static void hold() {
        System.out.println("HOLD armed");
        holdPoint();
        System.out.println("HOLD done " + holdHits);
    }

    static void holdPoint() {
        holdHits++; // @hold
    }
}

/** Loaded only by scenario 5, for CLASS_PREPARE. */
class LazyLoaded {
    static int touch() {
        return 3;
    }
}
