package io.glassledger.api;

import java.util.Optional;

/**
 * The one spelling of a request path that the servers and auditors accept. A path is canonical when it is
 * {@code /} or a sequence of {@code /segment}s where every segment is non-empty, is neither {@code .} nor
 * {@code ..}, and consists only of the characters {@code A-Z a-z 0-9 - . _ ~} (RFC 3986's unreserved set); so there
 * is no percent-escape, no {@code ;} matrix parameter, no backslash, no empty segment ({@code //}) and no trailing
 * slash.
 *
 * <p>Why: a web framework decodes escapes, drops matrix parameters and may collapse slashes or dot segments before
 * it routes; anything that decides about a request (authorization) from the raw path would then see another path
 * than the one routed. No route of ours needs any of those characters, so refusing them before routing leaves the
 * raw path and the routed path the same string. Pure: no I/O, no state.
 */
public final class CanonicalPath {
    /** The problem code of a refused path (docs/API.md, "Errors"). */
    public static final String PROBLEM_CODE = "non_canonical_path";

    private CanonicalPath() {
    }

    /** Empty if {@code rawPath} (still percent-encoded, as received) is canonical, else why it is not. */
    public static Optional<String> violation(String rawPath) {
        if (rawPath == null || rawPath.isEmpty() || rawPath.charAt(0) != '/') {
            return Optional.of("a path must start with /");
        }
        if (rawPath.equals("/")) {
            return Optional.empty();
        }
        int start = 1;
        while (true) {
            int end = rawPath.indexOf('/', start);
            String segment = rawPath.substring(start, end < 0 ? rawPath.length() : end);
            if (segment.isEmpty()) {
                return Optional.of(end < 0 ? "a trailing slash" : "an empty segment (//)");
            }
            if (segment.equals(".") || segment.equals("..")) {
                return Optional.of("a dot segment (" + segment + ")");
            }
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (!unreserved(c)) {
                    return Optional.of(c == '%' ? "a percent-escape" : c == ';' ? "a ; parameter"
                            : "the character U+" + String.format("%04X", (int) c));
                }
            }
            if (end < 0) {
                return Optional.empty();
            }
            start = end + 1;
        }
    }

    private static boolean unreserved(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                || c == '_' || c == '~';
    }
}
