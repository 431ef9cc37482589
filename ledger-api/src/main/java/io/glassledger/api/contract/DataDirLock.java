package io.glassledger.api.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * One process per data directory: before anything in it is read or written, takes an exclusive lock on
 * {@code <dir>/glassledger.lock} (an OS file lock, so a crashed process never leaves it held) and writes its PID
 * into it. A second process on the same directory stops at once with "data directory DIR in use by PID N" (exit
 * {@link StartupRefusal#EXIT_IN_USE}) instead of failing later on RocksDB's own LOCK. The lock is released when the
 * application context closes (after its beans, RocksDB included), or when the process ends.
 */
public abstract class DataDirLock implements EnvironmentPostProcessor, Ordered {
    public static final String FILE = "glassledger.lock";

    private final String property;
    private final String defaultDir;
    private final String what;

    /**
     * @param property   the data directory's property
     * @param defaultDir its default
     * @param what       what the service is called in the message ("server", "auditor")
     */
    protected DataDirLock(String property, String defaultDir, String what) {
        this.property = property;
        this.defaultDir = defaultDir;
        this.what = what;
    }

    @Override
    public int getOrder() {
        return new UnknownPropertiesCheck().getOrder() + 1;  // after the property check, before TLS files are made
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        Path dir = Path.of(env.getProperty(property, defaultDir)).toAbsolutePath().normalize();
        Held held = acquire(dir, what);
        try {
            checkContents(dir, env);
        } catch (RuntimeException e) {
            held.close();
            throw e;
        }
        app.addListeners(event -> {
            if (event instanceof ApplicationPreparedEvent p) {
                // the disposable registered first is destroyed last: after RocksDB and the WAL are closed
                if (p.getApplicationContext().getBeanFactory() instanceof DefaultSingletonBeanRegistry r) {
                    r.registerDisposableBean("glassledgerDataDirLock", held::close);
                }
            } else if (event instanceof ApplicationFailedEvent) {
                held.close();
            }
        });
    }

    /**
     * Checks what the locked directory holds before anything else reads or writes it (a subclass refuses data it
     * cannot read with a {@link StartupRefusal}); nothing by default.
     */
    protected void checkContents(Path dir, ConfigurableEnvironment env) {
    }

    /** The lock on {@code dir}, or a {@link StartupRefusal} naming the process that holds it. */
    public static Held acquire(Path dir, String what) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(FILE);
            FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;  // this JVM holds it already
            }
            if (lock == null) {
                String pid = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
                ch.close();
                throw new StartupRefusal("data directory " + dir + " in use by PID " + (pid.isEmpty() ? "?" : pid)
                        + " (it holds " + file + ")", "Stop that process first, or give this " + what
                        + " another data directory.", StartupRefusal.EXIT_IN_USE);
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
            ch.force(false);
            return new Held(ch, lock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the data directory " + dir, e);
        }
    }

    /** A held lock; {@link #close()} releases it (the PID stays in the file, harmlessly: only the lock counts). */
    public static final class Held implements AutoCloseable {
        private final FileChannel channel;
        private final FileLock lock;

        Held(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
        }

        @Override
        public synchronized void close() {
            try {
                if (channel.isOpen()) {
                    lock.release();
                    channel.close();
                }
            } catch (IOException ignored) {
                // closing the channel releases the lock anyway
            }
        }
    }
}
