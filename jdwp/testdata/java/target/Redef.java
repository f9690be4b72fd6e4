/** Redefined by the tests: redef2/Redef.java returns 2, redef3/Redef.java adds a method. */
public class Redef {
    static int value() {
        return 1; // @redef_value
    }
}
