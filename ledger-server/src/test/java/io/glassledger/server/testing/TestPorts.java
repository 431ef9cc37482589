package io.glassledger.server.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Ports for servers that tests start as processes, which no other test JVM on this machine and no outgoing
 * connection can be handed at the same time.
 *
 * <p>Why not port 0: a single server can bind port 0 and log its URL (TransferExampleIT does), but the members of a
 * cluster must know each other's Raft and directory ports before any of them starts, and the launcher ({@code
 * ./glassledger cluster start --port P}) derives every member's ports from P. So the ports are chosen first, and
 * made safe to choose:
 * <ul>
 *   <li><b>Outside the kernel's ephemeral range</b> ({@code /proc/sys/net/ipv4/ip_local_port_range}, 32768-60999
 *       when unreadable): the kernel never gives one of them to an outgoing connection's local end, which is what
 *       took a port between a check and the server's bind ("Port 34414 was already in use").</li>
 *   <li><b>Reserved against other test JVMs</b>: a block is taken under an exclusive lock on a file of its own in
 *       {@code <java.io.tmpdir>/glassledger-test-ports/}, held until this JVM exits (the operating system releases
 *       it even after SIGKILL). Two test processes that both use this class never get the same block.</li>
 *   <li><b>Checked free</b>: every port of the block binds on loopback, so that a port some other program listens
 *       on is passed over.</li>
 *   <li><b>From 10000 up</b>: the benchmark and tools/schemathesis, which .ci/run runs in its other lane while the
 *       tests run, pick theirs below 10000.</li>
 * </ul>
 *
 * <p>A block is the launcher's layout: {@link #LAYERS} layers {@link #LAYER} ports apart (a member's HTTPS, Raft,
 * directory and management ports, and one more for a test's own helper such as a proxy's API), each
 * {@link #WIDTH} ports wide. Blocks of one region interleave: region R holds 20 bases {@code R, R + 50, ...,
 * R + 950}, each with its layers at {@code + 1000 k}.
 */
public final class TestPorts {
    /** The spacing of the launcher's port layers (Raft at P + 1000, directory at + 2000, management at + 3000). */
    public static final int LAYER = 1_000;
    /** Layers per block: the launcher's four and one for the test's own use (P + 4000). */
    public static final int LAYERS = 5;
    /** Ports per layer: members of one cluster, or single ports of one call. */
    public static final int WIDTH = 50;
    private static final int LOWEST = 10_000;
    private static final int REGION = LAYER * LAYERS;
    private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "glassledger-test-ports");
    /** The locks this JVM holds, open until it exits: closing a channel would release its lock. */
    private static final List<FileChannel> HELD = new ArrayList<>();
    private static final Set<Integer> TAKEN = new HashSet<>();

    private TestPorts() {
    }

    /**
     * Reserves a block for this JVM's life and returns its base P: ports {@code P + LAYER * k + i} for every layer
     * {@code k < LAYERS} and {@code i < width} are outside the ephemeral range, free when checked, and handed to no
     * other caller of this class on this machine.
     *
     * @throws IllegalStateException when every block is taken or busy
     */
    public static synchronized int block(int width) {
        if (width < 1 || width > WIDTH) {
            throw new IllegalArgumentException("a block is 1 to " + WIDTH + " ports wide, not " + width);
        }
        List<Integer> bases = bases(ephemeralRange());
        if (bases.isEmpty()) {
            throw new IllegalStateException("no port range of " + REGION + " outside the kernel's ephemeral range "
                    + ephemeralRange()[0] + "-" + ephemeralRange()[1]);
        }
        try {
            Files.createDirectories(LOCKS);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make " + LOCKS, e);
        }
        // Each JVM starts its search elsewhere, so that concurrent test JVMs rarely contend for the same lock.
        int start = (int) (ProcessHandle.current().pid() % bases.size());
        for (int n = 0; n < bases.size(); n++) {
            int base = bases.get((start + n) % bases.size());
            if (!TAKEN.contains(base) && reserve(base, width)) {
                TAKEN.add(base);
                return base;
            }
        }
        throw new IllegalStateException("every one of the " + bases.size() + " port blocks is reserved by another "
                + "test JVM or has a port in use (locks in " + LOCKS + ")");
    }

    /** {@code n} reserved ports, consecutive (one block's first layer). */
    public static List<Integer> ports(int n) {
        int base = block(n);
        return IntStream.range(base, base + n).boxed().toList();
    }

    /** One reserved port. */
    public static int port() {
        return block(1);
    }

    /** Whether {@code port} can be bound on loopback now. */
    public static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static boolean reserve(int base, int width) {
        FileChannel ch = null;
        try {
            ch = FileChannel.open(LOCKS.resolve(base + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = ch.tryLock();
            if (lock != null && allFree(base, width)) {
                HELD.add(ch);
                return true;
            }
        } catch (IOException | OverlappingFileLockException e) {
            // another user's lock file, or a lock of this JVM's: not this block
        }
        if (ch != null) {
            try {
                ch.close();  // releases the lock, if taken
            } catch (IOException e) {
                // nothing held
            }
        }
        return false;
    }

    private static boolean allFree(int base, int width) {
        for (int k = 0; k < LAYERS; k++) {
            for (int i = 0; i < width; i++) {
                if (!free(base + LAYER * k + i)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Every block base whose region lies wholly outside {@code [ephemeral[0], ephemeral[1]]}, at most 65535. */
    static List<Integer> bases(int[] ephemeral) {
        List<Integer> out = new ArrayList<>();
        for (int region = LOWEST; region + REGION - 1 <= 65_535; region += REGION) {
            int last = region + REGION - 1;
            if (last < ephemeral[0] || region > ephemeral[1]) {
                for (int b = region; b < region + LAYER; b += WIDTH) {
                    out.add(b);
                }
            }
        }
        return out;
    }

    /** The kernel's ephemeral port range, or Linux's default when it cannot be read. */
    static int[] ephemeralRange() {
        try {
            String[] f = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return new int[] {Integer.parseInt(f[0]), Integer.parseInt(f[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32_768, 60_999};
        }
    }
}
