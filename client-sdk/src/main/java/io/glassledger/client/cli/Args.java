package io.glassledger.client.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed command line: options with a value, the {@code --json} and {@code --debug} flags, and the words (command
 * and arguments).
 */
final class Args {
    private static final List<String> VALUED = List.of("--url", "--cluster", "--api-key", "--pin", "--key-file",
            "--state", "--timeout", "--block", "-n", "--out", "--digest", "--server-key", "--file", "--limit",
            "--role", "--shard", "--raft", "--replica-url", "--retries");

    final Map<String, String> opts = new LinkedHashMap<>();
    final List<String> words = new ArrayList<>();
    boolean json;
    /** {@code --debug}: the HTTP transport's own log lines and a failure's whole cause chain go to stderr too. */
    boolean debug;

    static Args parse(String[] argv) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String s = argv[i];
            if (s.equals("--json")) {
                a.json = true;
            } else if (s.equals("--debug")) {
                a.debug = true;
            } else if (s.equals("-h") || s.equals("--help")) {
                throw Usage.HELP;
            } else if (VALUED.contains(s)) {
                if (i + 1 >= argv.length) {
                    throw new Usage(s + " needs a value");
                }
                a.opts.put(s, argv[++i]);
            } else if (s.startsWith("-") && s.length() > 1) {
                throw new Usage("unknown option " + s);
            } else {
                a.words.add(s);  // a lone "-" is a word: put KEY - reads the value from stdin
            }
        }
        if (a.words.isEmpty()) {
            throw new Usage("no command");
        }
        return a;
    }

    String word(int i) {
        return words.get(i);
    }

    /** The words, checked to be exactly {@code n} long. */
    List<String> arity(int n, String form) {
        if (words.size() != n) {
            throw new Usage("expected: " + form);
        }
        return words;
    }

    boolean has(String option) {
        return opts.containsKey(option);
    }

    String opt(String option) {
        return opts.get(option);
    }

    long longOpt(String option, long dflt) {
        String v = opts.get(option);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new Usage(option + " must not be negative");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new Usage(option + " needs a number, got " + v);
        }
    }

    /** {@code --block N} if given, else null (the latest persisted block). */
    Long block() {
        return has("--block") ? longOpt("--block", 0) : null;
    }
}
