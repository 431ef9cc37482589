package io.glassledger.server.raft;

import io.glassledger.server.LedgerProperties;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManager;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.thirdparty.io.grpc.util.TransmitStatusRuntimeExceptionInterceptor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.web.ServerProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.web.server.WebServerSslBundle;
import org.springframework.context.annotation.Lazy;
import org.springframework.stereotype.Component;

/**
 * Mutual TLS on every Raft port (docs/ARCHITECTURE.md "Trust boundary"): a member presents the server's own TLS
 * certificate and key (the HTTPS ones, {@code server.ssl.*}: a key store, a PEM pair or a bundle) on both ends of a
 * connection, and accepts a peer only if {@link MemberTrust} does: its certificate is one of
 * {@code glassledger.member-tls.trust} (a PEM file of certificates or a CA), by default this member's own certificate,
 * which a cluster's members share (the launcher, the image and the Helm chart give every member the same one). A
 * connection without such a certificate is refused in the handshake, before any Raft message is read.
 */
@Component
@Lazy  // made on first use: a server with no Raft port never reads its key for it
public class MemberTls {
    private final GrpcTlsConfig tls;
    private final X509Certificate own;
    private final List<X509Certificate> trusted;

    public MemberTls(ServerProperties server, ObjectProvider<SslBundles> bundles, LedgerProperties props) {
        if (server.getSsl() == null || !server.getSsl().isEnabled()) {
            throw new IllegalStateException("Raft ports need the server's TLS certificate (server.ssl), which is off");
        }
        SslBundle bundle = WebServerSslBundle.get(server.getSsl(), bundles.getIfAvailable());
        try {
            KeyStore ks = bundle.getStores().getKeyStore();
            String alias = bundle.getKey().getAlias();
            this.own = ownCertificate(ks, alias);
            KeyManager[] kms = bundle.getManagers().getKeyManagerFactory().getKeyManagers();
            String trust = props.memberTls().trust();
            this.trusted = trust.isEmpty() ? List.of(own) : readPem(Path.of(trust));
            this.tls = new GrpcTlsConfig(kms[0], new MemberTrust(trusted), true);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the server's certificate for the Raft ports: " + e, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static X509Certificate ownCertificate(KeyStore ks, String alias) throws GeneralSecurityException {
        List<String> aliases = alias != null ? List.of(alias) : Collections.list(ks.aliases());
        for (String a : aliases) {
            if (ks.isKeyEntry(a) && ks.getCertificate(a) instanceof X509Certificate c) {
                return c;
            }
        }
        throw new GeneralSecurityException("the server's key store holds no key with a certificate");
    }

    /** Every certificate of a PEM file (a CA bundle, or the members' certificates). */
    static List<X509Certificate> readPem(Path file) throws IOException, GeneralSecurityException {
        List<X509Certificate> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                out.add((X509Certificate) c);
            }
        }
        if (out.isEmpty()) {
            throw new GeneralSecurityException("glassledger.member-tls.trust: no certificate in " + file);
        }
        return out;
    }

    /**
     * Ratis parameters for a server or client of this member: mutual TLS on the server, admin and client sides, and,
     * for a server, {@code gate} on every incoming call (whose refusals reach the caller as {@code PERMISSION_DENIED}).
     */
    public Parameters parameters(MemberGate gate) {
        return parameters(tls, gate);
    }

    /** As {@link #parameters(MemberGate)}, with {@code tls} (a group's own identity, {@link GroupIdentity}). */
    public static Parameters parameters(GrpcTlsConfig tls, MemberGate gate) {
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, tls);
        if (gate != null) {
            // Interceptors run last-added first: gRPC's TransmitStatusRuntimeExceptionInterceptor wraps the gate, so a
            // refusal the gate throws closes the call with its own status (PERMISSION_DENIED), on a call it serializes
            // against Ratis's answers. Without it gRPC cancels the call as UNKNOWN ("Application error processing
            // RPC") and logs the refusal again with its stack trace, once per refused message, past the gate's limit.
            GrpcConfigKeys.Server.setServicesCustomizer(p, (builder, types) -> builder.intercept(gate)
                    .intercept(TransmitStatusRuntimeExceptionInterceptor.instance()));
        }
        return p;
    }

    /** The certificate this member presents. */
    public X509Certificate certificate() {
        return own;
    }

    /** The certificates it trusts (or whose issued certificates it trusts). */
    public List<X509Certificate> trusted() {
        return trusted;
    }
}
