package com.acme.app;

public class Base {
    // A member type Main inherits: in Main's file, Node names it.
    public static class Node {
        public String kind() {
            return "node";
        }
    }
}
