package io.glassledger.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * HTTP/1.1 over one kept-alive TLS connection that writes the request target byte for byte as given: no client
 * library normalises {@code //}, dot segments or backslashes away. Reconnects when the server closes. Not
 * thread-safe.
 */
final class RawHttps implements AutoCloseable {
    record Response(int status, String contentType, String text, JsonNode body) {
        String code() {
            return body == null || !body.has("code") ? null : body.get("code").asText();
        }
    }

    private final SSLContext ssl;
    private final int port;
    private final java.net.InetAddress local;
    private final ObjectMapper json = new ObjectMapper();
    private SSLSocket socket;
    private InputStream in;
    private OutputStream out;
    int connections;

    RawHttps(int port, String fingerprint) throws Exception {
        this(port, fingerprint, null);
    }

    /**
     * @param local the client's source address (another loopback address, such as 127.0.0.2, is another client to
     *              the server's per-address cap); null: any
     */
    RawHttps(int port, String fingerprint, java.net.InetAddress local) throws Exception {
        this.port = port;
        this.local = local;
        this.ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new javax.net.ssl.TrustManager[] {new io.glassledger.api.PinnedTrustManager(fingerprint)}, null);
    }

    Response send(String method, String target, String apiKey, String body) throws IOException {
        return sendWithHeader(method, target, apiKey, body, null);
    }

    /** A bodiless request with one extra raw header line (sent as given, for malformed headers). */
    Response sendWithHeader(String method, String target, String apiKey, String header) throws IOException {
        return sendWithHeader(method, target, apiKey, null, header);
    }

    private Response sendWithHeader(String method, String target, String apiKey, String body, String header)
            throws IOException {
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\n");
        if (apiKey != null) {
            head.append("Authorization: Bearer ").append(apiKey).append("\r\n");
        }
        if (body != null) {
            head.append("Content-Type: application/json\r\n");
        }
        if (header != null) {
            head.append(header).append("\r\n");
        }
        head.append("Content-Length: ").append(b.length).append("\r\n\r\n");
        for (int attempt = 0; ; attempt++) {
            try {
                connect();
                // One write, one TLS record: a request split in two waits on Nagle and the peer's delayed ACK.
                ByteArrayOutputStream req = new ByteArrayOutputStream();
                req.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
                req.write(b);
                out.write(req.toByteArray());
                out.flush();
                return read();
            } catch (IOException e) {
                close();
                if (attempt == 1) {
                    throw e;
                }
            }
        }
    }

    /**
     * Writes {@code requests} (whole HTTP/1.1 requests, as given) in one write, so one TLS record, and reads
     * {@code responses} answers; waits at most {@code boundMillis} for each (a SocketTimeoutException past it).
     */
    java.util.List<Response> sendRaw(String requests, int responses, int boundMillis) throws IOException {
        connect();
        socket.setSoTimeout(boundMillis);
        try {
            out.write(requests.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            java.util.List<Response> got = new java.util.ArrayList<>();
            for (int i = 0; i < responses; i++) {
                got.add(read());
            }
            return got;
        } finally {
            if (socket != null) {
                socket.setSoTimeout(30_000);
            }
        }
    }

    private void connect() throws IOException {
        if (socket == null) {
            java.net.Socket plain = new java.net.Socket();
            if (local != null) {
                plain.bind(new java.net.InetSocketAddress(local, 0));
            }
            plain.connect(new java.net.InetSocketAddress("127.0.0.1", port), 10_000);
            socket = (SSLSocket) ssl.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
            socket.setSoTimeout(30_000);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = new java.io.BufferedOutputStream(socket.getOutputStream(), 1 << 16);
            connections++;
        }
    }

    private Response read() throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("connection closed before a response");
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        String type = "";
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            String name = h.substring(0, h.indexOf(':')).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(h.indexOf(':') + 1).trim();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> close = value.equalsIgnoreCase("close");
                case "content-type" -> type = value;
                default -> { }
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (long n = Long.parseLong(line().split(";")[0].trim(), 16); n > 0;
                 n = Long.parseLong(line().split(";")[0].trim(), 16)) {
                body.write(in.readNBytes((int) n));
                line();
            }
            for (String t = line(); t != null && !t.isEmpty(); t = line()) {
                // trailers
            }
        } else if (length >= 0) {
            body.write(in.readNBytes((int) length));
        } else {
            body.write(in.readAllBytes());
            close = true;
        }
        if (close) {
            close();
        }
        String text = body.toString(StandardCharsets.UTF_8);
        JsonNode node = null;
        if (type.contains("json") && !text.isEmpty()) {
            try {
                node = json.readTree(text);
            } catch (IOException e) {
                node = null;
            }
        }
        return new Response(code, type, text, node);
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }
}
