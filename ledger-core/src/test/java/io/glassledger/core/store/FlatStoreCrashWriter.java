package io.glassledger.core.store;

import java.nio.file.Path;

/**
 * The child process of {@link FlatStoreCrashTest}: opens a syncing {@link FlatStore} and writes the blocks of
 * {@link FlatStoreModel#block} after its head until it is killed, or for at most 60 seconds and 100,000 blocks.
 *
 * <p>Protocol on stdout: {@code open <head>}, then the number of every block whose write has returned (durable).
 *
 * <p>Usage: {@code FlatStoreCrashWriter <dir> <seed>}
 */
public final class FlatStoreCrashWriter {
    private FlatStoreCrashWriter() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (FlatStore store = FlatStore.open(dir, 1 << 20, true)) {
            System.out.println("open " + store.head());
            System.out.flush();
            for (long b = store.head() + 1, end = b + 100_000; b < end && System.nanoTime() < deadline; b++) {
                store.write(b, FlatStoreModel.block(seed, b));
                System.out.println(b);
                System.out.flush();
            }
        }
    }
}
