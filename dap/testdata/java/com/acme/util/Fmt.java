package com.acme.util;

import java.util.Locale;

public final class Fmt {
    // Set by the class's initializer: read before initialization, it is null.
    public static final String CURRENCY;

    static {
        CURRENCY = System.getProperty("acme.currency", "EUR");
    }

    private Fmt() {}

    public static String money(double v) {
        return String.format(Locale.ROOT, "%.2f %s", v, CURRENCY);
    }
}
