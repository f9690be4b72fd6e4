// Plugin is loaded by Leak's URLClassLoader only (its directory is not on
// the class path). Its statics hold 100 000 bytes and an instance of itself.
public class Plugin {
    static byte[] data = new byte[100_000];
    static Plugin self = new Plugin();
    final int[] own = new int[10];
}
