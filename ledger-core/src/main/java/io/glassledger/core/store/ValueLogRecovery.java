package io.glassledger.core.store;

import static io.glassledger.core.store.ValueLog.HEADER;
import static io.glassledger.core.store.ValueLog.HEADER_FRAME;
import static io.glassledger.core.store.ValueLog.MAGIC;
import static io.glassledger.core.store.ValueLog.RULES;
import static io.glassledger.core.store.ValueLog.SEAL;
import static io.glassledger.core.store.ValueLog.SEAL_FRAME;
import static io.glassledger.core.store.ValueLog.SYNC;
import static io.glassledger.core.store.ValueLog.VALUE;
import static io.glassledger.core.store.ValueLog.name;

import io.glassledger.verify.codec.ByteReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What {@link ValueLog#open} finds in a directory, and what it must do before appending (the recovery rule of
 * FORMAT.md §19.1 and of {@link ValueLog}'s class comment): checks every segment but the newest by its header and
 * seal, reads the newest whole, cuts a torn tail off it or removes it, and refuses damage a crash cannot leave.
 */
final class ValueLogRecovery {
    /**
     * Where appends resume.
     *
     * @param activeSeq    the segment appends go to
     * @param activeEnd    its size, where appends go on; -1: the segment is to be created
     * @param activeValues the values already in it
     */
    record Plan(long firstSeq, long sealedBytes, long activeSeq, long activeEnd, long activeValues,
            ValueLog.Recovery recovery) {
    }

    private ValueLogRecovery() {
    }

    static Plan recover(Path dir) throws IOException {
        List<Long> seqs = sequences(dir);
        for (int i = 0; i < seqs.size(); i++) {
            if (seqs.get(i) != seqs.get(0) + i) {
                throw new ValueLogCorruptedException(dir.resolve(name(seqs.get(0) + i)), 0,
                        "the segment is missing, and segments before and after it exist");
            }
        }
        if (seqs.isEmpty()) {
            return new Plan(1, 0, 1, -1, 0, new ValueLog.Recovery(0, 0, 0, 0, 0));
        }
        long sealed = 0;
        for (int i = 0; i < seqs.size() - 1; i++) {
            sealed += checkSealed(dir.resolve(name(seqs.get(i))), seqs.get(i));
        }
        return recoverNewest(dir, seqs, sealed);
    }

    /** Recovers the newest segment, {@code seqs}' last, the others checked already. */
    private static Plan recoverNewest(Path dir, List<Long> seqs, long sealed) throws IOException {
        long seq = seqs.get(seqs.size() - 1);
        Path p = dir.resolve(name(seq));
        FrameScan.Result r = FrameScan.scan(p, RULES);
        if (r.damaged() && r.nextValid() >= 0 && (r.frames().isEmpty() || syncedAfter(p, r.stop()))) {
            throw new ValueLogCorruptedException(p, r.stop(), r.damage() + ", and a valid "
                    + (r.frames().isEmpty() ? "frame" : "sync or seal frame") + " follows it (from offset "
                    + r.nextValid() + "), so a value acknowledged as durable may be in the damage");
        }
        if (r.frames().isEmpty()) {
            // Created, then the crash: no frame of it is whole, so no value in it was ever synced.
            Files.delete(p);
            ValueLog.forceDirectory(dir);
            return new Plan(seqs.get(0), sealed, seq, -1, 0, new ValueLog.Recovery(seqs.size() - 1, 0, 0, seq, seq));
        }
        checkHeader(p, r.frames().get(0), seq);
        long values = 0;
        boolean isSealed = false;
        for (FrameScan.Frame f : r.frames().subList(1, r.frames().size())) {
            if (isSealed || f.type() == HEADER) {
                throw new ValueLogCorruptedException(p, f.offset(), isSealed ? "a frame after the seal"
                        : "a second segment header");
            }
            if (f.type() == VALUE) {
                values++;
            } else if (f.type() == SEAL) {
                checkSeal(p, f, seq, values);
                isSealed = true;
            }
        }
        long torn = r.damaged() ? r.size() - r.stop() : 0;
        if (torn > 0) {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ch.truncate(r.stop());
                ch.force(true);
            }
        }
        if (isSealed) {
            // Crashed after sealing it and before its successor had a whole header: start the successor.
            return new Plan(seqs.get(0), sealed + r.stop(), seq + 1, -1, 0,
                    new ValueLog.Recovery(seqs.size(), values, torn, 0, seq + 1));
        }
        return new Plan(seqs.get(0), sealed, seq, r.stop(), values,
                new ValueLog.Recovery(seqs.size(), values, torn, 0, 0));
    }

    /**
     * Whether a sync or a seal frame decodes after the damage at {@code stop}: then values before it were acknowledged.
     * Value frames alone after the damage are values that no sync acknowledged (the pages of an unsynced write can
     * reach the disk in any order), and are cut off with the damage.
     */
    private static boolean syncedAfter(Path p, int stop) throws IOException {
        return FrameScan.salvage(Files.readAllBytes(p), stop + 1, RULES).stream()
                .anyMatch(f -> f.type() == SYNC || f.type() == SEAL || f.type() == HEADER);
    }

    private static List<Long> sequences(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("vlog-\\d{16}\\.seg"))
                    .map(n -> Long.parseLong(n.substring(5, 21))).sorted().toList();
        }
    }

    /** Checks a sealed segment's header and seal without reading what lies between; returns its size. */
    private static long checkSealed(Path p, long seq) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER_FRAME + SEAL_FRAME) {
                throw new ValueLogCorruptedException(p, 0, "a segment of " + size
                        + " bytes that is not the newest: too short to hold its header and its seal");
            }
            checkHeader(p, frameAt(p, ch, 0, HEADER_FRAME), seq);
            FrameScan.Frame seal = frameAt(p, ch, size - SEAL_FRAME, SEAL_FRAME);
            if (seal.type() != SEAL) {
                throw new ValueLogCorruptedException(p, size - SEAL_FRAME,
                        "a segment that is not the newest does not end with its seal");
            }
            checkSeal(p, seal, seq, -1);
            return size;
        }
    }

    /** Reads and checks the frame of exactly {@code n} bytes at {@code offset}. */
    private static FrameScan.Frame frameAt(Path p, FileChannel ch, long offset, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        ValueLog.readFully(ch, b, offset);
        byte[] data = b.array();
        if (b.position() < n) {
            throw new ValueLogCorruptedException(p, offset, "a frame cut short by the end of the file");
        }
        String problem = FrameScan.problem(data, 0, new CRC32C(), RULES);
        if (problem == null && b.getInt(0) != n - 8) {
            problem = "a frame of " + (b.getInt(0) + 8) + " bytes where one of " + n + " was expected";
        }
        if (problem != null) {
            throw new ValueLogCorruptedException(p, offset, problem);
        }
        byte[] payload = new byte[n - FrameScan.HEADER_BYTES];
        System.arraycopy(data, FrameScan.HEADER_BYTES, payload, 0, payload.length);
        return new FrameScan.Frame(offset, data[8] & 0xff, payload);
    }

    private static void checkHeader(Path p, FrameScan.Frame h, long seq) {
        byte[] b = h.payload();
        if (h.type() != HEADER || b.length != MAGIC.length + 8) {
            throw new ValueLogCorruptedException(p, 0, "the segment does not start with a header");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (b[i] != MAGIC[i]) {
                throw new ValueLogCorruptedException(p, 0, "the segment header is not a GlassLedger value log's");
            }
        }
        long named = new ByteReader(b, MAGIC.length, b.length).u64();
        if (named != seq) {
            throw new ValueLogCorruptedException(p, 0, "the header names segment " + named);
        }
    }

    private static void checkSeal(Path p, FrameScan.Frame f, long seq, long values) {
        if (f.payload().length != 16) {
            throw new ValueLogCorruptedException(p, f.offset(), "a seal of " + f.payload().length + " bytes");
        }
        ByteReader r = new ByteReader(f.payload());
        long named = r.u64();
        long count = r.u64();
        if (named != seq || (values >= 0 && count != values)) {
            throw new ValueLogCorruptedException(p, f.offset(), "the seal names segment " + named + " and " + count
                    + " values");
        }
    }
}
