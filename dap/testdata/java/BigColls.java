import java.util.*;

/** A stop with a 1,000,000-element ArrayList and a HashMap of as many entries. */
public class BigColls {
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        ArrayList<Integer> list = new ArrayList<>(n);
        HashMap<Integer, String> map = new HashMap<>();
        for (int i = 0; i < n; i++) {
            list.add(i);
            map.put(i, "v" + i);
        }
        for (long i = 0; ; i++) {
            System.out.print(""); // @big
            if (i < 0) System.out.println(list.size() + map.size());
        }
    }
}
