import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.util.*;

/**
 * A JDI debugger for the bridge tests: attaches to host:port, stops in
 * DemoApp.work at the given line, reads the argument n, steps over one line,
 * reads the local sum, clears its requests, resumes and disposes.
 * Prints one line per result and "OK" at the end. With a fifth argument
 * "hold" it prints "HOLDING" after it clears its requests and waits for a
 * line on standard input (at most 60 s): the session stays open as long as
 * the test needs it.
 */
public class JdiClient {
    public static void main(String[] args) throws Exception {
        String host = args[0];
        String port = args[1];
        int line = Integer.parseInt(args[2]);
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        AttachingConnector c = Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(x -> x.name().equals("com.sun.jdi.SocketAttach")).findFirst().get();
        Map<String, Connector.Argument> a = c.defaultArguments();
        a.get("hostname").setValue(host);
        a.get("port").setValue(port);
        VirtualMachine vm = c.attach(a);
        System.out.println("ATTACHED " + vm.name());
        ClassType demo = (ClassType) vm.classesByName("DemoApp").get(0);
        Location loc = demo.locationsOfLine(line).get(0);
        EventRequestManager erm = vm.eventRequestManager();
        BreakpointRequest bp = erm.createBreakpointRequest(loc);
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();
        EventQueue q = vm.eventQueue();
        for (int r = 0; r < rounds; r++) {
            BreakpointEvent hit = (BreakpointEvent) next(q, BreakpointEvent.class);
            StackFrame f = hit.thread().frame(0);
            LocalVariable n = f.visibleVariableByName("n");
            System.out.println("BP line=" + hit.location().lineNumber() + " n=" + f.getValue(n));
            StepRequest step = erm.createStepRequest(hit.thread(), StepRequest.STEP_LINE, StepRequest.STEP_OVER);
            step.addCountFilter(1);
            step.enable();
            vm.resume();
            StepEvent st = (StepEvent) next(q, StepEvent.class);
            f = st.thread().frame(0);
            LocalVariable sum = f.visibleVariableByName("sum");
            System.out.println("STEP line=" + st.location().lineNumber() + " sum=" + f.getValue(sum));
            erm.deleteEventRequest(step);
            vm.resume();
        }
        erm.deleteEventRequest(bp);
        vm.resume();
        if (args.length > 4 && args[4].equals("hold")) {
            System.out.println("HOLDING");
            System.out.flush();
            Thread reader = new Thread(() -> {
                try {
                    new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
                } catch (java.io.IOException e) {
                }
            });
            reader.setDaemon(true);
            reader.start();
            reader.join(60000);
        }
        vm.dispose();
        System.out.println("OK");
    }

    static Event next(EventQueue q, Class<?> want) throws Exception {
        while (true) {
            EventSet set = q.remove(20000);
            if (set == null) throw new RuntimeException("no " + want.getSimpleName() + " within 20 s");
            for (Event e : set) {
                if (want.isInstance(e)) return e;
                if (e instanceof VMDisconnectEvent) throw new RuntimeException("VM disconnected");
            }
            set.resume();
        }
    }
}
