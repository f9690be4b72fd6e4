import java.util.ArrayList;
import java.util.List;

/**
 * The sample app of `ddmbridge demo` and of the bridge tests: a few threads that
 * change state (computing, sleeping, waiting, blocked on a lock) and allocate,
 * and a main loop calling work() that debuggers stop in. Prints TICK lines.
 */
public class DemoApp {
    static volatile long ticks;
    static volatile long sink;
    static final Object lock = new Object();
    static final List<byte[]> cache = new ArrayList<>();

    static int work(int n) {
        int sum = 0; // @work-first
        for (int i = 0; i < n; i++) { // @work-loop
            sum += i * n;
        }
        String label = "n=" + n; // @work-label
        ticks++;
        return sum + label.length();
    }

    static void spin(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) { sink += System.nanoTime() % 7; }
    }

    static Thread start(String name, Runnable r) {
        Thread t = new Thread(() -> {
            try { r.run(); } catch (RuntimeException e) { }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void sleep(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException e) { throw new RuntimeException(e); }
    }

    public static void main(String[] args) throws Exception {
        start("cruncher", () -> { while (true) { spin(300); sleep(200); } });
        start("sleeper", () -> { while (true) { sleep(700); spin(20); } });
        start("waiter", () -> {
            while (true) {
                synchronized (lock) { try { lock.wait(500); } catch (InterruptedException e) { return; } }
                spin(50);
            }
        });
        start("holder", () -> { while (true) { synchronized (lock) { spin(150); } sleep(250); } });
        start("contender", () -> { while (true) { synchronized (lock) { sink++; } sleep(100); } });
        start("allocator", () -> {
            int round = 0;
            while (true) {
                synchronized (cache) {
                    cache.add(new byte[16 * 1024 + (round % 64) * 512]);
                    if (cache.size() > 400) cache.subList(0, 200).clear();
                }
                round++;
                sleep(20);
            }
        });
        System.out.println("READY");
        System.out.flush();
        for (int i = 0; ; i++) {
            int r = work(5 + i % 5); // @main-call
            sink += r;
            if (i % 10 == 0) { System.out.println("TICK " + ticks); System.out.flush(); }
            sleep(50);
        }
    }
}
