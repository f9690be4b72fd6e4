/** Dies of an uncaught exception thrown two calls deep. */
public class Boom {
    static void fail(String why) {
        throw new IllegalStateException("boom: " + why); // @throw
    }

    static void middle() {
        fail("on purpose");
    }

    public static void main(String[] args) {
        try {
            fail("caught");
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }
        middle();
    }
}
