// Modern25 runs code of the newest class-file version its javac writes
// (major 69 from JDK 25): a record, a switch with record patterns, and a
// loop that calls tick until the program is ended.
public class Modern25 {
    record Point(int x, int y) {
    }

    static int total;

    static String describe(Object o) {
        return switch (o) {
            case Point(int x, int y) when x > y -> "right " + x;
            case Point p -> "point " + p.x();
            default -> "other";
        };
    }

    static void tick(int i) {
        total += describe(new Point(i, 1)).length(); // @m25-tick
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        for (int i = 0; ; i++) {
            tick(i);
            Thread.sleep(5);
        }
    }
}
