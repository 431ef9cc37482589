package io.glassledger.verify.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The key's public half, now derived on first use, and its signatures: RFC 8032 §7.1's test vectors. */
class SigningKeyTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void publicKeyAndSignature_rfc8032Test1_match() {
        SigningKey k = SigningKey.fromSeed(HEX.parseHex(
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"));
        assertEquals("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", k.publicKey().hex());
        assertEquals("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46b"
                + "d25bf5f0595bbe24655141438e7a100b", HEX.formatHex(k.sign(new byte[0])));
    }

    @Test
    void signBeforePublicKey_rfc8032Test2_match() {
        SigningKey k = SigningKey.fromSeed(HEX.parseHex(
                "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"));
        byte[] sig = k.sign(new byte[] {0x72});
        assertEquals("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c"
                + "387b2eaeb4302aeeb00d291612bb0c00", HEX.formatHex(sig));
        assertEquals("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", k.publicKey().hex());
        assertTrue(Ed25519.verify(k.publicKey(), new byte[] {0x72}, 0, 1, sig, 0));
    }

    @Test
    void publicKey_derivedByManyThreadsAtOnce_isOneValue() throws Exception {
        SigningKey k = SigningKey.generate();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Bytes>> keys = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                keys.add(pool.submit(k::publicKey));
            }
            Set<Bytes> distinct = keys.stream().map(f -> {
                try {
                    return f.get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).collect(Collectors.toSet());
            assertEquals(Set.of(k.publicKey()), distinct);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void toString_showsThePublicKeyNeverTheSeed() {
        byte[] seed = HEX.parseHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
        String s = SigningKey.fromSeed(seed).toString();
        assertTrue(s.contains("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"), s);
        assertFalse(s.contains(HEX.formatHex(seed)), s);
    }
}
