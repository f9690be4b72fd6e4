package ddmbridge.rt;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runtime support for the lambda bodies ddmbridge compiles (package jdwp/lang/java/fngen): values are
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
        int n = fnArity(a);
        if (n != -2) {
            Method s = sam(p);
            return s != null && (n < 0 || s.getParameterTypes().length == n);
        }
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
        args = args.clone();
        for (int i = 0; i < args.length; i++) {
            // a nested function becomes its parameter's interface (a variable arity one's element type)
            args[i] = fn(!varargs || i < ps.length - 1 ? ps[i] : ps[ps.length - 1].getComponentType(), args[i]);
        }
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
        if (fnArity(v) != -2 && sam(c) != null) return fn(c, v);
        if (v != null && numeric(v) && !c.isInstance(v)) {
            Class<?> p = prim(c);
            if (p != null && p != boolean.class) return cast(v, p.getName());
        }
        return c.cast(v);
    }

    // ---- block bodies: assignment, loops, arrays ----

    /** conv converts a value stored into a variable of type t, as Java's assignment converts. */
    private static Object conv(Class<?> t, Object v) {
        if (t == boolean.class) return Boolean.valueOf(truth(v));
        if (t.isPrimitive()) return cast(v, t.getName());
        if (fnArity(v) != -2 && sam(t) != null) return fn(t, v);
        return v;
    }

    public static Object setField(Object o, Object v, String name) throws Throwable {
        if (o == null) throw new NullPointerException("cannot assign field " + name + " of null");
        Field f = findField(o.getClass(), name);
        Object c = conv(f.getType(), v);
        f.set(Modifier.isStatic(f.getModifiers()) ? null : o, c);
        return c;
    }

    public static Object setSField(Class<?> k, Object v, String name) throws Throwable {
        Field f = findField(k, name);
        Object c = conv(f.getType(), v);
        f.set(null, c);
        return c;
    }

    public static Object setIndex(Object arr, Object i, Object v) {
        if (arr == null) throw new NullPointerException("cannot index null");
        Class<?> t = arr.getClass().getComponentType();
        Object c = conv(t, v);
        if (!t.isPrimitive() && c != null && !t.isInstance(c)) throw new ArrayStoreException(c.getClass().getName());
        Array.set(arr, (int) l(i), c);
        return c;
    }

    /** narrow converts the result of a compound assignment back to the type of the variable's old value. */
    public static Object narrow(Object v, Object old) {
        if ((old instanceof Number || old instanceof Character) && (v instanceof Number || v instanceof Character)) {
            Class<?> p = prim(old.getClass());
            if (p != null) return cast(v, p.getName());
        }
        return v;
    }

    public static Object iter(Object x) {
        if (x == null) throw new NullPointerException("cannot iterate over null");
        if (x instanceof Iterable) return ((Iterable<?>) x).iterator();
        if (!x.getClass().isArray()) throw new ClassCastException(x.getClass().getName() + " is neither an array nor an Iterable");
        List<Object> l = new ArrayList<Object>();
        for (int i = 0; i < Array.getLength(x); i++) l.add(Array.get(x, i));
        return l.iterator();
    }

    public static boolean more(Object it) {
        return ((Iterator<?>) it).hasNext();
    }

    public static Object next(Object it) {
        return ((Iterator<?>) it).next();
    }

    public static Object newArray(Object comp, Object n) {
        return Array.newInstance(component(comp), (int) l(n));
    }

    public static Object arrayOf(Object comp, Object[] elems) {
        Class<?> c = component(comp);
        Object a = Array.newInstance(c, elems.length);
        for (int i = 0; i < elems.length; i++) Array.set(a, i, conv(c, elems[i]));
        return a;
    }

    /** component is an array's element type: a class, or a primitive type named by its keyword ("int", "int[]"). */
    private static Class<?> component(Object comp) {
        if (comp instanceof Class) return (Class<?>) comp;
        String s = (String) comp;
        if (s.endsWith("[]")) return Array.newInstance(component(s.substring(0, s.length() - 2)), 0).getClass();
        Class<?>[] prims = {boolean.class, byte.class, char.class, short.class, int.class, long.class, float.class, double.class};
        for (Class<?> p : prims) {
            if (p.getName().equals(s)) return p;
        }
        throw new IllegalArgumentException("not a type: " + s);
    }

    // ---- lambdas and method references nested in a lambda's body ----
    // Each is compiled into an InvocationHandler (public int field n: its
    // number of parameters, -1 for a method reference); passed to a method,
    // it becomes a Proxy of the functional interface the parameter names.

    /** fnArity is a nested function's number of parameters (-1: any), or -2 when a is no nested function. */
    private static int fnArity(Object a) {
        if (!(a instanceof InvocationHandler) || !a.getClass().getName().contains("ddmbridge$F")) return -2;
        try {
            return a.getClass().getField("n").getInt(a);
        } catch (Exception e) {
            return -2;
        }
    }

    /** fn makes a nested function an instance of interface p; anything else is returned as it is. */
    private static Object fn(Class<?> p, Object a) {
        if (fnArity(a) == -2 || p == null || !p.isInterface()) return a;
        ClassLoader l = p.getClassLoader();
        if (l == null) l = a.getClass().getClassLoader();
        return Proxy.newProxyInstance(l, new Class<?>[] {p}, (InvocationHandler) a);
    }

    /** sam is the single abstract method of interface c, or null when c is none or has several. */
    private static Method sam(Class<?> c) {
        if (c == null || !c.isInterface()) return null;
        Method found = null;
        for (Method m : c.getMethods()) {
            if (!Modifier.isAbstract(m.getModifiers()) || objectMethod(m)) continue;
            if (found == null) {
                found = m;
            } else if (!found.getName().equals(m.getName()) || !Arrays.equals(found.getParameterTypes(), m.getParameterTypes())) {
                return null;
            }
        }
        return found;
    }

    private static boolean objectMethod(Method m) {
        try {
            Object.class.getMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** body reports whether a nested function's handler runs its body for m: the interface's abstract method. */
    public static boolean body(Method m) {
        return Modifier.isAbstract(m.getModifiers()) && !objectMethod(m);
    }

    /** other answers the proxy's other methods: Object's, and the interface's default methods. */
    public static Object other(Object h, Object proxy, Method m, Object[] args) throws Throwable {
        String n = m.getName();
        int k = m.getParameterTypes().length;
        if (n.equals("equals") && k == 1) return Boolean.valueOf(proxy == args[0]);
        if (n.equals("hashCode") && k == 0) return Integer.valueOf(System.identityHashCode(proxy));
        if (n.equals("toString") && k == 0) return h.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(proxy));
        Method d;
        try {
            d = InvocationHandler.class.getMethod("invokeDefault", Object.class, Method.class, Object[].class);
        } catch (NoSuchMethodException e) {
            throw new UnsupportedOperationException("the default method " + m + " of a lambda needs Java 16 or later");
        }
        try {
            return d.invoke(null, proxy, m, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** ret converts a nested function's result for the method the proxy runs. */
    public static Object ret(Object v, Method m) {
        Class<?> t = m.getReturnType();
        if (t == void.class) return null;
        if (t.isPrimitive()) return conv(t, v);
        return to(v, t);
    }

    /** args is a proxy's arguments (null for none). */
    public static Object[] args(Object[] a) {
        return a == null ? new Object[0] : a;
    }
}
