import com.sun.jdi.AbsentInformationException;
import com.sun.jdi.ArrayReference;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassNotPreparedException;
import com.sun.jdi.ClassType;
import com.sun.jdi.Field;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectCollectedException;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.LocatableEvent;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.StepRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JDI reference client for the shared JDWP benchmark (shared/bench/README.md).
 *
 * <p>Usage: {@code java JdiBench HOST:PORT WORKLOAD}, WORKLOAD one of classes, threaddump, locals,
 * objects, step. Attaches with com.sun.jdi.SocketAttach to a running BenchTarget, does the
 * workload once, prints one JSON line on stdout and disposes the connection so the debuggee keeps
 * running for the next run. The timed section excludes attaching (and so the handshake and JDI's
 * own start-up queries) and, for step, the initial breakpoint.
 */
public final class JdiBench {
    static final int STEPS = 300;
    static final long EVENT_TIMEOUT_MS = 30_000;

    interface Workload {
        /** Does the work and returns the number of items counted. */
        long run(VirtualMachine vm, Timer timer) throws Exception;
    }

    /** The timed section; workloads that have untimed set-up restart it. */
    static final class Timer {
        long start = System.nanoTime();

        void restart() {
            start = System.nanoTime();
        }

        double seconds(long end) {
            return (end - start) / 1e9;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java JdiBench HOST:PORT classes|threaddump|locals|objects|step");
            System.exit(2);
        }
        String name = args[1];
        Workload w = workload(name);
        if (w == null) {
            System.err.println("JdiBench: unknown workload " + name + " (want classes, threaddump, locals, objects or step)");
            System.exit(2);
        }
        VirtualMachine vm = attach(args[0]);
        try {
            Timer timer = new Timer();
            long items = w.run(vm, timer);
            long end = System.nanoTime();
            System.out.println(String.format(Locale.ROOT,
                    "{\"client\":\"jdi\",\"workload\":\"%s\",\"items\":%d,\"seconds\":%.4f}", name, items, timer.seconds(end)));
            System.out.flush();
        } finally {
            vm.dispose();
        }
    }

    static Workload workload(String name) {
        switch (name) {
            case "classes": return JdiBench::classes;
            case "threaddump": return JdiBench::threadDump;
            case "locals": return JdiBench::locals;
            case "objects": return JdiBench::objects;
            case "step": return JdiBench::step;
            default: return null;
        }
    }

