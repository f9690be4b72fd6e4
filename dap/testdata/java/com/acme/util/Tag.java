package com.acme.util;

public class Tag {
    public static final String NAME = "util";
}
