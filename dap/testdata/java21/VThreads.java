import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

// VThreads runs N unnamed virtual threads (args[0]) that all stay alive
// until the file args[1] exists: each computes its square, and every
// hundredth one passes the line marked @vt-cond (a conditional breakpoint
// there stops one virtual thread while the others live on).
public class VThreads {
    static final CountDownLatch release = new CountDownLatch(1);
    static volatile long sum;

    static int work(int k) {
        int sq = k * k;
        if (k % 100 == 0) {
            sq = sq + 1; // @vt-cond
            sq = sq - 1; // @vt-next
        }
        return sq;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        Path end = Path.of(args[1]);
        CountDownLatch finished = new CountDownLatch(n);
        List<Thread> threads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final int k = i;
            threads.add(Thread.ofVirtual().start(() -> {
                int r = work(k);
                synchronized (VThreads.class) {
                    sum += r;
                }
                finished.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        finished.await();
        System.out.println("ALL " + n + " WORKED");
        while (!Files.exists(end)) {
            Thread.sleep(20);
        }
        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("DONE " + sum);
    }
}
