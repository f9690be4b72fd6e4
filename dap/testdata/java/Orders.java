import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * A small order book worked by a pool of four threads that hit the same lines
 * together: records, lambdas and streams, a synchronized ledger, and a caught
 * exception in every round.
 */
public class Orders {
    enum Kind { SMALL, LARGE }

    record Order(int id, String customer, List<Integer> items) {
        int total() {
            return items.stream().mapToInt(Integer::intValue).sum(); // @total
        }

        Kind kind() {
            // @gap-kind
            return total() > 250 ? Kind.LARGE : Kind.SMALL;
        }
    }

    static final Object ledgerLock = new Object();
    static long ledger;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        if (args.length > 1 && args[1].equals("audit")) {
            Thread auditor = new Thread(() -> {
                for (long tick = 0; ; tick++) {
                    audit(tick);
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "auditor");
            auditor.setDaemon(true);
            auditor.start();
        }
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> new Thread(r, "worker-" + n.incrementAndGet()));
        CyclicBarrier barrier = new CyclicBarrier(4);
        List<Future<Long>> results = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            final int worker = w;
            results.add(pool.submit(() -> work(worker, rounds, barrier)));
        }
        long sum = 0;
        for (Future<Long> f : results) {
            sum += f.get();
        }
        pool.shutdown();
        System.out.println("ORDERS-DONE " + sum + " ledger=" + ledger); // @done
    }

    static long work(int worker, int rounds, CyclicBarrier barrier) throws Exception {
        long done = 0;
        for (int r = 0; r < rounds; r++) {
            barrier.await();
            Order order = new Order(worker * 100 + r, "c" + worker, List.of(worker * 100, r, 7));
            int total = order.total(); // @hit

            // @gap-work
            synchronized (ledgerLock) {
                ledger += total; // @ledger
            }
            try {
                check(order);
            } catch (IllegalStateException e) {
                done++; // @caught
            }
            done += IntStream.range(0, 3).map(i -> i * worker).sum(); // @stream
            done += step(order); // @step
        }
        return done;
    }

    static void audit(long tick) {
        long seen = tick; // @audit
    }

    static long ledgerNow() {
        synchronized (ledgerLock) {
            return ledger;
        }
    }

    static void check(Order order) {
        if (order.kind() == Kind.SMALL) {
            throw new IllegalStateException("small order " + order.id());
        }
    }

    static int step(Order order) {
        int a = order.id(); // @step-a
        int b = a + 1; // @step-b
        int c = b * 2; // @step-c
        return c - a - b; // @step-d
    }
}
