package io.glassledger.api;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** GlassLedger's version, as the build stamped it (every command's {@code --version}). */
public final class Version {
    private static final String VERSION = load();

    private Version() {
    }

    /** This build's version, for example {@code 0.1.0-SNAPSHOT}. */
    public static String current() {
        return VERSION;
    }

    /** The line every command prints for {@code --version}: {@code <program> <version>}. */
    public static String line(String program) {
        return program + " " + VERSION;
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
