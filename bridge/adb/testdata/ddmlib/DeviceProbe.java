import com.android.ddmlib.AndroidDebugBridge;
import com.android.ddmlib.Client;
import com.android.ddmlib.DdmPreferences;
import com.android.ddmlib.IDevice;
import java.util.TreeSet;

/**
 * Lists what ddmlib sees through a running adb server (port from
 * ANDROID_ADB_SERVER_PORT): each device, a property read with getprop, and
 * each client VM with the name it announced. It waits until `want` named
 * clients of device SERIAL are seen (or the deadline), prints them and exits.
 *
 * Usage: DeviceProbe SERIAL WANT_CLIENTS DEBUG_PORT_BASE SELECTED_PORT
 */
public class DeviceProbe {
    public static void main(String[] args) throws Exception {
        String serial = args[0];
        int want = Integer.parseInt(args[1]);
        DdmPreferences.setDebugPortBase(Integer.parseInt(args[2]));
        DdmPreferences.setSelectedDebugPort(Integer.parseInt(args[3]));
        AndroidDebugBridge.initIfNeeded(true);
        AndroidDebugBridge bridge = AndroidDebugBridge.createBridge();
        long deadline = System.currentTimeMillis() + 20000;
        TreeSet<String> lines = new TreeSet<>();
        while (System.currentTimeMillis() < deadline) {
            lines.clear();
            int named = 0;
            if (bridge.hasInitialDeviceList()) {
                for (IDevice d : bridge.getDevices()) {
                    String model = d.getState() == IDevice.DeviceState.ONLINE ? d.getPropertyCacheOrSync("ro.product.model") : null;
                    lines.add("device=" + d.getSerialNumber() + " " + d.getState() + " " + model);
                    for (Client c : d.getClients()) {
                        String name = c.getClientData().getClientDescription();
                        if (name != null && d.getSerialNumber().equals(serial)) {
                            named++;
                        }
                        lines.add("client=" + d.getSerialNumber() + " " + c.getClientData().getPid() + " " + name);
                    }
                }
            }
            if (named >= want) {
                break;
            }
            Thread.sleep(100);
        }
        for (String l : lines) {
            System.out.println(l);
        }
        System.out.flush();
        AndroidDebugBridge.terminate();
        System.exit(0);
    }
}
