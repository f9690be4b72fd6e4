package com.acme.model;

public class Tag {
    public static final String NAME = "model";
}
