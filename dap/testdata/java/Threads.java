import java.util.concurrent.CountDownLatch;

/** Several threads in different states, and a main thread that spins until paused. */
public class Threads {
    static final Object lock = new Object();
    static volatile boolean stop;
    static volatile long spins;

    public static void main(String[] args) throws Exception {
        CountDownLatch started = new CountDownLatch(3);
        Thread waiter = new Thread(() -> {
            synchronized (lock) {
                started.countDown();
                try { lock.wait(); } catch (InterruptedException e) { }
            }
        }, "waiter");
        Thread sleeper = new Thread(() -> {
            started.countDown();
            try { Thread.sleep(600_000); } catch (InterruptedException e) { }
        }, "sleeper");
        Thread spinner = new Thread(() -> {
            started.countDown();
            while (!stop) { spins++; }
        }, "spinner");
        for (Thread t : new Thread[] {waiter, sleeper, spinner}) { t.setDaemon(true); t.start(); }
        started.await();
        Thread.sleep(200);
        System.out.println("THREADS-READY"); // @threads-ready
        while (!stop) {
            Thread.sleep(5); // @spin
        }
    }
}
