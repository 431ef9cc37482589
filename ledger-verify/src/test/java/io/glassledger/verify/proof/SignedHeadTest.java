package io.glassledger.verify.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class SignedHeadTest {
    static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
    static final Digest D = new Digest(7, Hash.fromHex("11".repeat(32)));

    @Test
    void verify_goodHead_passes() throws Exception {
        SignedHead.sign(KEY, 3, D, 1234).verify(KEY.publicKey());
    }

    @Test
    void message_isTheDocumentedLayout() {
        // FORMAT.md §16: "GLHEAD1" ‖ u32 shard ‖ u64 block ‖ root ‖ u64 timestamp
        assertArrayEquals(HexFormat.of().parseHex("474c4845414431" + "00000003" + "0000000000000007" + "11".repeat(32)
                + "00000000000004d2"), SignedHead.message(3, D, 1234));
    }

    @Test
    void verify_anyFieldChanged_throws() {
        SignedHead h = SignedHead.sign(KEY, 3, D, 1234);
        assertThrows(VerificationException.class, () -> new SignedHead(4, D, 1234, h.serverKey(), h.signature())
                .verify());
        assertThrows(VerificationException.class, () -> new SignedHead(3, new Digest(8, D.root()), 1234,
                h.serverKey(), h.signature()).verify());
        assertThrows(VerificationException.class, () -> new SignedHead(3, new Digest(7, Hash.fromHex("12".repeat(32))),
                1234, h.serverKey(), h.signature()).verify());
        assertThrows(VerificationException.class, () -> new SignedHead(3, D, 1235, h.serverKey(), h.signature())
                .verify());
        assertThrows(VerificationException.class, () -> h.verify(SigningKey.generate().publicKey()));
    }

    @Test
    void verify_everySignatureBitFlipped_throws() {
        SignedHead h = SignedHead.sign(KEY, 3, D, 1234);
        byte[] sig = h.signature().toByteArray();
        for (int i = 0; i < sig.length * 8; i++) {
            byte[] t = sig.clone();
            t[i / 8] ^= (byte) (1 << (i % 8));
            SignedHead bad = new SignedHead(3, D, 1234, h.serverKey(), Bytes.wrap(t));
            assertThrows(VerificationException.class, bad::verify, "bit " + i);
        }
        assertThrows(VerificationException.class, () -> new SignedHead(3, D, 1234, h.serverKey(),
                h.signature().prefix(63)).verify());
    }
}
