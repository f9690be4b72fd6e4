import java.util.concurrent.CountDownLatch;

// VParked starts N virtual threads (args[0]) that park until the program
// ends, then ticks in main: a breakpoint on @vp-tick stops with all of
// them alive.
public class VParked {
    static final CountDownLatch never = new CountDownLatch(1);
    static int ticks;

    static void park(int k) {
        try {
            if (k % 2 == 0) {
                never.await();
            } else {
                deeper(k);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void deeper(int k) throws InterruptedException {
        never.await();
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        CountDownLatch started = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            final int k = i;
            Thread.ofVirtual().start(() -> {
                started.countDown();
                park(k);
            });
        }
        started.await();
        System.out.println("READY " + n);
        while (true) {
            ticks++; // @vp-tick
            Thread.sleep(5);
        }
    }
}
