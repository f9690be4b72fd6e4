import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A heap of args[0] objects (default 1,000,000) of a few kinds, held, then a
 * loop to step through: the memory view's benchmark target.
 */
public class MemBench {
    static class Node {
        long value;
        Node next;
    }

    record Point(int x, int y) {}

    static final List<Object> held = new ArrayList<>();
    static final Map<Integer, String> names = new HashMap<>();

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Node prev = null;
        for (int i = 0; i < n; i++) {
            switch (i % 4) {
                case 0 -> {
                    Node node = new Node();
                    node.value = i;
                    node.next = prev;
                    prev = node;
                    held.add(node);
                }
                case 1 -> held.add(new Point(i, -i));
                case 2 -> names.put(i, "name-" + i);
                default -> held.add(new long[2]);
            }
        }
        System.out.println("READY");
        long sum = 0;
        for (long i = 0; ; i++) {
            sum += i; // @bench-a
            sum ^= i >> 3; // @bench-b
            if (sum == 42) {
                System.out.println(sum);
            }
        }
    }
}
