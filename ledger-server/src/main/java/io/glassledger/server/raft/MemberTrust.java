package io.glassledger.server.raft;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Who is a member of the cluster on a Raft port: a peer whose certificate is one of the trusted certificates (the
 * members' own, which a cluster's members share), or is issued by one of them (the cluster's CA), and is within its
 * validity. The same on both ends of a connection (mutual TLS). Names are not checked: the certificate is the member's
 * credential, and a member's Raft address may be a name the certificate does not carry (a proxy, a pod's IP).
 * <p>Thread-safe and immutable.
 */
public final class MemberTrust extends X509ExtendedTrustManager {
    private final List<X509Certificate> trusted;
    private final Set<TrustAnchor> anchors = new HashSet<>();
    private final byte[] trustedKey;

    public MemberTrust(List<X509Certificate> trusted) {
        if (trusted.isEmpty()) {
            throw new IllegalArgumentException("no certificate to trust for cluster members");
        }
        this.trusted = List.copyOf(trusted);
        this.trustedKey = null;
        for (X509Certificate c : trusted) {
            anchors.add(new TrustAnchor(c, null));
        }
    }

    private MemberTrust(java.security.PublicKey key) {
        this.trusted = List.of();
        this.trustedKey = key.getEncoded();
    }

    /** Trusts exactly a certificate for {@code key}, whoever issued it (a group's derived identity). */
    public static MemberTrust ofKey(java.security.PublicKey key) {
        return new MemberTrust(key);
    }

    /** Throws unless {@code chain} is a member's: its first certificate trusted itself, or issued by a trusted one. */
    void check(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("no certificate presented: only cluster members may connect");
        }
        X509Certificate leaf = chain[0];
        leaf.checkValidity();
        if (trustedKey != null) {
            if (!java.security.MessageDigest.isEqual(trustedKey, leaf.getPublicKey().getEncoded())) {
                throw new CertificateException("the certificate " + leaf.getSubjectX500Principal() + " is not for "
                        + "this group's key: only the group's members may connect");
            }
            return;
        }
        if (trusted.contains(leaf)) {
            return;
        }
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            PKIXParameters params = new PKIXParameters(anchors);
            params.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(cf.generateCertPath(Arrays.asList(chain)), params);
        } catch (GeneralSecurityException e) {
            throw new CertificateException("the certificate " + leaf.getSubjectX500Principal() + " is not a cluster "
                    + "member's: " + e.getMessage(), e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain);
    }

    /**
     * None named: a member presents its certificate whoever issued it (naming the trusted certificates' subjects here
     * would make a member whose certificate a CA issued, trusted by pin, present none).
     */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
