import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

// Leak is the class-loader leak of ddm/hprof's tests: one static holds a
// URLClassLoader that loaded Plugin (from -Dplugin.dir), whose statics hold
// 100 000 bytes. It also keeps 51 Strings on one byte[] (the shape G1 string
// deduplication makes: new String(s) shares s's array), a lambda, an object
// held only by a local of main's frame, and a thread blocked on a monitor
// another thread holds. For the field names on paths, a field a subclass
// declares again (Sub.value hides Base.value) and an array holding one
// object in two elements. It prints READY and then waits, allocating
// nothing.
public class Leak {
    static ClassLoader held;
    static final List<String> shared = new ArrayList<>();
    static Supplier<String> lambda;
    static final Object lock = new Object();
    static final Sub hiding = new Sub();
    static final Object[] twice = new Object[4];

    static class Base {
        Object value = new Inherited();
    }

    static final class Sub extends Base {
        Object value = new Own();
    }

    static final class Inherited {}

    static final class Own {}

    static final class Twice {}

    static final class Local {
        final long[] payload = new long[7];
    }

    public static void main(String[] args) throws Exception {
        URL url = new File(System.getProperty("plugin.dir")).toURI().toURL();
        held = new URLClassLoader(new URL[] {url});
        Class.forName("Plugin", true, held);
        String base = new StringBuilder("shared-").append(42).toString();
        shared.add(base);
        for (int i = 0; i < 50; i++) {
            shared.add(new String(base));
        }
        lambda = () -> "lambda";
        Twice t = new Twice();
        twice[1] = t;
        twice[3] = t;
        Local local = new Local();
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                System.out.println("READY");
                System.out.flush();
                sleep();
            }
        }, "lock-holder");
        holder.setDaemon(true);
        holder.start();
        while (true) {
            sleep();
            if (local.payload.length < 0) {
                break;
            }
        }
    }

    static void sleep() {
        try {
            Thread.sleep(1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
