/** Loaded only when Basic.main calls it, so breakpoints here start unverified. */
public class Later {
    static int runs;

    static void run(int v) {
        int w = v + 1; // @later
        runs += w;
        Inner.touch(w);
    }

    static class Inner {
        static void touch(int w) {
            runs += w; // @inner
        }
    }
}
