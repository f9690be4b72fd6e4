/** Compiled into testdata/Sample.class for the classfile tests (javac -g Sample.java). */
public class Sample implements Runnable {
    static final long BIG = 1L << 40;
    double d = 2.5;
    String s = "hé\u0000";

    public void run() {
        int x = 0;
        for (int i = 0; i < 3; i++) {
            x += i;
        }
        switch (x) {
            case 1: x = 10; break;
            case 2: x = 20; break;
            case 3: x = 30; break;
            default: x = -1;
        }
        switch (x) {
            case 100: x = 1; break;
            case 100000: x = 2; break;
            default: break;
        }
        Object o = new int[2][3];
        System.out.println(s + x + o + Math.max(x, 3));
    }
}
