package io.glassledger.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Secret files (server and auditor signing keys, API key hashes, first-start credentials, TLS key stores), written
 * so that no one but the owner can read them at any moment and a crash leaves either the old file or the new one:
 * <ol>
 *   <li>a new temporary file with a random name in the target's directory, created exclusively ({@code CREATE_NEW},
 *       so a file or symbolic link planted there is never written through) with mode 0600 <em>at creation</em>
 *       (never the process umask first and {@code chmod} afterwards);</li>
 *   <li>the content written and forced to disk ({@code fsync});</li>
 *   <li>renamed over the target atomically;</li>
 *   <li>the directory forced, so that the rename itself survives a crash (skipped where the platform cannot open a
 *       directory, as on Windows).</li>
 * </ol>
 * On a file system without POSIX permissions the directory's access control applies.
 */
public final class PrivateFiles {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    /** Called with the temporary file right after it is created and before any content is written (tests). */
    @FunctionalInterface
    public interface CreationHook {
        void created(Path temporary) throws IOException;
    }

    private PrivateFiles() {
    }

    public static void write(Path target, String content) throws IOException {
        write(target, content.getBytes(StandardCharsets.UTF_8));
    }

    public static void write(Path target, byte[] content) throws IOException {
        write(target, content, t -> { });
    }

    /** {@link #write(Path, byte[])} with {@code hook} told of the temporary file as soon as it exists. */
    public static void write(Path target, byte[] content, CreationHook hook) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = posix(dir)
                ? Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp", ownerOnly())
                : Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            hook.created(tmp);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(content);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically", e);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        syncDirectory(dir);
    }

    /** Forces a directory's entries to disk (a rename or a new file in it); a no-op where that is not possible. */
    public static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // Windows cannot open a directory; some file systems refuse fsync on one. Nothing more can be done there.
        }
    }

    /** The owner-only permissions as a creation attribute, for callers that create secret files themselves. */
    public static FileAttribute<Set<PosixFilePermission>> ownerOnly() {
        return PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    }

    private static boolean posix(Path dir) {
        return dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
