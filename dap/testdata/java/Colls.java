import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The JDK's common collections and maps, each printed element by element in
 * the order the program iterates it ("name<TAB>element", "name<TAB>key=value"),
 * then stopped at @colls: the debugger lists the same elements from the
 * fields, running no code.
 */
public class Colls {
    /** Strings of n blocks "Aa" or "BB": all of one hash code. */
    static List<String> colliding(int n) {
        List<String> out = new ArrayList<>(List.of(""));
        for (int i = 0; i < n; i++) {
            List<String> next = new ArrayList<>();
            for (String s : out) {
                next.add(s + "Aa");
                next.add(s + "BB");
            }
            out = next;
        }
        return out;
    }

    static void print(String name, Iterable<?> c) {
        for (Object e : c) System.out.println(name + "\t" + e);
    }

    static void print(String name, Map<?, ?> m) {
        for (Map.Entry<?, ?> e : m.entrySet()) System.out.println(name + "\t" + e.getKey() + "=" + e.getValue());
    }

    public static void main(String[] args) {
        List<String> words = List.of("pear", "fig", "apple", "kiwi", "plum", "date", "lime");
        ArrayList<String> arrayList = new ArrayList<>(words);
        LinkedList<String> linkedList = new LinkedList<>(words);
        ArrayDeque<Integer> arrayDeque = new ArrayDeque<>();
        for (int i = 0; i < 14; i++) arrayDeque.addLast(i);
        for (int i = 0; i < 10; i++) arrayDeque.pollFirst();
        for (int i = 14; i < 20; i++) arrayDeque.addLast(i); // wraps around its array
        HashMap<String, Integer> hashMap = new HashMap<>();
        for (int i = 0; i < 100; i++) hashMap.put("k" + i, i);
        int n = 0;
        for (String s : colliding(4)) hashMap.put(s, n++); // one bin of 16: a tree bin
        LinkedHashMap<String, Integer> linkedHashMap = new LinkedHashMap<>();
        for (String w : words) linkedHashMap.put(w, w.length());
        HashSet<String> hashSet = new HashSet<>(hashMap.keySet());
        LinkedHashSet<String> linkedHashSet = new LinkedHashSet<>(words);
        TreeMap<String, Integer> treeMap = new TreeMap<>(hashMap);
        TreeSet<String> treeSet = new TreeSet<>(words);
        ConcurrentHashMap<String, Integer> concurrentHashMap = new ConcurrentHashMap<>(hashMap);
        Set<String> keySetView = ConcurrentHashMap.newKeySet();
        keySetView.addAll(words);
        List<String> arraysAsList = Arrays.asList("x", "y", "z");
        List<String> listN = List.of("a", "b", "c", "d");
        List<Integer> list12 = List.of(1, 2);
        List<Integer> list1 = List.of(7);
        Set<String> setN = Set.of("a", "b", "c", "d", "e");
        Set<String> set12 = Set.of("s", "t");
        Set<String> set1 = Set.of("only");
        Map<String, Integer> mapN = Map.of("a", 1, "b", 2, "c", 3, "d", 4);
        Map<String, Integer> map1 = Map.of("k", 1);
        List<String> unmodifiableList = Collections.unmodifiableList(arrayList);
        Map<String, Integer> unmodifiableMap = Collections.unmodifiableMap(linkedHashMap);
        Set<String> unmodifiableSet = Collections.unmodifiableSet(treeSet);
        List<String> synchronizedList = Collections.synchronizedList(linkedList);
        Map<String, Integer> synchronizedMap = Collections.synchronizedMap(treeMap);
        CopyOnWriteArrayList<String> copyOnWriteArrayList = new CopyOnWriteArrayList<>(words);
        Vector<String> vector = new Vector<>(words);
        Set<String> keySet = hashMap.keySet();
        Collection<Integer> values = linkedHashMap.values();
        Set<Map.Entry<String, Integer>> entrySet = treeMap.entrySet();
        Set<String> treeKeySet = treeMap.keySet();
        print("arrayList", arrayList);
        print("linkedList", linkedList);
        print("arrayDeque", arrayDeque);
        print("hashMap", hashMap);
        print("linkedHashMap", linkedHashMap);
        print("hashSet", hashSet);
        print("linkedHashSet", linkedHashSet);
        print("treeMap", treeMap);
        print("treeSet", treeSet);
        print("concurrentHashMap", concurrentHashMap);
        print("keySetView", keySetView);
        print("arraysAsList", arraysAsList);
        print("listN", listN);
        print("list12", list12);
        print("list1", list1);
        print("setN", setN);
        print("set12", set12);
        print("set1", set1);
        print("mapN", mapN);
        print("map1", map1);
        print("unmodifiableList", unmodifiableList);
        print("unmodifiableMap", unmodifiableMap);
        print("unmodifiableSet", unmodifiableSet);
        print("synchronizedList", synchronizedList);
        print("synchronizedMap", synchronizedMap);
        print("copyOnWriteArrayList", copyOnWriteArrayList);
        print("keySet", keySet);
        print("values", values);
        print("entrySet", entrySet);
        print("treeKeySet", treeKeySet);
        print("vector", vector);
        System.out.println("END"); // @colls
    }
}
