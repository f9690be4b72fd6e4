import java.util.ArrayList;
import java.util.List;

/** Fixture for lambdas and method references evaluated in the debugger. Markers name lines for the tests. */
public class Lambdas {
    record Order(String customer, double total) {}

    /** An interface of the program's own, with a default method beside its abstract one. */
    interface Pricing {
        double price(Order o);

        default String name() { return "pricing"; }
    }

    static double apply(Pricing p, Order o) { return p.price(o); }

    int bonus = 7;

    int scaled(int x) { return x * bonus; }

    void run() {
        List<Order> orders = new ArrayList<>(List.of(new Order("Chen", 250), new Order("Ada", 80), new Order("Bo", 120.5)));
        List<String> xs = List.of("a", "bb", "ccc");
        List<String> sink = new ArrayList<>();
        int limit = 100;
        System.out.println("orders " + orders.size() + " " + xs + " " + sink + " " + limit); // @lambdas
        System.out.println("after " + sink);
    }

    static int helper(int x) { return x + 1; }

    public static void main(String[] args) {
        new Lambdas().run();
        int n = 2;
        System.out.println("main " + n); // @static
    }
}
