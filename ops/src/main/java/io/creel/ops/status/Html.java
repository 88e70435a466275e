package io.creel.ops.status;

/** Escaping for text that goes into the status page: names and error messages come from users. */
final class Html {
    private Html() {
    }

    static String esc(Object value) {
        String s = String.valueOf(value);
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
