package io.glassledger.client;

import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
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
 * <p>Several processes may share one state file (the CLI does), and each may have been shown a different branch of
 * a forked history. Writes hold an exclusive lock on {@code <file>.lock} and re-read the file first. A file naming
 * another server key, or another digest at the same block, is a violation. A file at another block is linked to the
 * process's digest with an append-only proof from the older of the two to the newer, fetched from the server
 * ({@link Linker}) and verified; one that does not verify (or a server that cannot give it) is a
 * {@link IntegrityViolation.Kind#FORK}, and neither trust moves. Once linked, the newer one wins: a file ahead of the
 * process is left as it is and becomes the process's trust too (trust on disk and in memory never moves back); a
 * file behind is overwritten. Thread-safe.
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

    /** Fetches an append-only proof between two blocks from the server (blocking); see {@link TrustKeeper}. */
    @FunctionalInterface
    interface Linker {
        /**
         * @throws IntegrityViolation  if the server denies a block or answers a proof that does not decode
         * @throws GlassLedgerException if it cannot be asked
         */
        AppendOnlyProof prove(long from, long to);
    }

    // File locks belong to the JVM, not to a thread: two stores on one file in one JVM serialize here first.
    private static final ConcurrentHashMap<Path, Object> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Path file;
    private volatile TrustedState state;
    private volatile Linker linker;
    /**
     * The bytes this store last wrote to the file and the trust they hold (guarded by the file's JVM lock): a file
     * that still holds exactly these bytes need not be parsed again (the parse was a fifth of the cost of an advance
     * in benchmark/run peers); any other content is parsed and checked as before.
     */
    private byte[] lastBytes;
    private TrustedState lastWritten;
    private boolean dirCreated;

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

    /** How to link this process's trust to a state file another process moved (without it, such a file is a fork). */
    void linkWith(Linker l) {
        linker = l;
    }

    /** First trust (trust on first use). */
    synchronized TrustedState initialize(TrustedState first) {
        if (state != null) {
            throw new IllegalStateException("trust is already initialized");
        }
        state = persist(first, null);
        return state;
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
                state = persist(cur.advancedTo(d, head), cur);
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
        state = persist(cur.advancedTo(d, head), cur);
        return Offer.ADVANCED;
    }

    private TrustedState requireState() {
        TrustedState s = state;
        if (s == null) {
            throw new IllegalStateException("no trusted digest yet");
        }
        return s;
    }

    /**
     * Writes {@code next} unless the file already holds a newer trust that extends it.
     *
     * @param prev the trust {@code next} was verified to extend (null: none); a file still at it needs no link
     * @return the trust now in force: {@code next}, or the file's when it is ahead and linked
     */
    private TrustedState persist(TrustedState next, TrustedState prev) {
        if (file == null) {
            return next;
        }
        synchronized (JVM_LOCKS.computeIfAbsent(file, f -> new Object())) {
            try {
                Path dir = file.getParent();
                if (!dirCreated) {
                    Files.createDirectories(dir);
                    dirCreated = true;
                }
                Path lockFile = dir.resolve(file.getFileName() + ".lock");
                try (FileChannel lc = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                     FileLock ignored = lc.lock()) {
                    if (Files.exists(file)) {
                        byte[] bytes = Files.readAllBytes(file);
                        TrustedState onDisk = java.util.Arrays.equals(bytes, lastBytes) ? lastWritten
                                : TrustedState.fromJson(bytes);
                        if (prev == null || !onDisk.digest().equals(prev.digest())) {
                            checkSameChain(next, onDisk);
                        }
                        if (onDisk.digest().blockNo() > next.digest().blockNo()) {
                            return onDisk;
                        }
                        if (!supersedes(next, onDisk)) {
                            return next;
                        }
                    }
                    byte[] json = next.toJson(System.currentTimeMillis());
                    lastBytes = null;
                    writeAtomically(dir, json);
                    lastBytes = json;
                    lastWritten = next;
                    return next;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write state file " + file, e);
            }
        }
    }

    /**
     * Throws unless the file's trust and {@code next} lie on one history: the same server, and, at different blocks,
     * an append-only proof from the older to the newer that verifies.
     */
    private void checkSameChain(TrustedState next, TrustedState onDisk) {
        if (!onDisk.serverKey().equals(next.serverKey()) || onDisk.shard() != next.shard()) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.SERVER_IDENTITY,
                            "the state file pins server key " + onDisk.serverKey().hex() + " of shard " + onDisk.shard()
                                    + ", this client was given " + next.serverKey().hex() + " of shard "
                                    + next.shard())
                    .trust(onDisk).serverHead(next.signedHead()).serverDigest(next.digest()).build();
        }
        Digest mine = next.digest();
        Digest theirs = onDisk.digest();
        if (mine.blockNo() == theirs.blockNo()) {
            if (!mine.equals(theirs)) {
                throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK,
                                "the state file trusts another digest for block " + mine.blockNo())
                        .trust(onDisk).serverDigest(mine).serverHead(next.signedHead()).build();
            }
            return;
        }
        Digest older = mine.blockNo() < theirs.blockNo() ? mine : theirs;
        Digest newer = older == mine ? theirs : mine;
        Linker l = linker;
        if (l == null) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "the state file trusts " + theirs
                            + ", this process " + mine + ", and there is no server to link them")
                    .trust(onDisk).serverDigest(mine).serverHead(next.signedHead()).build();
        }
        AppendOnlyProof p;
        try {
            p = l.prove(older.blockNo(), newer.blockNo());
        } catch (IntegrityViolation v) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "the state file trusts " + theirs
                            + ", this process " + mine + ", and the server cannot link them: " + v.getMessage())
                    .trust(onDisk).serverDigest(mine).serverHead(next.signedHead()).cause(v).build();
        }
        try {
            ProofVerifier.verifyAppendOnly(older, newer, p);
        } catch (VerificationException e) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "the state file trusts " + theirs
                            + ", this process " + mine + ", and " + older + " is not a prefix of " + newer + ": "
                            + e.getMessage())
                    .trust(onDisk).serverDigest(mine).serverHead(next.signedHead()).appendOnlyProof(p.encode())
                    .cause(e).build();
        }
    }

    /** Whether {@code next} (on the file's chain, not older) may replace what is on disk. */
    private static boolean supersedes(TrustedState next, TrustedState onDisk) {
        if (onDisk.digest().blockNo() < next.digest().blockNo()) {
            return true;
        }
        // Same digest: rewrite only to record a signed head the file lacks.
        return next.signedHead() != null && (onDisk.signedHead() == null
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
