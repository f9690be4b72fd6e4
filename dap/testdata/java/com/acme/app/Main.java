package com.acme.app;

// The Debug Console reads names as this file does (jdwp/eval): its imports,
// its package, member types, and classes the program has not loaded yet.
// import com.acme.util.Tag; (a comment: not an import)

import com.acme.model.*;
import com.acme.model.Box;
import com.acme.model.Shape;
import com.acme.util.*;
import java.util.List;
import java.util.stream.IntStream;

import static com.acme.util.Fmt.money;
import static java.lang.Math.*;

public class Main extends Base {
    static class Local {
        static final Integer ONE = Integer.valueOf(1);
    }

    public static void main(String[] args) {
        // A reduce loads java.util.stream.ReduceOps$Box: among the loaded
        // classes, "Box" alone is then ambiguous.
        int sum = IntStream.rangeClosed(1, 4).boxed().reduce(0, Integer::sum);
        Box box = new Box(3);
        Shape shape = new Shape.Circle(2.0);
        System.out.println(new Node().kind());
        new Main().run(box, shape, sum);
    }

    void run(Box box, Shape shape, int sum) {
        String label = "run " + List.of(box.size(), sum);
        System.out.println(label); // @imports
        System.out.println(Fmt.money(12.5) + " " + Helper.twice(4));
    }
}
