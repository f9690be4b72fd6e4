import java.util.*;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;

/** Values Java developers read through logical views and toString. */
public class Logical {
    enum Status { NEW, DONE }

    enum Op {
        PLUS { int apply(int a, int b) { return a + b; } };
        abstract int apply(int a, int b);
    }

    record Point(int x, int y) {}

    static class Customer {
        final String name;
        Customer(String name) { this.name = name; }
        @Override public String toString() { return "Customer(" + name + ")"; }
    }

    static class Plain {
        int id = 398;
    }

    /** A collection by a class the presentation has never heard of. */
    static class Bag extends AbstractCollection<String> {
        private final String[] items = {"p", "q"};
        public Iterator<String> iterator() { return Arrays.asList(items).iterator(); }
        public int size() { return items.length; }
    }

    public static void main(String[] args) {
        List<String> list = new ArrayList<>(List.of("a", "b", "c"));
        List<Integer> immutable = List.of(1, 2);
        Map<String, Integer> map = new HashMap<>();
        map.put("one", 1);
        map.put("two", 2);
        Set<String> set = new TreeSet<>(Set.of("x", "y"));
        EnumMap<Status, String> enumMap = new EnumMap<>(Status.class);
        enumMap.put(Status.NEW, "fresh");
        enumMap.put(Status.DONE, "finished");
        List<Integer> big = new ArrayList<>();
        for (int i = 0; i < 1000; i++) big.add(i * 2);
        Bag bag = new Bag();
        Optional<String> opt = Optional.of("here");
        Optional<String> none = Optional.empty();
        AtomicInteger counter = new AtomicInteger(41);
        AtomicBoolean flag = new AtomicBoolean(true);
        StringBuilder sb = new StringBuilder("built");
        StringBuilder wide = new StringBuilder("π≈3");
        Status status = Status.NEW;
        Op op = Op.PLUS;
        Point point = new Point(1, 2);
        Customer customer = new Customer("Chen");
        Plain plain = new Plain();
        Class<?> cls = String.class;
        Thread thread = Thread.currentThread();
        Exception error = new IllegalStateException("boom");
        Map.Entry<String, Integer> entry = Map.entry("k", 7);
        int total = 40;
        System.out.println(list.size() + immutable.size() + map.size() + set.size() + enumMap.size() + big.size() + bag.size() + opt.get() + none.isPresent() + counter + flag + sb + wide + status + op + point + customer + plain.id + cls + thread.getName() + error + entry + total); // @show
    }
}
