package io.glassledger.server.raft;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.time.Instant;
import java.util.Date;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.KeyManagerFactory;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The TLS identity of one Raft group's members, derived from a secret only they hold (a shard's group: the shard's
 * signing-key seed, which its replicas share): an ECDSA P-256 key pair whose private scalar is
 * {@code HMAC-SHA256(secret, "glassledger raft tls v1" || label) mod (n - 1) + 1}, in a self-signed certificate made
 * at start. Every member derives the same key pair, so a member presents it and trusts exactly a peer that presents a
 * certificate for the same public key ({@link MemberTrust#ofKey}): a server of another shard, though it holds the
 * cluster's certificate, cannot connect to this shard's Raft port, let alone speak for one of its replicas.
 */
public final class GroupIdentity {
    private static final byte[] DOMAIN = "glassledger raft tls v1".getBytes(StandardCharsets.US_ASCII);

    private GroupIdentity() {
    }

    /** Ratis's mutual-TLS configuration for the group whose members hold {@code secret}. */
    public static GrpcTlsConfig tls(byte[] secret, String label) {
        try {
            X9ECParameters x9 = ECNamedCurveTable.getByName("secp256r1");
            BigInteger n = x9.getN();
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(DOMAIN);
            byte[] okm = mac.doFinal(label.getBytes(StandardCharsets.UTF_8));
            BigInteger d = new BigInteger(1, okm).mod(n.subtract(BigInteger.ONE)).add(BigInteger.ONE);
            org.bouncycastle.math.ec.ECPoint q = x9.getG().multiply(d).normalize();
            AlgorithmParameters ap = AlgorithmParameters.getInstance("EC");
            ap.init(new ECGenParameterSpec("secp256r1"));
            ECParameterSpec spec = ap.getParameterSpec(ECParameterSpec.class);
            KeyFactory kf = KeyFactory.getInstance("EC");
            PrivateKey priv = kf.generatePrivate(new ECPrivateKeySpec(d, spec));
            PublicKey pub = kf.generatePublic(new ECPublicKeySpec(new ECPoint(q.getAffineXCoord().toBigInteger(),
                    q.getAffineYCoord().toBigInteger()), spec));
            X500Name name = new X500Name("CN=GlassLedger Raft group " + label.replaceAll("[^A-Za-z0-9 ._-]", "?"));
            Instant now = Instant.now();
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(
                    name, BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minusSeconds(86_400)),
                    Date.from(now.plusSeconds(100L * 365 * 86_400)), name, pub)
                    .build(new JcaContentSignerBuilder("SHA256withECDSA").build(priv)));
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pw = new char[0];
            ks.setKeyEntry("group", priv, pw, new X509Certificate[] {cert});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            return new GrpcTlsConfig(kmf.getKeyManagers()[0], MemberTrust.ofKey(pub), true);
        } catch (GeneralSecurityException | java.io.IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot derive the Raft group's TLS identity: " + e, e);
        }
    }
}
