package com.acme.model;

public sealed interface Shape permits Shape.Circle, Shape.Square {
    double area();

    record Circle(double r) implements Shape {
        public double area() {
            return Math.PI * r * r;
        }
    }

    record Square(double side) implements Shape {
        public double area() {
            return side * side;
        }
    }
}
