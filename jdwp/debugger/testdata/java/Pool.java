import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

// Pool: four workers of a thread pool run the same method for args[0]
// rounds each; a Customer's toString takes SLOW_MS. The debugger layer's
// harm tests stop them at the line marked HIT, and at COUNTED; the program
// prints which orders chosen() holds for (CHOSEN id) and how often COUNTED
// was reached (COUNTED n), for a test's condition and hit count.
public class Pool {
    record Customer(String name) {
        @Override
        public String toString() {
            try {
                Thread.sleep(SLOW_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "Customer " + name;
        }
    }

    record Order(int id, Customer customer) {}

    static volatile int SLOW_MS = 2000;
    static final Customer SLOW = new Customer("slow");
    static final AtomicIntegerArray progress = new AtomicIntegerArray(4);
    static volatile int sink;
    static final ThreadLocal<Order> current = new ThreadLocal<>();
    static final AtomicInteger counted = new AtomicInteger();

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch done = new CountDownLatch(4);
        for (int w = 0; w < 4; w++) {
            int id = w;
            pool.submit(() -> {
                for (int r = 0; r < rounds; r++) {
                    work(id, new Order(id * 1000 + r, new Customer("c" + id)));
                }
                done.countDown();
            });
        }
        done.await();
        System.out.println("COUNTED " + counted.get());
        System.out.println("POOL-DONE");
        pool.shutdown();
    }

    static int spin() {
        while (true) {
            sink++;
        }
    }

    // What a test's condition asks, of the order the calling thread works on.
    static boolean chosen() {
        return current.get().id() % 3 == 1;
    }

    static void work(int worker, Order order) {
        current.set(order);
        if (chosen()) {
            System.out.println("CHOSEN " + order.id());
        }
        sink = order.id(); // HIT
        progress.incrementAndGet(worker);
        counted.incrementAndGet();
        sink++; // COUNTED
    }
}
