package ddmbridge.rt;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runtime support for the lambda bodies ddmbridge compiles (package dap/fngen): values are
 * objects (primitives boxed), and every operation is resolved by the values' runtime types with
 * Java's rules — numeric promotion, string concatenation, overload resolution by applicability
 * (strict, then with unboxing, then variable arity) and the most specific method.
 *
 * <p>Compiled with {@code javac --release 8 -g:none}; the class file is embedded and defined in
 * the debuggee's class loader. Keep it to one top-level class with no nested classes or lambdas.
 */
public final class Rt {
    private Rt() {}

    // ---- members ----

    public static Object field(Object o, String name) throws Throwable {
        if (o == null) throw new NullPointerException("cannot read field " + name + " of null");
        if (o.getClass().isArray() && name.equals("length")) return Integer.valueOf(Array.getLength(o));
        Field f = findField(o.getClass(), name);
        return f.get(Modifier.isStatic(f.getModifiers()) ? null : o);
    }

    public static Object sfield(Class<?> c, String name) throws Throwable {
        return findField(c, name).get(null);
    }

    private static Field findField(Class<?> c, String name) throws NoSuchFieldException {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (f.getName().equals(name)) {
                    open(f, f.getModifiers(), k);
                    return f;
                }
            }
        }
        try {
            return c.getField(name); // interface constants
        } catch (NoSuchFieldException e) {
            throw new NoSuchFieldException(c.getName() + " has no field " + name);
        }
    }

    private static void open(java.lang.reflect.AccessibleObject m, int mods, Class<?> decl) {
        if (!Modifier.isPublic(mods) || !Modifier.isPublic(decl.getModifiers())) {
            try {
                m.setAccessible(true);
            } catch (RuntimeException e) {
                // not open to us: the access check of invoke or get reports it
            }
        }
    }

    public static Object call(Object recv, String name, Object[] args) throws Throwable {
        if (recv == null) throw new NullPointerException("cannot call " + name + " on null");
        return invoke(recv.getClass(), recv, name, args, false);
    }

    public static Object scall(Class<?> c, String name, Object[] args) throws Throwable {
        return invoke(c, null, name, args, true);
    }

    /** Type::name — a static method taking every argument, or an instance method of the first. */
    public static Object ref(Class<?> c, String name, Object[] args) throws Throwable {
        Method m = choose(methods(c, name, true), args);
        if (m != null) return run(m, null, args);
        if (args.length > 0 && c.isInstance(args[0])) {
            Object[] rest = new Object[args.length - 1];
            System.arraycopy(args, 1, rest, 0, rest.length);
            return invoke(args[0].getClass(), args[0], name, rest, false);
        }
        throw new NoSuchMethodException(c.getName() + "::" + name + " matches no method for " + types(args));
    }

    public static Object make(Class<?> c, Object[] args) throws Throwable {
        List<Member> cands = new ArrayList<Member>();
        for (Constructor<?> k : c.getDeclaredConstructors()) cands.add(k);
        Member m = choose(cands, args);
        if (m == null) throw new NoSuchMethodException("no constructor new " + c.getName() + types(args));
        Constructor<?> k = (Constructor<?>) m;
        open(k, k.getModifiers(), c);
        try {
            return k.newInstance(pack(k.getParameterTypes(), k.isVarArgs(), args));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Object invoke(Class<?> c, Object recv, String name, Object[] args, boolean statics) throws Throwable {
        Method m = choose(methods(c, name, statics), args);
        if (m == null) {
            throw new NoSuchMethodException("no " + c.getName() + "." + name + types(args) + " matches the arguments");
        }
        return run(m, recv, args);
    }

    private static Object run(Method m, Object recv, Object[] args) throws Throwable {
        try {
            return m.invoke(recv, pack(m.getParameterTypes(), m.isVarArgs(), args));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** methods lists c's methods called name (static ones only, if statics), the most derived first. */
    private static List<Method> methods(Class<?> c, String name, boolean statics) {
        Map<String, Member> seen = new LinkedHashMap<String, Member>();
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) add(seen, m, name, statics);
        }
        for (Method m : c.getMethods()) add(seen, m, name, statics);
        List<Method> out = new ArrayList<Method>();
        for (Member m : seen.values()) out.add(usable(c, (Method) m));
        return out;
    }

    private static void add(Map<String, Member> seen, Method m, String name, boolean statics) {
        if (!m.getName().equals(name) || m.isBridge() || statics && !Modifier.isStatic(m.getModifiers())) return;
        String key = java.util.Arrays.toString(m.getParameterTypes());
        if (!seen.containsKey(key)) seen.put(key, m);
    }

    /** usable returns m, or the same method of a public supertype when m's class is not open to us. */
    private static Method usable(Class<?> c, Method m) {
        if (Modifier.isPublic(m.getModifiers()) && Modifier.isPublic(m.getDeclaringClass().getModifiers())) return m;
        try {
            m.setAccessible(true);
            return m;
        } catch (RuntimeException e) {
            // look for it in a public supertype
        }
        List<Class<?>> queue = new ArrayList<Class<?>>();
        queue.add(c);
        for (int i = 0; i < queue.size(); i++) {
            Class<?> k = queue.get(i);
            if (Modifier.isPublic(k.getModifiers())) {
                try {
                    return k.getMethod(m.getName(), m.getParameterTypes());
                } catch (NoSuchMethodException e) {
                    // keep looking
                }
            }
            if (k.getSuperclass() != null) queue.add(k.getSuperclass());
            for (Class<?> j : k.getInterfaces()) queue.add(j);
        }
        return m;
    }

    /** choose picks the applicable member (strict, loose, variable arity) that is the most specific. */
    private static <M extends Member> M choose(List<M> cands, Object[] args) throws NoSuchMethodException {
        for (int phase = 1; phase <= 3; phase++) {
            List<M> ok = new ArrayList<M>();
            for (M m : cands) {
                if (applicable(params(m), varargs(m), args, phase)) ok.add(m);
            }
            if (ok.isEmpty()) continue;
            M best = null;
            for (M a : ok) {
                boolean all = true;
                for (M b : ok) {
                    if (a != b && !moreSpecific(params(a), params(b))) all = false;
                }
                if (all) {
                    best = a;
                    break;
                }
            }
            if (best == null) {
                throw new NoSuchMethodException("the call is ambiguous: " + ok + " all match " + types(args) + "; cast the arguments");
            }
            return best;
        }
        return null;
    }

    private static Class<?>[] params(Member m) {
        return m instanceof Method ? ((Method) m).getParameterTypes() : ((Constructor<?>) m).getParameterTypes();
    }

    private static boolean varargs(Member m) {
        return m instanceof Method ? ((Method) m).isVarArgs() : ((Constructor<?>) m).isVarArgs();
    }

    private static boolean applicable(Class<?>[] ps, boolean varargs, Object[] args, int phase) {
        if (phase < 3) {
            if (ps.length != args.length) return false;
            for (int i = 0; i < ps.length; i++) {
                if (!accepts(ps[i], args[i], phase == 2)) return false;
            }
            return true;
        }
        if (!varargs || args.length < ps.length - 1) return false;
        for (int i = 0; i < ps.length - 1; i++) {
            if (!accepts(ps[i], args[i], true)) return false;
        }
        Class<?> elem = ps[ps.length - 1].getComponentType();
        for (int i = ps.length - 1; i < args.length; i++) {
            if (!accepts(elem, args[i], true)) return false;
        }
        return true;
    }

    private static boolean accepts(Class<?> p, Object a, boolean loose) {
        if (!p.isPrimitive()) return a == null || p.isInstance(a);
        if (!loose || a == null) return false;
        Class<?> k = prim(a.getClass());
        return k != null && widens(k, p);
    }

    private static final Class<?>[] ORDER = {byte.class, short.class, char.class, int.class, long.class, float.class, double.class};

    private static boolean widens(Class<?> from, Class<?> to) {
        if (from == to) return true;
        if (from == boolean.class || to == boolean.class || to == char.class) return false;
        if (from == char.class) return rank(to) >= rank(int.class);
        if (to == short.class) return from == byte.class;
        return rank(from) < rank(to) && from != char.class;
    }

    private static int rank(Class<?> c) {
        for (int i = 0; i < ORDER.length; i++) if (ORDER[i] == c) return i;
        return -1;
    }

    private static boolean moreSpecific(Class<?>[] a, Class<?>[] b) {
        for (int i = 0; i < a.length && i < b.length; i++) {
            if (a[i].isPrimitive() && b[i].isPrimitive()) {
                if (!widens(a[i], b[i])) return false;
            } else if (a[i].isPrimitive() || b[i].isPrimitive() || !b[i].isAssignableFrom(a[i])) {
                return false;
            }
        }
        return true;
    }

    private static Object[] pack(Class<?>[] ps, boolean varargs, Object[] args) {
        if (!varargs) return args;
        int last = ps.length - 1;
        if (args.length == ps.length && (args[last] == null || ps[last].isInstance(args[last]))) return args;
        Object[] out = new Object[ps.length];
        System.arraycopy(args, 0, out, 0, last);
        Object rest = Array.newInstance(ps[last].getComponentType(), args.length - last);
        for (int i = last; i < args.length; i++) Array.set(rest, i - last, args[i]);
        out[last] = rest;
        return out;
    }

    private static String types(Object[] args) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < args.length; i++) {
            if (i > 0) b.append(", ");
            b.append(args[i] == null ? "null" : args[i].getClass().getSimpleName());
        }
        return b.append(")").toString();
    }

    private static Class<?> prim(Class<?> box) {
        if (box == Integer.class) return int.class;
        if (box == Long.class) return long.class;
        if (box == Double.class) return double.class;
        if (box == Float.class) return float.class;
        if (box == Short.class) return short.class;
        if (box == Byte.class) return byte.class;
        if (box == Character.class) return char.class;
        if (box == Boolean.class) return boolean.class;
        return null;
    }

    // ---- operators ----

    public static boolean truth(Object v) {
        if (v instanceof Boolean) return ((Boolean) v).booleanValue();
        throw new ClassCastException("a condition must be boolean, not " + (v == null ? "null" : v.getClass().getName()));
    }

    private static boolean numeric(Object v) {
        return v instanceof Number || v instanceof Character;
    }

    private static long l(Object v) {
        return v instanceof Character ? ((Character) v).charValue() : ((Number) v).longValue();
    }

    private static double d(Object v) {
        return v instanceof Character ? ((Character) v).charValue() : ((Number) v).doubleValue();
    }

    /** kind is the promoted type of a numeric operand: 'I', 'J', 'F' or 'D'. */
    private static char kind(Object v) {
        if (v instanceof Double) return 'D';
        if (v instanceof Float) return 'F';
        if (v instanceof Long) return 'J';
        if (v instanceof Number || v instanceof Character) return 'I';
        throw new ClassCastException("not a number: " + (v == null ? "null" : v.getClass().getName()));
    }

    private static char promote(Object a, Object b) {
        char x = kind(a), y = kind(b);
        if (x == 'D' || y == 'D') return 'D';
        if (x == 'F' || y == 'F') return 'F';
        if (x == 'J' || y == 'J') return 'J';
        return 'I';
    }

    public static Object bin(Object a, Object b, String op) {
        if (op.equals("+") && (a instanceof String || b instanceof String)) return String.valueOf(a) + String.valueOf(b);
        if (op.equals("==") || op.equals("!=")) {
            boolean eq;
            if (numeric(a) && numeric(b)) {
                char k = promote(a, b);
                eq = k == 'D' || k == 'F' ? d(a) == d(b) : l(a) == l(b);
            } else if (a instanceof Boolean && b instanceof Boolean || a instanceof String && b instanceof String) {
                eq = a.equals(b);
            } else {
                eq = a == b;
            }
            return Boolean.valueOf(op.equals("==") == eq);
        }
        if (a instanceof Boolean && b instanceof Boolean) {
            boolean x = ((Boolean) a).booleanValue(), y = ((Boolean) b).booleanValue();
            if (op.equals("&")) return Boolean.valueOf(x & y);
            if (op.equals("|")) return Boolean.valueOf(x | y);
            if (op.equals("^")) return Boolean.valueOf(x ^ y);
        }
        if (op.equals("<<") || op.equals(">>") || op.equals(">>>")) {
            long n = l(b);
            if (kind(a) == 'J') {
                long x = l(a);
                return Long.valueOf(op.equals("<<") ? x << n : op.equals(">>") ? x >> n : x >>> n);
            }
            int x = (int) l(a);
            if (kind(a) != 'I') throw new ClassCastException("shift of a floating-point value");
            return Integer.valueOf(op.equals("<<") ? x << n : op.equals(">>") ? x >> n : x >>> n);
        }
        char k = promote(a, b);
        if (k == 'D' || k == 'F') {
            double x = d(a), y = d(b);
            if (k == 'F') {
                float fx = (float) x, fy = (float) y;
                switch (op) {
                    case "+": return Float.valueOf(fx + fy);
                    case "-": return Float.valueOf(fx - fy);
                    case "*": return Float.valueOf(fx * fy);
                    case "/": return Float.valueOf(fx / fy);
                    case "%": return Float.valueOf(fx % fy);
                }
            }
            switch (op) {
                case "+": return Double.valueOf(x + y);
                case "-": return Double.valueOf(x - y);
                case "*": return Double.valueOf(x * y);
                case "/": return Double.valueOf(x / y);
                case "%": return Double.valueOf(x % y);
                case "<": return Boolean.valueOf(x < y);
                case ">": return Boolean.valueOf(x > y);
                case "<=": return Boolean.valueOf(x <= y);
                case ">=": return Boolean.valueOf(x >= y);
            }
            throw new IllegalArgumentException("bad operand types for " + op);
        }
        long x = l(a), y = l(b);
        switch (op) {
            case "<": return Boolean.valueOf(x < y);
            case ">": return Boolean.valueOf(x > y);
            case "<=": return Boolean.valueOf(x <= y);
            case ">=": return Boolean.valueOf(x >= y);
        }
        long r;
        switch (op) {
            case "+": r = x + y; break;
            case "-": r = x - y; break;
            case "*": r = x * y; break;
            case "/": r = k == 'I' ? (int) x / (int) y : x / y; break;
            case "%": r = k == 'I' ? (int) x % (int) y : x % y; break;
            case "&": r = x & y; break;
            case "|": r = x | y; break;
            case "^": r = x ^ y; break;
            default: throw new IllegalArgumentException("bad operand types for " + op);
        }
        return k == 'I' ? (Object) Integer.valueOf((int) r) : (Object) Long.valueOf(r);
    }

    public static Object un(String op, Object a) {
        if (op.equals("!")) return Boolean.valueOf(!truth(a));
        char k = kind(a);
        if (op.equals("+")) return k == 'I' ? Integer.valueOf((int) l(a)) : a;
        if (op.equals("-")) {
            switch (k) {
                case 'D': return Double.valueOf(-d(a));
                case 'F': return Float.valueOf(-(float) d(a));
                case 'J': return Long.valueOf(-l(a));
                default: return Integer.valueOf(-(int) l(a));
            }
        }
        if (op.equals("~") && k == 'J') return Long.valueOf(~l(a));
        if (op.equals("~") && k == 'I') return Integer.valueOf(~(int) l(a));
        throw new IllegalArgumentException("bad operand type for " + op);
    }

    public static Object index(Object arr, Object i) {
        if (arr == null) throw new NullPointerException("cannot index null");
        return Array.get(arr, (int) l(i));
    }

    public static Object isInst(Object v, Class<?> c) {
        return Boolean.valueOf(c.isInstance(v));
    }

    /** cast converts to a primitive type named by its keyword ("int"), or checks a class. */
    public static Object cast(Object v, String prim) {
        if (prim.equals("boolean")) return Boolean.valueOf(truth(v));
        if (v == null) throw new NullPointerException("cannot cast null to " + prim);
        switch (prim) {
            case "byte": return Byte.valueOf((byte) l(v));
            case "short": return Short.valueOf((short) l(v));
            case "char": return Character.valueOf((char) l(v));
            case "int": return Integer.valueOf(kind(v) == 'I' || kind(v) == 'J' ? (int) l(v) : (int) d(v));
            case "long": return Long.valueOf(kind(v) == 'I' || kind(v) == 'J' ? l(v) : (long) d(v));
            case "float": return Float.valueOf(kind(v) == 'I' || kind(v) == 'J' ? (float) l(v) : (float) d(v));
            case "double": return Double.valueOf(kind(v) == 'I' || kind(v) == 'J' ? (double) l(v) : d(v));
        }
        throw new IllegalArgumentException("not a primitive type: " + prim);
    }

    public static Object cast(Object v, Class<?> c) {
        return c.cast(v);
    }

    // ---- the functional interface's boundary ----

    public static boolean toZ(Object v) { return truth(v); }
    public static byte toB(Object v) { return ((Byte) cast(v, "byte")).byteValue(); }
    public static short toS(Object v) { return ((Short) cast(v, "short")).shortValue(); }
    public static char toC(Object v) { return ((Character) cast(v, "char")).charValue(); }
    public static int toI(Object v) { return ((Integer) cast(v, "int")).intValue(); }
    public static long toJ(Object v) { return ((Long) cast(v, "long")).longValue(); }
    public static float toF(Object v) { return ((Float) cast(v, "float")).floatValue(); }
    public static double toD(Object v) { return ((Double) cast(v, "double")).doubleValue(); }

    /** to converts a result for a reference return type: a number to the wrapper the type names. */
    public static Object to(Object v, Class<?> c) {
        if (v != null && numeric(v) && !c.isInstance(v)) {
            Class<?> p = prim(c);
            if (p != null && p != boolean.class) return cast(v, p.getName());
        }
        return c.cast(v);
    }
}
