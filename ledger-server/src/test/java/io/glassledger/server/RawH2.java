package io.glassledger.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * HTTP/2 over TLS with frames written by hand (RFC 9113), for tests that send what no client library would: a
 * WINDOW_UPDATE of 0, say. Headers are HPACK literals without Huffman coding or indexing, so no encoder state is
 * kept. Not thread-safe.
 */
final class RawH2 implements AutoCloseable {
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    private static final int END_STREAM = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int ACK = 0x1;

    record Frame(int type, int flags, int stream, byte[] payload) {
    }

    private final SSLSocket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final int port;

    /** Connects, offers only {@code h2} by ALPN, sends the preface and an empty SETTINGS frame. */
    RawH2(int port) throws Exception {
        this.port = port;
        socket = (SSLSocket) RawTls.trustAll().getSocketFactory().createSocket(RawTls.tcp(port), "127.0.0.1", port,
                true);
        SSLParameters p = socket.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        socket.setSSLParameters(p);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        if (!"h2".equals(socket.getApplicationProtocol())) {
            throw new IOException("the server did not choose h2 by ALPN: " + socket.getApplicationProtocol());
        }
        in = new DataInputStream(socket.getInputStream());
        out = new java.io.BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        frame(SETTINGS, 0, 0, new byte[0]);
        flush();
    }

    /** The server's first SETTINGS frame (acknowledged), as identifier to value. */
    Map<Integer, Long> serverSettings() throws IOException {
        for (int i = 0; i < 100; i++) {
            Frame f = read();
            if (f.type() == SETTINGS && (f.flags() & ACK) == 0) {
                frame(SETTINGS, ACK, 0, new byte[0]);
                flush();
                Map<Integer, Long> s = new HashMap<>();
                ByteBuffer b = ByteBuffer.wrap(f.payload());
                while (b.remaining() >= 6) {
                    s.put(b.getShort() & 0xffff, b.getInt() & 0xffffffffL);
                }
                return s;
            }
        }
        throw new IOException("no SETTINGS frame from the server");
    }

    /** A GET without a body on {@code stream} (odd, increasing). */
    void get(int stream, String path, String apiKey) throws IOException {
        request(stream, 2, path, apiKey, true);  // :method GET (static table index 2)
    }

    /** The headers of a JSON POST whose body is still to come: the request stays in progress. */
    void postHeaders(int stream, String path, String apiKey) throws IOException {
        request(stream, 3, path, apiKey, false);  // :method POST (index 3)
    }

    private void request(int stream, int method, String path, String apiKey, boolean end) throws IOException {
        java.io.ByteArrayOutputStream h = new java.io.ByteArrayOutputStream();
        h.write(0x80 | method);      // indexed: the method
        literal(h, 7, "https");      // :scheme
        literal(h, 4, path);         // :path
        literal(h, 1, "127.0.0.1:" + port);  // :authority
        if (apiKey != null) {
            literal(h, 23, "Bearer " + apiKey);  // authorization
        }
        if (!end) {
            literal(h, 31, "application/json");  // content-type
        }
        frame(HEADERS, END_HEADERS | (end ? END_STREAM : 0), stream, h.toByteArray());
    }

    /** A DATA frame; {@code end}: the request's last. */
    void data(int stream, byte[] payload, boolean end) throws IOException {
        frame(DATA, end ? END_STREAM : 0, stream, payload);
    }

    void windowUpdate(int stream, int increment) throws IOException {
        frame(WINDOW_UPDATE, 0, stream, ByteBuffer.allocate(4).putInt(increment).array());
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
                (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
                (byte) stream});
        out.write(payload);
    }

    void flush() throws IOException {
        out.flush();
    }

    /** The next frame; EOFException when the server has closed the connection. */
    Frame read() throws IOException {
        byte[] head = new byte[9];
        in.readFully(head);
        int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
        int stream = ByteBuffer.wrap(head, 5, 4).getInt() & 0x7fffffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(head[3] & 0xff, head[4] & 0xff, stream, payload);
    }

    /**
     * Reads until {@code stream}'s response headers and returns its {@code :status} (the server's HPACK encoder
     * indexes {@code :status 200} as static entry 8), or -1 if the connection closed first.
     */
    int status(int stream, int maxFrames) throws IOException {
        try {
            for (int i = 0; i < maxFrames; i++) {
                Frame f = read();
                if (f.type() == HEADERS && f.stream() == stream && f.payload().length > 0) {
                    int first = f.payload()[0] & 0xff;
                    return switch (first) {
                        case 0x88 -> 200;
                        case 0x8d -> 404;
                        default -> first & 0x7f;  // another status: its index, enough to tell it is not 200
                    };
                }
                if (f.type() == GOAWAY) {
                    return -1;
                }
            }
        } catch (EOFException e) {
            return -1;
        }
        throw new IOException("no response on stream " + stream + " in " + maxFrames + " frames");
    }

    /** A header field as a literal without indexing, its name by static-table index (RFC 7541 §6.2.2). */
    private static void literal(java.io.ByteArrayOutputStream h, int nameIndex, String value) {
        integer(h, 0x00, 4, nameIndex);
        byte[] v = value.getBytes(StandardCharsets.ISO_8859_1);
        integer(h, 0x00, 7, v.length);  // the H bit clear: no Huffman coding
        h.writeBytes(v);
    }

    /** An integer with an N-bit prefix after the bits {@code first} (RFC 7541 §5.1). */
    private static void integer(java.io.ByteArrayOutputStream h, int first, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            h.write(first | value);
            return;
        }
        h.write(first | max);
        int rest = value - max;
        while (rest >= 128) {
            h.write(rest & 0x7f | 0x80);
            rest >>>= 7;
        }
        h.write(rest);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
