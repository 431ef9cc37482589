package io.glassledger.server.directory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.SigningKey;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The cluster directory's entries: one encoding, sealed with the peer key, and nothing else accepted. */
class DirectoryEntryTest {
    private static final String PEER_KEY = "peer-key-of-the-cluster";

    private static DirectoryEntry sample() {
        return DirectoryEntry.of(false, List.of(
                new DirectoryEntry.ApiKey("ab".repeat(32), "alice", "client"),
                new DirectoryEntry.Revoke("0123456789abcdef"),
                new DirectoryEntry.ClientKey("alice", SigningKey.generate().publicKey()),
                new DirectoryEntry.ShardReplicas(3, List.of("https://127.0.0.1:9446", "https://127.0.0.1:9447"))));
    }

    @Test
    void roundTrips() {
        DirectoryEntry e = sample();
        assertThat(DirectoryEntry.decode(e.encode(PEER_KEY), PEER_KEY)).isEqualTo(e);
        DirectoryEntry seed = DirectoryEntry.of(true, List.of());
        assertThat(DirectoryEntry.decode(seed.encode(PEER_KEY), PEER_KEY)).isEqualTo(seed);
    }

    @Test
    void everyFlippedByteIsRefused() {
        byte[] good = sample().encode(PEER_KEY);
        for (int i = 0; i < good.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = good.clone();
                bad[i] ^= (byte) (1 << bit);
                int at = i;
                assertThatThrownBy(() -> DirectoryEntry.decode(bad, PEER_KEY)).as("byte %d bit %d", at, bit)
                        .isInstanceOf(MalformedException.class);
            }
        }
    }

    @Test
    void anotherKeysSealAndTruncationsAreRefused() {
        byte[] good = sample().encode(PEER_KEY);
        assertThatThrownBy(() -> DirectoryEntry.decode(good, PEER_KEY + "x"))
                .isInstanceOf(MalformedException.class).hasMessageContaining("peer key");
        assertThatThrownBy(() -> DirectoryEntry.decode(sample().encode("attacker"), PEER_KEY))
                .isInstanceOf(MalformedException.class);
        for (int n = 0; n < good.length; n++) {
            byte[] cut = Arrays.copyOf(good, n);
            assertThatThrownBy(() -> DirectoryEntry.decode(cut, PEER_KEY)).isInstanceOf(MalformedException.class);
        }
    }

    /**
     * Whatever the bytes (random ones, and valid entries with random bytes overwritten, inserted or cut), decoding
     * answers an entry whose encoding is those bytes, or MalformedException, never anything else. The seed is logged.
     */
    @Test
    void arbitraryBytesGiveAnEntryOrMalformed() {
        long seed = System.nanoTime();
        System.out.println("DirectoryEntryTest seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        byte[] valid = sample().encode(PEER_KEY);
        for (int i = 0; i < 20_000; i++) {
            byte[] data;
            if (r.nextBoolean()) {
                data = new byte[r.nextInt(300)];
                r.nextBytes(data);
            } else {
                data = valid.clone();
                int edits = 1 + r.nextInt(4);
                for (int k = 0; k < edits && data.length > 0; k++) {
                    int at = r.nextInt(data.length);
                    switch (r.nextInt(3)) {
                        case 0 -> data[at] = (byte) r.nextInt(256);
                        case 1 -> data = Arrays.copyOf(data, at);
                        default -> {
                            byte[] longer = new byte[data.length + 1];
                            System.arraycopy(data, 0, longer, 0, at);
                            longer[at] = (byte) r.nextInt(256);
                            System.arraycopy(data, at, longer, at + 1, data.length - at);
                            data = longer;
                        }
                    }
                }
            }
            try {
                DirectoryEntry e = DirectoryEntry.decode(data, PEER_KEY);
                assertThat(e.encode(PEER_KEY)).as("seed %d input %d", seed, i).isEqualTo(data);
            } catch (MalformedException expected) {
                // refused
            }
        }
    }
}
