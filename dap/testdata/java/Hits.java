import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Four pool workers reach two lines together, round after round: a test
 * sets a breakpoint whose condition calls methods on one and a hit count on
 * the other. The program says itself which hits the condition holds for
 * (CHOSEN) and how often the second line was reached (counted=), so the
 * test counts the true hits from its output.
 */
public class Hits {
    static final AtomicInteger counted = new AtomicInteger();

    /** What the test's condition asks, from the worker and the round. */
    static boolean chosen(int worker, int round) {
        return (worker * 5 + round * 3) % 2 == 1;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> new Thread(r, "hitter-" + n.incrementAndGet()));
        CyclicBarrier barrier = new CyclicBarrier(4);
        List<Future<Integer>> results = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            final int worker = w;
            results.add(pool.submit(() -> work(worker, rounds, barrier)));
        }
        int sum = 0;
        for (Future<Integer> f : results) {
            sum += f.get();
        }
        pool.shutdown();
        System.out.println("HITS-DONE " + sum + " counted=" + counted.get());
    }

    static int work(int worker, int rounds, CyclicBarrier barrier) throws Exception {
        int seen = 0;
        for (int round = 0; round < rounds; round++) {
            barrier.await();
            if (chosen(worker, round)) {
                System.out.println("CHOSEN " + worker + " " + round);
            }
            seen += worker + round; // @chosen
            counted.incrementAndGet();
            seen++; // @counted
        }
        return seen;
    }
}
