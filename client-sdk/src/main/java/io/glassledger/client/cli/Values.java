package io.glassledger.client.cli;

import io.glassledger.verify.entry.Entry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where a value comes from: the command line (UTF-8), a file ({@code --file PATH}) or stdin ({@code -}), byte for
 * byte. A file or stream is read only up to one byte past the largest value any server accepts
 * ({@link Entry#MAX_VALUE_BYTES}), so a huge input is refused without being held in memory; the server's own,
 * possibly lower, limit is checked by the SDK before anything is sent. A key comes from the command line (UTF-8),
 * checked for its length ({@link Entry#MAX_KEY_BYTES}).
 */
final class Values {
    private Values() {
    }

    /** A key given on the command line: 1..{@link Entry#MAX_KEY_BYTES} bytes of UTF-8. */
    static byte[] key(String k) {
        return key(k.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code b}, checked to be a key's length (1..{@link Entry#MAX_KEY_BYTES} bytes), else a usage error. */
    static byte[] key(byte[] b) {
        if (b.length == 0 || b.length > Entry.MAX_KEY_BYTES) {
            throw new Usage("a key is 1.." + Entry.MAX_KEY_BYTES + " bytes of UTF-8");
        }
        return b;
    }

    /** The value of {@code put KEY VALUE}, {@code put KEY --file PATH} or {@code put KEY -}. */
    static byte[] read(Args a, InputStream stdin, String form) {
        String file = a.opt("--file");
        if (file != null) {
            if (a.words.size() != 2) {
                throw new Usage("put with --file takes no VALUE: expected " + form);
            }
            try (InputStream in = Files.newInputStream(Path.of(file))) {
                return bounded(in, file);
            } catch (NoSuchFileException e) {
                throw new Usage("--file " + file + ": no such file");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        a.arity(3, form);
        String v = a.word(2);
        if (v.equals("-")) {
            try {
                return bounded(stdin, "stdin");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read stdin", e);
            }
        }
        return v.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bounded(InputStream in, String what) throws IOException {
        byte[] b = in.readNBytes(Entry.MAX_VALUE_BYTES + 1);
        if (b.length > Entry.MAX_VALUE_BYTES) {
            throw new Usage("the value from " + what + " is over " + Entry.MAX_VALUE_BYTES + " bytes, the largest "
                    + "value a GlassLedger server accepts (its own limit, maxValueBytes in GET /v1/info, may be lower)");
        }
        return b;
    }
}
