// Threads in the states a thread view must tell apart, by name: "sleeper"
// sleeps (timed-wait), "waiter" waits on a monitor (wait), "spinner" burns
// CPU (running, its CPU time growing). main sleeps too.
public class ThreadStates {
    static final Object lock = new Object();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Thread sleeper = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(100_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "sleeper");
        Thread waiter = new Thread(() -> {
            synchronized (lock) {
                while (true) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "waiter");
        Thread spinner = new Thread(() -> {
            long x = 0;
            while (true) {
                x++;
                if ((x & 0xfffff) == 0) {
                    sink = x; // a line to stop at
                }
            }
        }, "spinner");
        for (Thread t : new Thread[] {sleeper, waiter, spinner}) {
            t.setDaemon(true);
            t.start();
        }
        System.out.println("threads started");
        Thread.sleep(Long.MAX_VALUE);
    }
}
