import java.util.ArrayList;
import java.util.List;

/**
 * Allocates a known number of objects between stops, for the memory view:
 * 250 orders before the first marked line, 1000 more before the second, one
 * more before the third, all held in one list.
 */
public class Alloc {
    static class Order {
        final int id;
        final String label;

        Order(int id) {
            this.id = id;
            this.label = "order-" + id;
        }
    }

    static final List<Order> held = new ArrayList<>();

    public static void main(String[] args) {
        make(250);
        make(1000); // @first
        make(1); // @second
        System.out.println("orders: " + held.size()); // @third
    }

    static void make(int n) {
        for (int i = 0; i < n; i++) {
            held.add(new Order(held.size()));
        }
    }
}
