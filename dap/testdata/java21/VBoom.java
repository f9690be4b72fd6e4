// VBoom throws in a virtual thread what nothing of the program catches
// (the JDK's VirtualThread.run catches it for the uncaught exception
// handler), after a caught exception in main.
public class VBoom {
    static void fail(String why) {
        throw new IllegalStateException("boom in virtual: " + why); // @vb-throw
    }

    public static void main(String[] args) throws Exception {
        try {
            Integer.parseInt("not a number");
        } catch (NumberFormatException e) {
            System.out.println("caught " + e.getMessage());
        }
        Thread t = Thread.ofVirtual().name("raw-virtual").start(() -> fail("on purpose"));
        t.join();
        System.out.println("END");
    }
}
