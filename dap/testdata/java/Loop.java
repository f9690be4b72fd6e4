/** A long-running program for attach tests: ticks every 10 ms. */
public class Loop {
    static volatile long total;

    static void tick(int i) {
        int sq = i * i; // @tick
        total += sq;
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        System.out.flush();
        for (int i = 0; ; i++) {
            tick(i);
            Thread.sleep(10);
            if (i % 100 == 0) { System.out.println("tick " + i); System.out.flush(); }
        }
    }
}
