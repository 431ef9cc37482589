package io.glassledger.core.store;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;

/**
 * Where a {@link ValueLog} holds one value: the segment's sequence number, the offset of the value's frame in that
 * segment, and the value's length. Storage only, never hashed or signed: two replicas' logs place the same value
 * differently. Encoded (FORMAT.md §19) as {@code varint segment ‖ varint offset ‖ varint length}, 6–9 bytes for
 * segments of 64 MiB and values under 16 KiB.
 */
public record ValueLocator(long segment, int offset, int length) {
    public ValueLocator {
        if (segment < 1 || offset < 0 || length < 0) {
            throw new IllegalArgumentException("locator " + segment + "/" + offset + "/" + length);
        }
    }

    /** The offset right after the value's frame. */
    public long end() {
        return (long) offset + FrameScan.HEADER_BYTES + length;
    }

    public ByteWriter encode(ByteWriter w) {
        return w.varint(segment).varint(offset).varint(length);
    }

    public int encodedSize() {
        return ByteWriter.varintSize(segment) + ByteWriter.varintSize(offset) + ByteWriter.varintSize(length);
    }

    /** Reads one locator; malformed input throws {@link MalformedException}. */
    public static ValueLocator decode(ByteReader r) {
        long segment = r.varint();
        int offset = r.varint(Integer.MAX_VALUE);
        int length = r.varint(ValueLog.MAX_VALUE_BYTES);
        if (segment < 1) {
            throw new MalformedException("a locator names segment " + segment);
        }
        return new ValueLocator(segment, offset, length);
    }
}
