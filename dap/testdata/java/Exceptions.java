/** Throws exceptions of three classes, catches them, and finally dies of one. */
public class Exceptions {
    static class AppException extends RuntimeException {
        AppException(String m, Throwable cause) {
            super(m, cause);
        }
    }

    static int caught;

    static void thrower(int i) {
        switch (i % 3) {
            case 0:
                throw new IllegalStateException("state " + i); // @throw-state
            case 1:
                throw new AppException("app " + i, new IllegalStateException("cause " + i)); // @throw-app
            default:
                throw new UnsupportedOperationException("unsupported " + i); // @throw-unsupported
        }
    }

    public static void main(String[] args) {
        for (int i = 0; i < 6; i++) {
            try {
                thrower(i);
            } catch (RuntimeException e) {
                caught++;
            }
        }
        System.out.println("caught " + caught);
        throw new AppException("the end", null); // @uncaught
    }
}
