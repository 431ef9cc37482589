package io.glassledger.server.raft;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;

/** Who MemberTrust takes for a cluster member on a Raft port. */
class MemberTrustTest {
    private static KeyPair keys() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static X509Certificate cert(String subject, PublicKey key, String issuer, PrivateKey signer, boolean ca,
                                        Instant from, Instant to) throws Exception {
        var b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + issuer), BigInteger.valueOf(System.nanoTime()),
                Date.from(from), Date.from(to), new X500Name("CN=" + subject), key);
        if (ca) {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        }
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                .build(signer)));
    }

    private static X509Certificate selfSigned(String name) throws Exception {
        KeyPair k = keys();
        Instant now = Instant.now();
        return cert(name, k.getPublic(), name, k.getPrivate(), false, now.minus(Duration.ofDays(1)),
                now.plus(Duration.ofDays(1)));
    }

    @Test
    void check_theMembersOwnCertificate_isTrusted_anotherIsNot() throws Exception {
        X509Certificate member = selfSigned("member");
        X509Certificate stranger = selfSigned("member");  // same name, another key
        MemberTrust t = new MemberTrust(List.of(member));
        assertDoesNotThrow(() -> t.checkClientTrusted(new X509Certificate[] {member}, "ECDHE_ECDSA"));
        assertDoesNotThrow(() -> t.checkServerTrusted(new X509Certificate[] {member}, "ECDHE_ECDSA"));
        assertThrows(CertificateException.class, () -> t.checkClientTrusted(new X509Certificate[] {stranger},
                "ECDHE_ECDSA"));
        assertThrows(CertificateException.class, () -> t.checkServerTrusted(new X509Certificate[] {stranger},
                "ECDHE_ECDSA"));
    }

    @Test
    void check_noCertificate_isRefused() throws Exception {
        MemberTrust t = new MemberTrust(List.of(selfSigned("member")));
        assertThrows(CertificateException.class, () -> t.checkClientTrusted(new X509Certificate[0], "RSA"));
        assertThrows(CertificateException.class, () -> t.checkClientTrusted(null, "RSA"));
    }

    @Test
    void check_aCertificateIssuedByTheTrustedCa_isTrusted_oneIssuedByAnotherCaIsNot() throws Exception {
        Instant now = Instant.now();
        KeyPair caKeys = keys();
        X509Certificate ca = cert("cluster CA", caKeys.getPublic(), "cluster CA", caKeys.getPrivate(), true,
                now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(10)));
        KeyPair otherCaKeys = keys();
        KeyPair memberKeys = keys();
        X509Certificate member = cert("member", memberKeys.getPublic(), "cluster CA", caKeys.getPrivate(), false,
                now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(1)));
        X509Certificate forged = cert("member", memberKeys.getPublic(), "cluster CA", otherCaKeys.getPrivate(), false,
                now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(1)));
        MemberTrust t = new MemberTrust(List.of(ca));
        assertDoesNotThrow(() -> t.checkClientTrusted(new X509Certificate[] {member}, "ECDHE_ECDSA"));
        assertDoesNotThrow(() -> t.checkClientTrusted(new X509Certificate[] {member, ca}, "ECDHE_ECDSA"));
        assertThrows(CertificateException.class, () -> t.checkClientTrusted(new X509Certificate[] {forged},
                "ECDHE_ECDSA"));
        assertEquals(0, t.getAcceptedIssuers().length, "a member presents its certificate whoever issued it");
    }

    @Test
    void check_anExpiredMemberCertificate_isRefused() throws Exception {
        KeyPair k = keys();
        Instant now = Instant.now();
        X509Certificate old = cert("member", k.getPublic(), "member", k.getPrivate(), false,
                now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));
        MemberTrust t = new MemberTrust(List.of(old));
        assertThrows(CertificateException.class, () -> t.checkClientTrusted(new X509Certificate[] {old}, "EC"));
    }
}
