import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Locals of 20 ordinary values, with one object whose toString takes 3 s
 * beside them (withSlow) and without it (plain): the bench of issue 35.
 */
public class SlowLocals {
    enum Color { RED, GREEN }

    record Point(int x, int y) {}

    static class Slow {
        @Override
        public String toString() {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "slow";
        }
    }

    static volatile int sink;

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        for (int r = 0; r < rounds; r++) {
            withSlow(r);
            plain(r);
        }
        System.out.println("SLOWLOCALS-DONE");
    }

    static void withSlow(int r) {
        Slow slow = new Slow();
        int a = r; long b = 2L; double c = 3.5; boolean d = true; char e = 'e';
        String f = "f"; String g = "gg"; Integer h = 8; Long i = 9L; Double j = 10.5;
        Color k = Color.RED; Color l = Color.GREEN; Point m = new Point(1, 2); Point n = new Point(3, 4);
        List<Integer> o = List.of(1, 2, 3); List<String> p = new ArrayList<>(List.of("x"));
        Map<String, Integer> q = new HashMap<>(Map.of("k", 1)); int[] s = {1, 2}; String t = "t"; Object u = "u";
        sink = a + (slow == null ? 1 : 0); // @withslow
    }

    static void plain(int r) {
        int a = r; long b = 2L; double c = 3.5; boolean d = true; char e = 'e';
        String f = "f"; String g = "gg"; Integer h = 8; Long i = 9L; Double j = 10.5;
        Color k = Color.RED; Color l = Color.GREEN; Point m = new Point(1, 2); Point n = new Point(3, 4);
        List<Integer> o = List.of(1, 2, 3); List<String> p = new ArrayList<>(List.of("x"));
        Map<String, Integer> q = new HashMap<>(Map.of("k", 1)); int[] s = {1, 2}; String t = "t"; Object u = "u";
        sink = a; // @plain
    }
}
