// Inherit calls a method Element inherits from Node, on a TextNode first
// (another subclass) and then on an Element: a function breakpoint on
// Element.attr stops in the second call alone.
public class Inherit {
    static class Node {
        String attr(String key) {
            return key + "=" + key.length(); // @node-attr
        }
    }

    static class Element extends Node {
    }

    static class TextNode extends Node {
    }

    public static void main(String[] args) {
        Node e = new Element();
        Node t = new TextNode();
        System.out.println(t.attr("text"));
        System.out.println(e.attr("elem"));
        System.out.println("END");
    }
}