    static VirtualMachine attach(String addr) throws Exception {
        int colon = addr.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("address " + addr + " is not HOST:PORT");
        }
        String host = addr.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        AttachingConnector connector = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) {
                connector = c;
            }
        }
        if (connector == null) {
            throw new IllegalStateException("no com.sun.jdi.SocketAttach connector in this JDK");
        }
        Map<String, Connector.Argument> ca = connector.defaultArguments();
        ca.get("hostname").setValue(host);
        ca.get("port").setValue(addr.substring(colon + 1));
        Connector.Argument timeout = ca.get("timeout");
        if (timeout != null) {
            timeout.setValue("30000");
        }
        // A server=y agent needs a moment after the previous debugger detached before it listens
        // again; until then connections are refused or reset.
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            try {
                return connector.attach(ca);
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    /** All loaded classes with generic signatures; for each, its methods and its fields. Items: classes. */
    static long classes(VirtualMachine vm, Timer timer) {
        List<ReferenceType> all = vm.allClasses();
        for (ReferenceType t : all) {
            t.genericSignature();
            try {
                t.methods().size();
                t.fields().size();
            } catch (ClassNotPreparedException e) {
                // Loaded but not yet prepared: the VM has no members to report.
            }
        }
        return all.size();
    }

    /** Suspend; every thread's name, status and frames with method name and line; resume. Items: frames. */
    static long threadDump(VirtualMachine vm, Timer timer) throws Exception {
        long frames = 0;
        vm.suspend();
        try {
            for (ThreadReference t : vm.allThreads()) {
                try {
                    t.name();
                    t.status();
                    for (StackFrame f : t.frames()) {
                        Location l = f.location();
                        l.method().name();
                        l.lineNumber();
                        frames++;
                    }
                } catch (ObjectCollectedException | IncompatibleThreadStateException e) {
                    // The thread ended while we looked at it.
                }
            }
        } finally {
            vm.resume();
        }
        return frames;
    }

    /** Suspend; for every frame of every thread its visible variables and their values; resume. Items: values. */
    static long locals(VirtualMachine vm, Timer timer) throws Exception {
        long values = 0;
        vm.suspend();
        try {
            for (ThreadReference t : vm.allThreads()) {
                List<StackFrame> frames;
                try {
                    frames = t.frames();
                } catch (ObjectCollectedException | IncompatibleThreadStateException e) {
                    continue;
                }
                for (StackFrame f : frames) {
                    List<LocalVariable> vars;
                    try {
                        vars = f.visibleVariables();
                    } catch (AbsentInformationException e) {
                        continue; // no variable table (compiled without -g, or native)
                    }
                    if (vars.isEmpty()) {
                        continue;
                    }
                    Map<LocalVariable, Value> got = f.getValues(vars);
                    values += got.size();
                }
            }
        } finally {
            vm.resume();
        }
        return values;
    }

    /** BenchTarget.graph: every element, its instance field values and its label's string value. Items: objects. */
    static long objects(VirtualMachine vm, Timer timer) {
        ClassType bench = benchTarget(vm);
        Field graphField = bench.fieldByName("graph");
        ArrayReference graph = (ArrayReference) bench.getValue(graphField);
        long objects = 0;
        ReferenceType lastType = null;
        List<Field> instanceFields = null;
        Field label = null;
        for (Value v : graph.getValues()) {
            if (!(v instanceof ObjectReference)) {
                continue;
            }
            ObjectReference o = (ObjectReference) v;
            ReferenceType t = o.referenceType();
            if (t != lastType) {
                lastType = t;
                instanceFields = new ArrayList<>();
                for (Field f : t.fields()) {
                    if (!f.isStatic()) {
                        instanceFields.add(f);
                    }
                }
                label = t.fieldByName("label");
            }
            Map<Field, Value> values = o.getValues(instanceFields);
            Value lv = values.get(label);
            if (lv instanceof StringReference) {
                ((StringReference) lv).value();
            }
            objects++;
        }
        return objects;
    }

    /**
     * Breakpoint on the second line of BenchTarget.step(int), untimed; then 300 line step-overs on that
     * thread, each a fresh request with count filter 1, reading the top frame's line after each.
     * Items: steps.
     */
    static long step(VirtualMachine vm, Timer timer) throws Exception {
        ClassType bench = benchTarget(vm);
        Method method = null;
        for (Method m : bench.methodsByName("step")) {
            if (m.signature().equals("(I)I")) {
                method = m;
            }
        }
        if (method == null) {
            throw new IllegalStateException("BenchTarget.step(int) not found");
        }
        Location second = null;
        int firstLine = -1;
        for (Location l : method.allLineLocations()) { // ordered by code index
            if (firstLine < 0) {
                firstLine = l.lineNumber();
            } else if (l.lineNumber() != firstLine) {
                second = l;
                break;
            }
        }
        if (second == null) {
            throw new IllegalStateException("BenchTarget.step(int) has fewer than two lines");
        }

        EventRequestManager erm = vm.eventRequestManager();
        BreakpointRequest bp = erm.createBreakpointRequest(second);
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();
        EventSet set = await(vm, bp);
        ThreadReference thread = ((BreakpointEvent) eventOf(set, bp)).thread();
        erm.deleteEventRequest(bp);

        timer.restart();
        for (int i = 0; i < STEPS; i++) {
            StepRequest sr = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
            sr.addCountFilter(1);
            sr.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            sr.enable();
            set.resume();
            set = await(vm, sr);
            erm.deleteEventRequest(sr);
            thread.frame(0).location().lineNumber();
        }
        set.resume();
        return STEPS;
    }

    static ClassType benchTarget(VirtualMachine vm) {
        List<ReferenceType> types = vm.classesByName("BenchTarget");
        if (types.isEmpty()) {
            throw new IllegalStateException("class BenchTarget is not loaded in the target VM");
        }
        return (ClassType) types.get(0);
    }

    /** Waits for the event set holding an event of request r; other event sets are resumed. */
    static EventSet await(VirtualMachine vm, EventRequest r) throws InterruptedException {
        long deadline = System.currentTimeMillis() + EVENT_TIMEOUT_MS;
        while (true) {
            long left = deadline - System.currentTimeMillis();
            EventSet set = left > 0 ? vm.eventQueue().remove(left) : null;
            if (set == null) {
                throw new IllegalStateException("no event for " + r + " within " + EVENT_TIMEOUT_MS + " ms");
            }
            if (eventOf(set, r) != null) {
                return set;
            }
            for (Event e : set) {
                if (e instanceof VMDisconnectEvent) {
                    throw new IllegalStateException("target VM disconnected");
                }
            }
            set.resume();
        }
    }

    static LocatableEvent eventOf(EventSet set, EventRequest r) {
        for (Event e : set) {
            if (e.request() == r && (e instanceof BreakpointEvent || e instanceof StepEvent)) {
                return (LocatableEvent) e;
            }
        }
        return null;
    }
}
