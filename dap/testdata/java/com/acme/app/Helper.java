package com.acme.app;

class Helper {
    static int twice(int n) {
        return 2 * n;
    }
}
