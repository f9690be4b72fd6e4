// DeepList holds a singly linked list of -Dnodes=N nodes (default 1,000,000)
// from a static field, ending in one Tail: the path from a GC root to the
// tail is N+1 objects long. It prints READY and waits to be dumped.
public class DeepList {
    static final class Node {
        Object next;
        int n;
    }

    static final class Tail {
        long marker = 0x7a11L;
    }

    static Node head;

    public static void main(String[] args) throws Exception {
        int n = Integer.getInteger("nodes", 1_000_000);
        Object next = new Tail();
        for (int i = n - 1; i >= 0; i--) {
            Node node = new Node();
            node.n = i;
            node.next = next;
            next = node;
        }
        head = (Node) next;
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }
}
