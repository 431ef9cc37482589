package io.glassledger.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link TrustKeeper#checkHead} verifies a head's signature once per head (issue 19): a head that differs from a
 * verified one in any byte is verified again and refused, however often the genuine one was seen before.
 */
class SignedHeadCacheTest {
    final TestLedger l = new TestLedger();

    SignedHeadCacheTest() {
        for (int i = 1; i <= 3; i++) {
            int n = i;
            l.append(l.tx(d -> d.put(TestLedger.b("k" + n), TestLedger.b("v" + n))));
        }
    }

    private SignedHead check(SignedHead h) {
        return TrustKeeper.checkHead(Wire.signedHead(h), l.server.publicKey(), TestLedger.SHARD, l.trust(3));
    }

    private void refused(SignedHead h, IntegrityViolation.Kind kind) {
        IntegrityViolation v = assertThrows(IntegrityViolation.class, () -> check(h));
        assertEquals(kind, v.kind());
    }

    private static SignedHead with(SignedHead h, Function<byte[], byte[]> sig) {
        return new SignedHead(h.shard(), h.digest(), h.timestamp(), h.serverKey(),
                Bytes.wrap(sig.apply(h.signature().toByteArray())));
    }

    @Test
    void everyAlteredByte_isVerifiedAndRefused_afterTheGenuineHeadWasCached() {
        SignedHead genuine = l.head();
        assertEquals(genuine, check(genuine));
        assertEquals(genuine, check(genuine));   // from the cache
        for (int i = 0; i < genuine.signature().length(); i++) {
            for (int bit = 0; bit < 8; bit += 7) {
                int at = i;
                int mask = 1 << bit;
                refused(with(genuine, s -> {
                    s[at] ^= (byte) mask;
                    return s;
                }), IntegrityViolation.Kind.BAD_SIGNATURE);
            }
        }
        byte[] root = genuine.digest().root().toByteArray();
        for (int i = 0; i < root.length; i++) {
            byte[] r = root.clone();
            r[i] ^= 1;
            refused(new SignedHead(genuine.shard(), new Digest(genuine.digest().blockNo(), Hash.of(r)),
                    genuine.timestamp(), genuine.serverKey(), genuine.signature()),
                    IntegrityViolation.Kind.BAD_SIGNATURE);
        }
        refused(new SignedHead(genuine.shard(), new Digest(genuine.digest().blockNo() + 1, genuine.digest().root()),
                genuine.timestamp(), genuine.serverKey(), genuine.signature()), IntegrityViolation.Kind.BAD_SIGNATURE);
        refused(new SignedHead(genuine.shard(), genuine.digest(), genuine.timestamp() + 1, genuine.serverKey(),
                genuine.signature()), IntegrityViolation.Kind.BAD_SIGNATURE);
        // the same head, correctly signed by another key, is another server's
        SignedHead other = SignedHead.sign(SigningKey.generate(), genuine.shard(), genuine.digest(),
                genuine.timestamp());
        refused(other, IntegrityViolation.Kind.SERVER_IDENTITY);
        // claiming the pinned key with the other key's signature
        refused(new SignedHead(genuine.shard(), genuine.digest(), genuine.timestamp(), genuine.serverKey(),
                other.signature()), IntegrityViolation.Kind.BAD_SIGNATURE);
        assertEquals(genuine, check(genuine));
    }

    @Test
    void aHeadOfAnotherShard_isRefusedEvenIfItsSignatureWasVerifiedForThatShard() {
        SignedHead genuine = l.head();
        check(genuine);
        SignedHead shard1 = SignedHead.sign(l.server, 1, genuine.digest(), genuine.timestamp());
        // verified and cached when checked as shard 1's ...
        assertEquals(shard1, TrustKeeper.checkHead(Wire.signedHead(shard1), l.server.publicKey(), 1, l.trust(3)));
        // ... but never accepted as shard 0's
        refused(shard1, IntegrityViolation.Kind.SERVER_IDENTITY);
    }
}
