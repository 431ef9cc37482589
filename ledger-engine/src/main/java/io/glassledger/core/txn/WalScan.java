package io.glassledger.core.txn;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads one WAL segment (FORMAT.md §15.1) without judging it: the frames that decode in order from offset 0, where
 * that run stops, and whether a valid frame lies anywhere after the stop. {@link Wal#open} and {@link WalRepair}
 * decide what the damage means; this class never writes.
 *
 * <p>The search for a valid frame after damage (resynchronisation) cannot trust the damaged length, so it tries
 * every later offset. A candidate is a valid frame when its length is 1..{@link Wal#MAX_RECORD} and fits in the
 * file, its type byte is a known type, the bytes right after it are the end of the file, fewer than 9 bytes, a zero
 * length (zero-filled space) or another plausible frame header, and its CRC-32C matches. The cheap checks come
 * first, so random bytes reach the checksum about once in 4 million offsets; the search is bounded by the file
 * size, each checksum by the file size too. A false match in garbage has odds of 2<sup>-32</sup> per checksum and
 * only ever errs towards refusing to start.
 */
final class WalScan {
    /** A frame that decoded, at its offset in the segment. */
    record Frame(long offset, int type, byte[] payload) {
        long end() {
            return offset + 9 + payload.length;
        }
    }

    /**
     * One segment as read.
     *
     * @param frames    the frames that decode in order from offset 0
     * @param stop      the offset where that run stops: the file size if the whole file decoded
     * @param damage    why the frame at {@code stop} does not decode; null if it is the end of the file
     * @param nextValid the offset of the first valid frame after {@code stop}, or -1 if there is none
     */
    record Result(Path path, int size, List<Frame> frames, int stop, String damage, int nextValid) {
        boolean damaged() {
            return damage != null;
        }
    }

    private WalScan() {
    }

    static Result scan(Path p) throws IOException {
        byte[] data = Files.readAllBytes(p);
        List<Frame> frames = new ArrayList<>();
        CRC32C crc = new CRC32C();
        int pos = 0;
        String damage = null;
        while (pos < data.length) {
            damage = problem(data, pos, crc);
            if (damage != null) {
                break;
            }
            frames.add(decode(data, pos));
            pos += 8 + length(data, pos);
        }
        int next = damage == null ? -1 : findValid(data, pos + 1, crc);
        return new Result(p, data.length, List.copyOf(frames), pos, damage, next);
    }

    /** The frames that decode from {@code from} on, resynchronising past any damage (for the repair's report). */
    static List<Frame> salvage(byte[] data, int from) {
        List<Frame> out = new ArrayList<>();
        CRC32C crc = new CRC32C();
        int pos = from;
        while (pos >= 0 && pos < data.length) {
            if (problem(data, pos, crc) == null) {
                out.add(decode(data, pos));
                pos += 8 + length(data, pos);
            } else {
                pos = findValid(data, pos + 1, crc);
            }
        }
        return out;
    }

    /** Why no valid frame starts at {@code pos}; null if one does. */
    static String problem(byte[] data, int pos, CRC32C crc) {
        int left = data.length - pos;
        if (left < 9) {
            return "a frame header cut short (" + left + " bytes before the end of the file)";
        }
        int len = length(data, pos);
        if (len < 1 || len > Wal.MAX_RECORD) {
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
    static int findValid(byte[] data, int from, CRC32C crc) {
        for (int pos = Math.max(from, 0); pos <= data.length - 9; pos++) {
            if (!plausibleHeader(data, pos)) {
                continue;
            }
            int after = pos + 8 + length(data, pos);
            if (after != data.length && data.length - after >= 9 && length(data, after) != 0
                    && !plausibleHeader(data, after)) {
                continue;
            }
            if (problem(data, pos, crc) == null) {
                return pos;
            }
        }
        return -1;
    }

    /** A length in range that fits in the file and a known type. */
    private static boolean plausibleHeader(byte[] data, int pos) {
        int len = length(data, pos);
        return len >= 1 && len <= Wal.MAX_RECORD && len <= data.length - pos - 8
                && (data[pos + 8] & 0xff) <= Wal.MAX_TYPE;
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
