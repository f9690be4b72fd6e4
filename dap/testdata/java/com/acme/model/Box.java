package com.acme.model;

public class Box {
    private final int size;

    public Box(int size) {
        this.size = size;
    }

    public int size() {
        return size;
    }

    public static Box of(int size) {
        return new Box(size);
    }
}
