import java.util.ArrayList;
import java.util.List;

/** Every kind of JDWP value in one frame. */
public class Values {
    static long staticLong = 1234567890123L;
    static final String CONST = "constant";
    String label = "values";
    Values self;

    void inspect() {
        boolean bo = true;
        byte by = -8;
        char ch = 'q';
        short sh = 300;
        int in = 42;
        long lo = 1L << 40;
        float fl = 1.5f;
        double db = 0.25;
        String str = "text \"quoted\"";
        String nul = null;
        Object obj = new Object();
        Integer boxed = 7;
        Character boxedChar = 'z';
        Boolean boxedBool = Boolean.TRUE;
        int[] ints = new int[250];
        for (int i = 0; i < ints.length; i++) ints[i] = i * i;
        String[] strs = {"a", null, "c"};
        long[][] grid = {{1, 2}, {3}};
        List<String> list = new ArrayList<>(List.of("x", "y"));
        Thread th = Thread.currentThread();
        ThreadGroup group = th.getThreadGroup();
        ClassLoader loader = Values.class.getClassLoader();
        Class<?> cls = Values.class;
        self = this;
        System.out.println("inspect " + bo + by + ch + sh + in + lo + fl + db + str + nul + obj.hashCode() + boxed + boxedChar + boxedBool + ints.length + strs.length + grid.length + list + th.getName() + group.getName() + loader + cls); // @inspect
    }

    public static void main(String[] args) {
        new Values().inspect();
    }
}
