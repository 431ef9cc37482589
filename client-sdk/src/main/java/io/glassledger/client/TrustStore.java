package io.glassledger.client;

import io.glassledger.core.proof.AppendOnlyProof;
import io.glassledger.core.proof.Digest;
import io.glassledger.core.proof.ProofVerifier;
import io.glassledger.core.proof.SignedHead;
import io.glassledger.core.proof.VerificationException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The only place trust changes. The trusted digest moves forward only, and only after an append-only proof from
 * the current one verified; a different digest at the trusted block is a fork. With a state file, each advance is
 * written before it takes effect: a temporary file in the same directory, fsync, atomic rename, fsync of the
 * directory (see {@link TrustedState} for the format).
 *
 * <p>Several processes may share one state file (the CLI does). Writes hold an exclusive lock on
 * {@code <file>.lock} and re-read the file first: a file already at a newer block is left alone (this process keeps
 * its own, older trust in memory, and trust on disk never moves back), and one at the same block with another hash,
 * or naming another server key, is a violation. Thread-safe.
 */
final class TrustStore {
    /** What {@link #offer} did with a digest. */
    enum Offer {
        /** Trust moved to the digest. */
        ADVANCED,
        /** The digest is the trusted one. */
        SAME,
        /** The digest is older than the trusted one: trust unchanged; linking it needs a proof from it to trust. */
        OLDER,
        /** The digest is newer, but the proof given does not start at the trusted digest (or there is none). */
        NEEDS_LINK
    }

    // File locks belong to the JVM, not to a thread: two stores on one file in one JVM serialize here first.
    private static final ConcurrentHashMap<Path, Object> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Path file;
    private volatile TrustedState state;

    private TrustStore(Path file, TrustedState state) {
        this.file = file == null ? null : file.toAbsolutePath().normalize();
        this.state = state;
    }

    /** A store over {@code file} (null: in memory only), loaded if the file exists. */
    static TrustStore open(Path file) {
        if (file == null || !Files.exists(file)) {
            return new TrustStore(file, null);
        }
        try {
            return new TrustStore(file, TrustedState.load(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read state file " + file, e);
        }
    }

    /** Null until {@link #initialize}. */
    TrustedState current() {
        return state;
    }

    Path file() {
        return file;
    }

    /** First trust (trust on first use). */
    synchronized TrustedState initialize(TrustedState first) {
        if (state != null) {
            throw new IllegalStateException("trust is already initialized");
        }
        persist(first);
        state = first;
        return first;
    }

    /**
     * Offers a digest the client was shown, with an append-only proof from the trusted digest when it is newer, and
     * the signed head that named it if any (already verified against the pinned key).
     *
     * @throws IntegrityViolation for a fork: another digest at the trusted block, or a proof that does not verify
     */
    synchronized Offer offer(Digest d, AppendOnlyProof fromTrusted, SignedHead head) {
        TrustedState cur = requireState();
        long tb = cur.digest().blockNo();
        if (d.blockNo() < tb) {
            return Offer.OLDER;
        }
        if (d.blockNo() == tb) {
            if (!d.equals(cur.digest())) {
                throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK,
                                "two different digests for block " + tb)
                        .trust(cur).serverDigest(d).serverHead(head).build();
            }
            if (head != null && head.digest().equals(d)
                    && (cur.signedHead() == null || cur.signedHead().digest().blockNo() < tb)) {
                TrustedState next = cur.advancedTo(d, head);
                persist(next);
                state = next;
            }
            return Offer.SAME;
        }
        if (fromTrusted == null || fromTrusted.b1() != tb || fromTrusted.b2() != d.blockNo()) {
            return Offer.NEEDS_LINK;
        }
        try {
            ProofVerifier.verifyAppendOnly(cur.digest(), d, fromTrusted);
        } catch (VerificationException e) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "digest " + d
                            + " is not an append-only extension of the trusted digest: " + e.getMessage())
                    .trust(cur).serverDigest(d).serverHead(head).appendOnlyProof(fromTrusted.encode()).cause(e)
                    .build();
        }
        TrustedState next = cur.advancedTo(d, head);
        persist(next);
        state = next;
        return Offer.ADVANCED;
    }

    private TrustedState requireState() {
        TrustedState s = state;
        if (s == null) {
            throw new IllegalStateException("no trusted digest yet");
        }
        return s;
    }

    private void persist(TrustedState next) {
        if (file == null) {
            return;
        }
        synchronized (JVM_LOCKS.computeIfAbsent(file, f -> new Object())) {
            try {
                Path dir = file.getParent();
                Files.createDirectories(dir);
                Path lockFile = dir.resolve(file.getFileName() + ".lock");
                try (FileChannel lc = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                     FileLock ignored = lc.lock()) {
                    if (Files.exists(file) && !supersedes(next, TrustedState.load(file))) {
                        return;
                    }
                    writeAtomically(dir, next.toJson(System.currentTimeMillis()));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write state file " + file, e);
            }
        }
    }

    /** Whether {@code next} may replace what is on disk; throws when the two cannot both be true. */
    private static boolean supersedes(TrustedState next, TrustedState onDisk) {
        if (!onDisk.serverKey().equals(next.serverKey()) || onDisk.shard() != next.shard()) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.SERVER_IDENTITY,
                            "the state file pins server key " + onDisk.serverKey().hex() + " of shard " + onDisk.shard()
                                    + ", this client was given " + next.serverKey().hex() + " of shard "
                                    + next.shard())
                    .trust(onDisk).serverHead(next.signedHead()).serverDigest(next.digest()).build();
        }
        long db = onDisk.digest().blockNo();
        long nb = next.digest().blockNo();
        if (db == nb && !onDisk.digest().equals(next.digest())) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK,
                            "the state file trusts another digest for block " + nb)
                    .trust(onDisk).serverDigest(next.digest()).serverHead(next.signedHead()).build();
        }
        if (db > nb) {
            return false;
        }
        // Same digest: rewrite only to record a signed head the file lacks.
        return db < nb || next.signedHead() != null && (onDisk.signedHead() == null
                || onDisk.signedHead().digest().blockNo() < next.signedHead().digest().blockNo());
    }

    private void writeAtomically(Path dir, byte[] json) throws IOException {
        Path tmp = Files.createTempFile(dir, file.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(json);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Some platforms cannot open or sync a directory; the rename itself is still atomic there.
        }
    }
}
