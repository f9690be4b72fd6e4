// DdmlibProbe feeds DDM chunks to ddmlib's own chunk handlers and prints what
// ddmlib's ClientData made of them, for simvm's differential test.
// Input (stdin), one chunk per line: "<FOURCC> <reply 0|1> <hex data>".
import com.android.ddmlib.Client;
import com.android.ddmlib.ClientData;
import com.android.ddmlib.ThreadInfo;
import com.android.ddmlib.AllocationInfo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

public class DdmlibProbe {
    static Object instance(String cls) throws Exception {
        Class<?> c = Class.forName("com.android.ddmlib." + cls);
        Field f = c.getDeclaredField("mInst");
        f.setAccessible(true);
        return f.get(null);
    }

    public static void main(String[] args) throws Exception {
        int pid = Integer.parseInt(args[0]);
        Constructor<Client> ctor = Client.class.getDeclaredConstructor(
            Class.forName("com.android.ddmlib.Device"), java.nio.channels.SocketChannel.class, int.class);
        ctor.setAccessible(true);
        Client client = ctor.newInstance(null, null, pid);
        Map<String, Object> handlers = new HashMap<>();
        for (String t : new String[] {"HELO", "FEAT"}) handlers.put(t, instance("HandleHello"));
        for (String t : new String[] {"APNM", "WAIT"}) handlers.put(t, instance("HandleAppName"));
        handlers.put("WAIT", instance("HandleWait"));
        for (String t : new String[] {"THCR", "THDE", "THST", "THNM", "STKL"}) handlers.put(t, instance("HandleThread"));
        for (String t : new String[] {"HPIF", "HPST", "HPEN", "HPSG", "REAQ", "REAL"}) handlers.put(t, instance("HandleHeap"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            if (f.length < 2) continue;
            byte[] data = new byte[f.length > 2 ? f[2].length() / 2 : 0];
            for (int i = 0; i < data.length; i++) data[i] = (byte) Integer.parseInt(f[2].substring(2 * i, 2 * i + 2), 16);
            int type = ByteBuffer.wrap(f[0].getBytes("US-ASCII")).getInt();
            Object h = handlers.get(f[0]);
            if (h == null) { System.out.println("unhandled=" + f[0]); continue; }
            Method m = h.getClass().getMethod("handleChunk", Client.class, int.class, ByteBuffer.class, boolean.class, int.class);
            m.setAccessible(true);
            try {
                m.invoke(h, client, type, ByteBuffer.wrap(data), f[1].equals("1"), 1);
            } catch (java.lang.reflect.InvocationTargetException e) {
                // Client.update() needs a Device; the ClientData update has happened by then.
                if (!(e.getCause() instanceof NullPointerException)) throw e;
            }
        }
        ClientData cd = client.getClientData();
        System.out.println("pid=" + cd.getPid());
        System.out.println("vm=" + cd.getVmIdentifier());
        System.out.println("app=" + cd.getClientDescription());
        System.out.println("user=" + cd.getUserId());
        System.out.println("abi=" + cd.getAbi());
        System.out.println("flags=" + cd.getJvmFlags());
        System.out.println("nativeDebuggable=" + cd.isNativeDebuggable());
        System.out.println("debugger=" + cd.getDebuggerConnectionStatus());
        System.out.println("feature.hprof-heap-dump-streaming=" + cd.hasFeature("hprof-heap-dump-streaming"));
        ThreadInfo[] ts = cd.getThreads();
        Arrays.sort(ts, Comparator.comparingInt(ThreadInfo::getThreadId));
        for (ThreadInfo t : ts) {
            System.out.println("thread=" + t.getThreadId() + " " + t.getThreadName() + " status=" + t.getStatus() + " tid=" + t.getTid()
                + " utime=" + t.getUtime() + " stime=" + t.getStime() + " daemon=" + t.isDaemon());
            StackTraceElement[] st = t.getStackTrace();
            if (st != null) for (StackTraceElement e : st) System.out.println("frame=" + t.getThreadId() + " " + e);
        }
        AllocationInfo[] allocs = cd.getAllocations();
        System.out.println("allocations=" + (allocs == null ? 0 : allocs.length));
        if (allocs != null && allocs.length > 0) System.out.println("alloc0=" + allocs[0].getAllocatedClass() + " " + allocs[0].getSize());
        System.out.println("heapComplete=" + cd.getVmHeapData().isHeapDataComplete());
        System.out.println("heapSegments=" + cd.getVmHeapData().getHeapSegments().size());
    }
}
