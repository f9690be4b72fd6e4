package com.acme.util;

// Not the Box Main means: its single-type import of com.acme.model.Box
// shadows this one, which com.acme.util.* would bring.
public class Box {
}
