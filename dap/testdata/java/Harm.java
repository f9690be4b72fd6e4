import java.util.List;

/**
 * Values and methods that harm a careless debugger: a toString that sleeps
 * beside fast ones, a method that sleeps as long as asked, and a pool of
 * workers that keeps running while main is stopped.
 */
public class Harm {
    static class Slow {
        @Override
        public String toString() {
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                return "interrupted";
            }
            return "slow";
        }
    }

    static class Fast {
        final int n;

        Fast(int n) {
            this.n = n;
        }

        @Override
        public String toString() {
            return "fast-" + n;
        }
    }

    static int sleepy(int ms) throws InterruptedException {
        Thread.sleep(ms);
        return ms;
    }

    static int loudly(int ms) throws InterruptedException {
        System.out.println("SLEEPING " + ms);
        System.out.flush();
        Thread.sleep(ms);
        return ms;
    }

    static volatile long spins;

    static int spin() {
        System.out.println("SPINNING");
        System.out.flush();
        while (true) {
            spins++;
        }
    }

    public static void main(String[] args) throws Exception {
        Fast first = new Fast(1);
        Slow slow = new Slow();
        Fast second = new Fast(2);
        List<Integer> list = List.of(1, 2, 3);
        int x = list.size(); // @harm
        x++; // @harm-next
        System.out.println("HARM-DONE " + x + " " + first.n + " " + second.n + " " + (slow != null));
    }
}
