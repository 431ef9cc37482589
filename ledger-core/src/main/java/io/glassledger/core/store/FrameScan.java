package io.glassledger.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The frame format that the engine's write-ahead log (FORMAT.md §15.1) and the {@link ValueLog} (§19) share, and a
 * reader of one file of frames that does not judge it: the frames that decode in order from offset 0, where that
 * run stops, and whether a valid frame lies anywhere after the stop. The logs decide what damage means; this class
 * never writes a file.
 *
 * <pre>
 * frame = u32 len ‖ u32 crc32c(type ‖ payload) ‖ u8 type ‖ payload        len = 1 + len(payload), big-endian
 * </pre>
 *
 * <p>The search for a valid frame after damage (resynchronisation) cannot trust the damaged length, so it tries
 * every later offset. A candidate is a valid frame when its length is 1..{@link Rules#maxRecord()} and fits in the
 * file, its type byte is at most {@link Rules#maxType()}, the bytes right after it are the end of the file, fewer
 * than 9 bytes, a zero length (zero-filled space) or another plausible frame header, and its CRC-32C matches. The
 * cheap checks come first, so random bytes reach the checksum about once in 4 million offsets; the search is bounded
 * by the file size, each checksum by the file size too. A false match in garbage has odds of 2<sup>-32</sup> per
 * checksum and only ever errs towards refusing to start.
 */
public final class FrameScan {
    /** A frame's header: length, checksum, type. */
    public static final int HEADER_BYTES = 9;

    /**
     * What one log allows.
     *
     * @param maxRecord the largest {@code len} (type byte and payload)
     * @param maxType   the largest type byte
     */
    public record Rules(int maxRecord, int maxType) {
        public Rules {
            if (maxRecord < 1 || maxType < 0 || maxType > 255) {
                throw new IllegalArgumentException("frame rules " + maxRecord + ", " + maxType);
            }
        }
    }

    /** A frame that decoded, at its offset in the file. */
    public record Frame(long offset, int type, byte[] payload) {
        /** The offset right after the frame. */
        public long end() {
            return offset + HEADER_BYTES + payload.length;
        }
    }

    /**
     * One file as read.
     *
     * @param frames    the frames that decode in order from offset 0
     * @param stop      the offset where that run stops: the file size if the whole file decoded
     * @param damage    why the frame at {@code stop} does not decode; null if it is the end of the file
     * @param nextValid the offset of the first valid frame after {@code stop}, or -1 if there is none
     */
    public record Result(Path path, int size, List<Frame> frames, int stop, String damage, int nextValid) {
        public boolean damaged() {
            return damage != null;
        }
    }

    private FrameScan() {
    }

    /** Appends one frame to {@code buf}, which must have {@link #HEADER_BYTES} + {@code payload.length} left. */
    public static void put(ByteBuffer buf, int type, byte[] payload, CRC32C crc) {
        crc.reset();
        crc.update(type);
        crc.update(payload);
        buf.putInt(1 + payload.length).putInt((int) crc.getValue()).put((byte) type).put(payload);
    }

    public static Result scan(Path p, Rules rules) throws IOException {
        byte[] data = Files.readAllBytes(p);
        List<Frame> frames = new ArrayList<>();
        CRC32C crc = new CRC32C();
        int pos = 0;
        String damage = null;
        while (pos < data.length) {
            damage = problem(data, pos, crc, rules);
            if (damage != null) {
                break;
            }
            frames.add(decode(data, pos));
            pos += 8 + length(data, pos);
        }
        int next = damage == null ? -1 : findValid(data, pos + 1, crc, rules);
        return new Result(p, data.length, List.copyOf(frames), pos, damage, next);
    }

    /** The frames that decode from {@code from} on, resynchronising past any damage (for a repair's report). */
    public static List<Frame> salvage(byte[] data, int from, Rules rules) {
        List<Frame> out = new ArrayList<>();
        CRC32C crc = new CRC32C();
        int pos = from;
        while (pos >= 0 && pos < data.length) {
            if (problem(data, pos, crc, rules) == null) {
                out.add(decode(data, pos));
                pos += 8 + length(data, pos);
            } else {
                pos = findValid(data, pos + 1, crc, rules);
            }
        }
        return out;
    }

    /** Why no valid frame starts at {@code pos}; null if one does. */
    public static String problem(byte[] data, int pos, CRC32C crc, Rules rules) {
        int left = data.length - pos;
        if (left < HEADER_BYTES) {
            return "a frame header cut short (" + left + " bytes before the end of the file)";
        }
        int len = length(data, pos);
        if (len < 1 || len > rules.maxRecord()) {
            return "an impossible frame length " + Integer.toUnsignedString(len);
        }
        if (len > left - 8) {
            return "a frame of " + len + " bytes cut short by the end of the file";
        }
        crc.reset();
        crc.update(data, pos + 8, len);
        if ((int) crc.getValue() != ByteBuffer.wrap(data, pos + 4, 4).getInt()) {
            return "a frame of " + len + " bytes whose checksum does not match";
        }
        return null;
    }

    /** The offset of the first valid frame at or after {@code from}, or -1 (see the class comment). */
    static int findValid(byte[] data, int from, CRC32C crc, Rules rules) {
        for (int pos = Math.max(from, 0); pos <= data.length - HEADER_BYTES; pos++) {
            if (!plausibleHeader(data, pos, rules)) {
                continue;
            }
            int after = pos + 8 + length(data, pos);
            if (after != data.length && data.length - after >= HEADER_BYTES && length(data, after) != 0
                    && !plausibleHeader(data, after, rules)) {
                continue;
            }
            if (problem(data, pos, crc, rules) == null) {
                return pos;
            }
        }
        return -1;
    }

    /** A length in range that fits in the file and a known type. */
    private static boolean plausibleHeader(byte[] data, int pos, Rules rules) {
        int len = length(data, pos);
        return len >= 1 && len <= rules.maxRecord() && len <= data.length - pos - 8
                && (data[pos + 8] & 0xff) <= rules.maxType();
    }

    private static int length(byte[] data, int pos) {
        return ByteBuffer.wrap(data, pos, 4).getInt();
    }

    private static Frame decode(byte[] data, int pos) {
        int len = length(data, pos);
        byte[] payload = new byte[len - 1];
        System.arraycopy(data, pos + 9, payload, 0, len - 1);
        return new Frame(pos, data[pos + 8] & 0xff, payload);
    }
}
