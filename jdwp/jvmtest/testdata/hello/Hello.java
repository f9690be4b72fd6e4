/** Test fixture: prints READY and sleeps; with argument "exit CODE" prints bye and exits with CODE. */
public class Hello {
    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("exit")) {
            System.out.println("bye");
            System.exit(Integer.parseInt(args[1]));
        }
        System.out.println("READY " + args.length);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
