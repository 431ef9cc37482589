package io.glassledger.server.net;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Which connections one server holds (docs/API.md "Limits"): at most {@code cap} in all and {@code perAddress} from
 * one client address. A connection is <em>idle</em> while no request is in progress on it: before its TLS handshake
 * and first request, between requests, and on HTTP/2 while no stream is open. At the cap, a new connection takes the
 * place of the connection idle the longest, which is closed; only when every connection has a request in progress
 * is it refused. From an address already at its own cap, a new connection is refused at once.
 *
 * <p>So no client can lock out everyone: connections held open without requests are what gives way, oldest first,
 * and one address cannot hold more than its share. A new connection is itself idle until its first request, so a
 * flood of new connections closes the older idle ones before it reaches a connection that has just been opened.
 *
 * <p>Thread-safe: connections are admitted, change state and close on their own event loops; one lock guards the
 * counts and the idle order (a few map and list operations per connection and per request).
 */
final class Admission {
    /** Why a connection was not admitted. */
    enum Refusal {
        /** The connection's address holds {@code perAddress} connections. */
        ADDRESS,
        /** The server holds {@code cap} connections and none is idle. */
        FULL
    }

    /** The outcome of {@link #admit}: a ticket, or why not. */
    record Verdict(Ticket ticket, Refusal refusal, boolean evicted) {
    }

    /**
     * One admitted connection. {@link #busy()} and {@link #idle()} come in pairs, one pair per request (or HTTP/2
     * stream); {@link #release()} when the connection closes. Each may be called again or after release; extra calls
     * change nothing.
     */
    final class Ticket {
        private final InetAddress address;
        private final Runnable close;
        private int inProgress;
        private boolean released;

        private Ticket(InetAddress address, Runnable close) {
            this.address = address;
            this.close = close;
        }

        /** A request has begun. */
        void busy() {
            synchronized (Admission.this) {
                if (!released && inProgress++ == 0) {
                    idle.remove(this);
                }
            }
        }

        /** A request has ended (its response is written). */
        void idle() {
            synchronized (Admission.this) {
                if (!released && inProgress > 0 && --inProgress == 0) {
                    idle.add(this);  // the newest idle connection: the last to give way
                }
            }
        }

        /** The connection has closed. */
        void release() {
            synchronized (Admission.this) {
                releaseLocked();
            }
        }

        private void releaseLocked() {
            if (released) {
                return;
            }
            released = true;
            idle.remove(this);
            open--;
            byAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        }
    }

    private final int cap;
    private final int perAddress;
    private int open;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();
    /** Idle connections, the longest idle first. */
    private final LinkedHashSet<Ticket> idle = new LinkedHashSet<>();

    Admission(int cap, int perAddress) {
        if (cap < 1 || perAddress < 1) {
            throw new IllegalArgumentException("caps must be positive");
        }
        this.cap = cap;
        this.perAddress = perAddress;
    }

    /**
     * Admits a connection from {@code address}, or refuses it. At the cap, the connection idle the longest is
     * released here (its place is the new connection's at once) and {@code close} of its ticket is run, outside the
     * lock.
     *
     * @param close closes the new connection if it is ever evicted in turn; must not block
     */
    Verdict admit(InetAddress address, Runnable close) {
        Ticket evicted = null;
        Ticket ticket;
        synchronized (this) {
            if (byAddress.getOrDefault(address, 0) >= perAddress) {
                return new Verdict(null, Refusal.ADDRESS, false);
            }
            if (open >= cap) {
                Iterator<Ticket> oldest = idle.iterator();
                if (!oldest.hasNext()) {
                    return new Verdict(null, Refusal.FULL, false);
                }
                evicted = oldest.next();
                evicted.releaseLocked();
            }
            ticket = new Ticket(address, close);
            open++;
            byAddress.merge(address, 1, Integer::sum);
            idle.add(ticket);
        }
        if (evicted != null) {
            evicted.close.run();
        }
        return new Verdict(ticket, null, evicted != null);
    }

    synchronized int open() {
        return open;
    }

    /** Open connections with no request in progress. */
    synchronized int idle() {
        return idle.size();
    }

    synchronized int openFrom(InetAddress address) {
        return byAddress.getOrDefault(address, 0);
    }

    int cap() {
        return cap;
    }

    int perAddress() {
        return perAddress;
    }
}
