package io.glassledger.client.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ledger-cli trust reset}: the deliberate way to start afresh after a server was reset or replaced. The
 * trusted state files of the server (or of every shard) are moved aside, never deleted, so the old trust stays as
 * evidence; the next command trusts whatever the server then presents. Nothing ever does this automatically.
 */
final class TrustCommands {
    private final Context cx;

    TrustCommands(Context cx) {
        this.cx = cx;
    }

    int run() {
        List<String> w = cx.args.arity(2, "trust reset");
        if (!w.get(1).equals("reset")) {
            throw new Usage("unknown trust command " + w.get(1) + " (reset)");
        }
        String stamp = Long.toString(System.currentTimeMillis());
        List<String> moved = new ArrayList<>();
        for (Path f : cx.settings().stateFiles()) {
            if (Files.exists(f)) {
                Path aside = f.resolveSibling(f.getFileName() + ".reset-" + stamp);
                try {
                    Files.move(f, aside, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot move " + f + " aside", e);
                }
                moved.add(f + " -> " + aside);
            }
        }
        if (moved.isEmpty()) {
            cx.out.println("nothing to reset: no trusted state at " + cx.settings().stateFiles());
        } else {
            moved.forEach(m -> cx.out.println("moved aside " + m));
            cx.out.println("the next command trusts the server as it is now (first use)");
        }
        return Exit.OK;
    }
}
