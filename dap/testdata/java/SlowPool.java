import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Four pool workers whose orders hold a Customer with a toString() that
 * takes 3 s (the app): each worker runs rounds (args[0]) and says
 * when it is done.
 */
public class SlowPool {
    /** A plain class (a record would be shown by its fields): its toString runs. */
    static final class Customer {
        final String name;

        Customer(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "Customer " + name;
        }
    }

    record Order(int id, Customer customer, List<Integer> items) {}

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> new Thread(r, "worker-" + n.incrementAndGet()));
        CountDownLatch done = new CountDownLatch(4);
        for (int w = 0; w < 4; w++) {
            int worker = w;
            pool.submit(() -> {
                List<Order> orders = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    Customer customer = new Customer("c" + worker);
                    Order order = new Order(worker * 1000 + r, customer, List.of(r, worker, 7));
                    orders.add(order); // @slowhit
                    if (orders.size() > 5) {
                        orders.remove(0);
                    }
                }
                System.out.println("WORKER-DONE " + worker);
                done.countDown();
            });
        }
        done.await();
        pool.shutdown();
        System.out.println("SLOWPOOL-DONE");
    }
}
