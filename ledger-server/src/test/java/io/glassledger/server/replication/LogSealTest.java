package io.glassledger.server.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.SigningKey;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The origin seal on a shard's log entries (FORMAT.md §15.5). */
class LogSealTest {
    private static final long SEED = System.nanoTime();
    private final SigningKey key = SigningKey.generate();
    private final LogSeal seal = LogSeal.of(key, 0);

    @Test
    void open_ofSeal_givesTheEntry() {
        System.out.println("LogSealTest seed " + SEED);
        SplittableRandom r = new SplittableRandom(SEED);
        for (int n : new int[] {0, 1, 17, 1000}) {
            byte[] entry = new byte[n];
            r.nextBytes(entry);
            byte[] sealed = seal.seal(entry);
            assertEquals(LogSeal.SEALED, sealed[0]);
            assertEquals(1 + 32 + n, sealed.length);
            assertArrayEquals(entry, seal.open(sealed));
        }
    }

    @Test
    void open_everyFlippedBit_throws() {
        byte[] sealed = seal.seal(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0});
        for (int bit = 0; bit < sealed.length * 8; bit++) {
            byte[] t = sealed.clone();
            t[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThrows(MalformedException.class, () -> seal.open(t), "bit " + bit);
        }
    }

    @Test
    void open_anotherShardsOrAnotherKeysSeal_throws() {
        byte[] entry = {1, 2, 3, 4};
        assertThrows(MalformedException.class, () -> seal.open(LogSeal.of(key, 1).seal(entry)));
        assertThrows(MalformedException.class, () -> seal.open(LogSeal.of(SigningKey.generate(), 0).seal(entry)));
        assertArrayEquals(entry, seal.open(LogSeal.of(SigningKey.fromSeed(key.seed()), 0).seal(entry)),
                "every replica derives the same key from the shard's shared signing key");
    }

    @Test
    void open_truncatedOrUnsealed_throws() {
        byte[] sealed = seal.seal(new byte[] {1, 2, 3});
        for (int n = 0; n < sealed.length; n++) {
            byte[] cut = Arrays.copyOf(sealed, n);
            assertThrows(MalformedException.class, () -> seal.open(cut), "cut at " + n);
        }
        // An 8-byte entry with no seal at all (issue 30's attack), and an engine entry (version 1) without its seal.
        assertThrows(MalformedException.class, () -> seal.open(new byte[] {(byte) 222, 0, 0, 0, 0, 0, 0, 0}));
        assertThrows(MalformedException.class, () -> seal.open(new byte[40]));
    }
}
