package io.glassledger.benchmark;

import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.Txn;
import io.glassledger.verify.proof.Version;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Verified TPC-C (GlassDB §4.2, §5.5) over the key-value API: the five TPC-C transactions and
 * {@code VerifiedWarehouseBalance} (the last 10 versions of {@code w_ytd}), each committed as one transaction whose
 * promise is verified after the delay. Keys are {@code table/primary-key}; fields updated together share a key, and
 * fields never updated are combined (§5.5). The layout and the deviations from the TPC-C specification are in
 * benchmark/README.md.
 */
final class Tpcc {
    static final int DISTRICTS = 10;
    static final List<String> TYPES = List.of("new_order", "payment", "order_status", "delivery", "stock_level",
            "warehouse_balance");
    /** The mix of GlassDB §5.5: new order and payment 42% each, the others 4% each. */
    private static final int[] MIX = {42, 84, 88, 92, 96, 100};
    private static final long W_YTD0 = 300_000_00;
    private static final long D_YTD0 = 30_000_00;
    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION",
            "EING"};

    /** @param customers customers per district (TPC-C: 3,000); also the initial orders per district */
    record Scale(int warehouses, int items, int customers) {
        Scale {
            if (warehouses < 1 || items < 100 || customers < 30) {
                throw new IllegalArgumentException("TPC-C scale needs >= 1 warehouse, 100 items, 30 customers");
            }
        }

        int firstUndelivered() {
            return customers * 7 / 10 + 1;
        }
    }

    private final GlassLedgerClient client;
    private final Scale scale;
    private final int cLoad = 157;   // NURand's C for the load and the run (one value: fine outside a formal audit)
    private final int cId = 259;
    private final int olI = 7911;

    Tpcc(GlassLedgerClient client, Scale scale) {
        this.client = client;
        this.scale = scale;
    }

    // ------------------------------------------------------------------ keys and values

    static byte[] key(Object... parts) {
        StringBuilder b = new StringBuilder();
        for (Object p : parts) {
            if (!b.isEmpty()) {
                b.append('/');
            }
            b.append(p);
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] val(Object... fields) {
        StringBuilder b = new StringBuilder();
        for (Object f : fields) {
            if (!b.isEmpty()) {
                b.append('|');
            }
            b.append(f);
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    static String[] fields(byte[] v) {
        return new String(v, StandardCharsets.UTF_8).split("\\|", -1);
    }

    static long num(byte[] v, int field) {
        return Long.parseLong(fields(v)[field]);
    }

    private static String lastName(int n) {
        return SYLLABLES[n / 100] + SYLLABLES[(n / 10) % 10] + SYLLABLES[n % 10];
    }

    private static int nuRand(SplittableRandom r, int a, int c, int x, int y) {
        return (((r.nextInt(a + 1) | (x + r.nextInt(y - x + 1))) + c) % (y - x + 1)) + x;
    }

    private static String text(SplittableRandom r, int min, int max) {
        int n = min + r.nextInt(max - min + 1);
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) ('a' + r.nextInt(26));
        }
        return new String(c);
    }

    // ------------------------------------------------------------------ load

    /** Writes the initial database (TPC-C §4.3.3, scaled by {@link Scale}); returns the number of keys. */
    long load(Consumer<String> log) {
        SplittableRandom r = new SplittableRandom(11);
        Loader l = new Loader();
        for (int i = 1; i <= scale.items(); i++) {
            l.put(key("i", i), val(100 + r.nextInt(9901), text(r, 14, 24), text(r, 26, 50)));
        }
        for (int w = 1; w <= scale.warehouses(); w++) {
            l.put(key("w", w), val(r.nextInt(2001), text(r, 6, 10), text(r, 10, 20), text(r, 10, 20)));
            l.put(key("w_ytd", w), val(W_YTD0));
            for (int i = 1; i <= scale.items(); i++) {
                l.put(key("s", w, i), val(10 + r.nextInt(91), 0, 0, 0));
                l.put(key("s_info", w, i), val(text(r, 24, 24), text(r, 26, 50)));
            }
            for (int d = 1; d <= DISTRICTS; d++) {
                l.put(key("d", w, d), val(r.nextInt(2001), text(r, 6, 10), text(r, 10, 20)));
                l.put(key("d_ytd", w, d), val(D_YTD0));
                l.put(key("d_next", w, d), val(scale.customers() + 1));
                l.put(key("d_deliv", w, d), val(scale.firstUndelivered()));
                Map<String, TreeSet<String>> byLast = new HashMap<>();
                for (int c = 1; c <= scale.customers(); c++) {
                    String last = lastName(c <= 1000 ? c - 1 : nuRand(r, 255, cLoad, 0, 999));
                    String first = text(r, 8, 16);
                    byLast.computeIfAbsent(last, x -> new TreeSet<>()).add(first + ":" + c);
                    l.put(key("c", w, d, c), val(-1000, 1000, 1, 0));
                    l.put(key("c_info", w, d, c), val(first, "OE", last, r.nextInt(10) == 0 ? "BC" : "GC",
                            r.nextInt(5001), text(r, 50, 100)));
                    l.put(key("h", w, d, c, "0"), val(1000, w, d));
                }
                for (var e : byLast.entrySet()) {
                    l.put(key("c_last", w, d, e.getKey()), val(e.getValue().stream()
                            .map(s -> s.substring(s.indexOf(':') + 1)).toArray()));
                }
                int[] perm = r.ints(1, scale.customers() + 1).distinct().limit(scale.customers()).toArray();
                for (int o = 1; o <= scale.customers(); o++) {
                    int c = perm[o - 1];
                    boolean delivered = o < scale.firstUndelivered();
                    int lines = 5 + r.nextInt(11);
                    l.put(key("o", w, d, o), val(c, o, delivered ? 1 + r.nextInt(10) : 0, lines, 1));
                    l.put(key("c_order", w, d, c), val(o));
                    if (!delivered) {
                        l.put(key("no", w, d, o), val(1));
                    }
                    for (int n = 1; n <= lines; n++) {
                        l.put(key("ol", w, d, o, n), val(1 + r.nextInt(scale.items()), w, delivered ? o : 0, 5,
                                delivered ? 0 : 1 + r.nextInt(999_999), text(r, 24, 24)));
                    }
                }
            }
            log.accept("loaded warehouse " + w + " (" + l.count + " keys so far)");
        }
        l.flush();
        CompletableFuture.allOf(l.promises.toArray(CompletableFuture[]::new)).join();
        return l.count;
    }

    /** Puts in transactions of about 512 KiB. */
    private final class Loader {
        private Txn tx;
        private int bytes;
        long count;
        final List<CompletableFuture<?>> promises = new ArrayList<>();
        private final Map<byte[], byte[]> pending = new LinkedHashMap<>();

        void put(byte[] k, byte[] v) {
            pending.put(k, v);
            bytes += k.length + v.length + 8;
            count++;
            if (bytes > 512 << 10) {
                flush();
            }
        }

        void flush() {
            if (pending.isEmpty()) {
                return;
            }
            while (true) {
                try {
                    tx = client.begin();
                    pending.forEach(tx::put);
                    promises.add(tx.commit().verification());
                    break;
                } catch (GlassLedgerException e) {
                    if (!e.retryable()) {
                        throw e;
                    }
                    LockSupport.parkNanos(50_000_000);
                }
            }
            pending.clear();
            bytes = 0;
        }
    }

    // ------------------------------------------------------------------ run

    /** Counts and latencies of a window, per transaction type. */
    static final class Load {
        volatile boolean measuring;
        volatile boolean stop;
        volatile Throwable error;
        final Ycsb.Latencies[] latency = new Ycsb.Latencies[TYPES.size()];
        final java.util.concurrent.atomic.AtomicLongArray committed = new java.util.concurrent.atomic.AtomicLongArray(
                TYPES.size());
        final java.util.concurrent.atomic.AtomicLongArray conflicts = new java.util.concurrent.atomic.AtomicLongArray(
                TYPES.size());
        final java.util.concurrent.atomic.AtomicLong rolledBack = new java.util.concurrent.atomic.AtomicLong();
        final ConcurrentLinkedQueue<CommitPromise> promises = new ConcurrentLinkedQueue<>();

        Load() {
            for (int i = 0; i < latency.length; i++) {
                latency[i] = new Ycsb.Latencies();
            }
        }
    }

    Load run(int terminals, double warmup, double seconds) throws InterruptedException {
        Load load = new Load();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < terminals; t++) {
            int id = t;
            Thread th = new Thread(() -> terminal(id, load), "tpcc-" + t);
            th.setDaemon(true);
            threads.add(th);
            th.start();
        }
        Thread.sleep((long) (warmup * 1000));
        load.measuring = true;
        Thread.sleep((long) (seconds * 1000));
        load.measuring = false;
        load.stop = true;
        for (Thread th : threads) {
            th.join(120_000);
        }
        return load;
    }

    private void terminal(int id, Load load) {
        SplittableRandom r = new SplittableRandom(31L * id + System.nanoTime());
        int w = id % scale.warehouses() + 1;
        long[] seq = {0};
        try {
            while (!load.stop) {
                int roll = r.nextInt(100);
                int type = 0;
                while (roll >= MIX[type]) {
                    type++;
                }
                long t0 = System.nanoTime();
                while (!load.stop) {
                    try {
                        CommitPromise p = switch (type) {
                            case 0 -> newOrder(r, w, load);
                            case 1 -> payment(r, w, id, ++seq[0]);
                            case 2 -> orderStatus(r, w);
                            case 3 -> delivery(r, w);
                            case 4 -> stockLevel(r, w);
                            default -> warehouseBalance(w);
                        };
                        if (load.measuring) {
                            load.latency[type].add(System.nanoTime() - t0);
                            if (p != null) {
                                load.committed.incrementAndGet(type);
                                load.promises.add(p);
                            } else if (type == 5) {
                                load.committed.incrementAndGet(type);
                            }
                        }
                        break;
                    } catch (GlassLedgerException e) {
                        if (Refusal.of(e) == Refusal.OVERLOADED) {
                            Refusal.backOff(r);
                        } else if (load.measuring) {
                            load.conflicts.incrementAndGet(type);
                        }
                    }
                }
            }
        } catch (Throwable t) {
            load.error = t;
            load.stop = true;
        }
    }

    private static byte[] need(List<byte[]> vs, int i, byte[] k) {
        byte[] v = vs.get(i);
        if (v == null) {
            throw new IllegalStateException("missing " + new String(k, StandardCharsets.UTF_8));
        }
        return v;
    }

    /** Null: the 1% of orders with an unused item, rolled back (TPC-C §2.4.1.4). */
    private CommitPromise newOrder(SplittableRandom r, int w, Load load) {
        int d = 1 + r.nextInt(DISTRICTS);
        int c = nuRand(r, 1023, cId, 1, scale.customers());
        int lines = 5 + r.nextInt(11);
        boolean rollback = r.nextInt(100) == 0;
        TreeSet<Integer> distinct = new TreeSet<>();
        while (distinct.size() < lines) {
            distinct.add(nuRand(r, 8191, olI, 1, scale.items()));
        }
        List<Integer> items = new ArrayList<>(distinct);
        if (rollback) {
            items.set(lines - 1, scale.items() + 1);
        }
        int[] supply = new int[lines];
        int[] qty = new int[lines];
        boolean allLocal = true;
        for (int n = 0; n < lines; n++) {
            supply[n] = scale.warehouses() > 1 && r.nextInt(100) == 0 ? otherWarehouse(r, w) : w;
            allLocal &= supply[n] == w;
            qty[n] = 1 + r.nextInt(10);
        }
        Txn tx = client.begin();
        List<byte[]> keys = new ArrayList<>(List.of(key("w", w), key("d", w, d), key("d_next", w, d),
                key("c_info", w, d, c)));
        for (int n = 0; n < lines; n++) {
            keys.add(key("i", items.get(n)));
            keys.add(key("s", supply[n], items.get(n)));
            keys.add(key("s_info", supply[n], items.get(n)));
        }
        List<byte[]> vs = tx.getAll(keys);
        for (int n = 0; n < lines; n++) {
            if (vs.get(4 + 3 * n) == null) {
                if (load.measuring) {
                    load.rolledBack.incrementAndGet();
                }
                return null;
            }
        }
        long oId = num(need(vs, 2, keys.get(2)), 0);
        tx.put(key("d_next", w, d), val(oId + 1));
        for (int n = 0; n < lines; n++) {
            long price = num(vs.get(4 + 3 * n), 0);
            String[] s = fields(need(vs, 5 + 3 * n, keys.get(5 + 3 * n)));
            long sQty = Long.parseLong(s[0]);
            sQty = sQty >= qty[n] + 10 ? sQty - qty[n] : sQty - qty[n] + 91;
            tx.put(key("s", supply[n], items.get(n)), val(sQty, Long.parseLong(s[1]) + qty[n],
                    Long.parseLong(s[2]) + 1, Long.parseLong(s[3]) + (supply[n] == w ? 0 : 1)));
            String dist = fields(need(vs, 6 + 3 * n, keys.get(6 + 3 * n)))[0];
            tx.put(key("ol", w, d, oId, n + 1), val(items.get(n), supply[n], 0, qty[n], qty[n] * price, dist));
        }
        tx.put(key("o", w, d, oId), val(c, System.currentTimeMillis(), 0, lines, allLocal ? 1 : 0));
        tx.put(key("no", w, d, oId), val(1));
        tx.put(key("c_order", w, d, c), val(oId));
        return tx.commit();
    }

    private int otherWarehouse(SplittableRandom r, int w) {
        int o = 1 + r.nextInt(scale.warehouses() - 1);
        return o >= w ? o + 1 : o;
    }

    /** A customer by id (40%) or by last name (60%, the middle one by first name); returns its id. */
    private int customer(Txn tx, SplittableRandom r, int w, int d) {
        if (r.nextInt(100) < 60) {
            String last = lastName(nuRand(r, 255, cLoad, 0, Math.min(999, scale.customers() - 1)));
            byte[] ids = tx.get(key("c_last", w, d, last));
            if (ids != null) {
                String[] f = fields(ids);
                return Integer.parseInt(f[(f.length - 1) / 2]);
            }
        }
        return nuRand(r, 1023, cId, 1, scale.customers());
    }

    private CommitPromise payment(SplittableRandom r, int w, int terminal, long seq) {
        int d = 1 + r.nextInt(DISTRICTS);
        int cw = w;
        int cd = d;
        if (scale.warehouses() > 1 && r.nextInt(100) < 15) {
            cw = otherWarehouse(r, w);
            cd = 1 + r.nextInt(DISTRICTS);
        }
        long amount = 100 + r.nextInt(500_000);
        Txn tx = client.begin();
        int c = customer(tx, r, cw, cd);
        List<byte[]> keys = List.of(key("w_ytd", w), key("d_ytd", w, d), key("c", cw, cd, c));
        List<byte[]> vs = tx.getAll(keys);
        tx.put(keys.get(0), val(num(need(vs, 0, keys.get(0)), 0) + amount));
        tx.put(keys.get(1), val(num(need(vs, 1, keys.get(1)), 0) + amount));
        String[] cf = fields(need(vs, 2, keys.get(2)));
        tx.put(keys.get(2), val(Long.parseLong(cf[0]) - amount, Long.parseLong(cf[1]) + amount,
                Long.parseLong(cf[2]) + 1, cf[3]));
        tx.put(key("h", cw, cd, c, "t" + terminal + "-" + seq + "-" + tx.txId().hex().substring(0, 8)),
                val(amount, w, d));
        return tx.commit();
    }

    private CommitPromise orderStatus(SplittableRandom r, int w) {
        int d = 1 + r.nextInt(DISTRICTS);
        Txn tx = client.begin();
        int c = customer(tx, r, w, d);
        List<byte[]> vs = tx.getAll(List.of(key("c", w, d, c), key("c_info", w, d, c), key("c_order", w, d, c)));
        if (vs.get(2) != null) {
            long o = num(vs.get(2), 0);
            byte[] order = tx.get(key("o", w, d, o));
            int lines = (int) num(order, 3);
            List<byte[]> ol = new ArrayList<>();
            for (int n = 1; n <= lines; n++) {
                ol.add(key("ol", w, d, o, n));
            }
            tx.getAll(ol);
        }
        return tx.commit();
    }

    private CommitPromise delivery(SplittableRandom r, int w) {
        int carrier = 1 + r.nextInt(10);
        Txn tx = client.begin();
        List<byte[]> ptrs = new ArrayList<>();
        for (int d = 1; d <= DISTRICTS; d++) {
            ptrs.add(key("d_deliv", w, d));
        }
        List<byte[]> next = tx.getAll(ptrs);
        List<byte[]> probe = new ArrayList<>();
        for (int d = 1; d <= DISTRICTS; d++) {
            probe.add(key("no", w, d, num(next.get(d - 1), 0)));
            probe.add(key("o", w, d, num(next.get(d - 1), 0)));
        }
        List<byte[]> found = tx.getAll(probe);
        for (int d = 1; d <= DISTRICTS; d++) {
            if (found.get(2 * (d - 1)) == null) {
                continue;  // no undelivered order in this district
            }
            long o = num(next.get(d - 1), 0);
            String[] of = fields(found.get(2 * (d - 1) + 1));
            int c = Integer.parseInt(of[0]);
            int lines = Integer.parseInt(of[3]);
            List<byte[]> olKeys = new ArrayList<>();
            for (int n = 1; n <= lines; n++) {
                olKeys.add(key("ol", w, d, o, n));
            }
            olKeys.add(key("c", w, d, c));
            List<byte[]> vs = tx.getAll(olKeys);
            long sum = 0;
            long now = System.currentTimeMillis();
            for (int n = 0; n < lines; n++) {
                String[] l = fields(need(vs, n, olKeys.get(n)));
                sum += Long.parseLong(l[4]);
                tx.put(olKeys.get(n), val(l[0], l[1], now, l[3], l[4], l[5]));
            }
            String[] cf = fields(need(vs, lines, olKeys.get(lines)));
            tx.put(olKeys.get(lines), val(Long.parseLong(cf[0]) + sum, cf[1], cf[2], Long.parseLong(cf[3]) + 1));
            tx.put(key("o", w, d, o), val(of[0], of[1], carrier, of[3], of[4]));
            tx.delete(key("no", w, d, o));
            tx.put(key("d_deliv", w, d), val(o + 1));
        }
        return tx.commit();
    }

    private CommitPromise stockLevel(SplittableRandom r, int w) {
        int d = 1 + r.nextInt(DISTRICTS);
        Txn tx = client.begin();
        long next = num(tx.get(key("d_next", w, d)), 0);
        List<byte[]> orders = new ArrayList<>();
        for (long o = Math.max(1, next - 20); o < next; o++) {
            orders.add(key("o", w, d, o));
        }
        List<byte[]> ov = tx.getAll(orders);
        List<byte[]> lines = new ArrayList<>();
        for (int i = 0; i < ov.size(); i++) {
            long o = next - ov.size() + i;
            for (int n = 1; n <= num(ov.get(i), 3); n++) {
                lines.add(key("ol", w, d, o, n));
            }
        }
        TreeSet<Long> items = new TreeSet<>();
        for (byte[] l : tx.getAll(lines)) {
            items.add(num(l, 0));
        }
        // the terminal's answer is how many of these are below the threshold; reading them is the work
        tx.getAll(items.stream().map(i -> key("s", w, i)).toList());
        return tx.commit();
    }

    /** {@code VerifiedWarehouseBalance}: the last 10 versions of w_ytd, proven (no promise: proven on return). */
    private CommitPromise warehouseBalance(int w) {
        List<Version> h = client.history(key("w_ytd", w), 10);
        if (h.isEmpty()) {
            throw new IllegalStateException("w_ytd of warehouse " + w + " has no history");
        }
        return null;
    }

    // ------------------------------------------------------------------ consistency

    /**
     * Checks TPC-C's consistency conditions 1–5 and 7 (§3.3.2), customer balances against delivered order lines
     * and payments (condition 10, with history amounts summed in c_ytd_payment) and that the payments credited to
     * warehouses equal those debited from customers (conditions 8 and 9 summed over the database). Every value is
     * read in read-only transactions whose promises must verify. Returns the violations (empty: consistent).
     */
    List<String> check(Consumer<String> log) {
        List<String> bad = new ArrayList<>();
        Reader rd = new Reader();
        long paidToWarehouses = 0;
        long paidByCustomers = 0;
        for (int w = 1; w <= scale.warehouses(); w++) {
            long wYtd = num(rd.get(key("w_ytd", w)), 0);
            paidToWarehouses += wYtd - W_YTD0;
            long dSum = 0;
            Map<Integer, Long> deliveredPerCustomer = new HashMap<>();
            for (int d = 1; d <= DISTRICTS; d++) {
                dSum += num(rd.get(key("d_ytd", w, d)), 0);
                long next = num(rd.get(key("d_next", w, d)), 0);
                long deliv = num(rd.get(key("d_deliv", w, d)), 0);
                String where = "w " + w + " d " + d + ": ";
                if (rd.get(key("o", w, d, next)) != null || rd.get(key("o", w, d, next - 1)) == null) {
                    bad.add(where + "d_next_o_id - 1 is not the highest order id (condition 2)");
                }
                List<byte[]> oKeys = new ArrayList<>();
                List<byte[]> noKeys = new ArrayList<>();
                for (long o = 1; o < next; o++) {
                    oKeys.add(key("o", w, d, o));
                    noKeys.add(key("no", w, d, o));
                }
                List<byte[]> os = rd.getAll(oKeys);
                List<byte[]> nos = rd.getAll(noKeys);
                List<byte[]> olKeys = new ArrayList<>();
                for (long o = 1; o < next; o++) {
                    byte[] ov = os.get((int) o - 1);
                    if (ov == null) {
                        bad.add(where + "order " + o + " missing below d_next_o_id (condition 2)");
                        continue;
                    }
                    for (int n = 1; n <= num(ov, 3) + 1; n++) {
                        olKeys.add(key("ol", w, d, o, n));
                    }
                }
                List<byte[]> ols = rd.getAll(olKeys);
                int at = 0;
                for (long o = 1; o < next; o++) {
                    byte[] ov = os.get((int) o - 1);
                    if (ov == null) {
                        continue;
                    }
                    String[] of = fields(ov);
                    boolean newOrder = nos.get((int) o - 1) != null;
                    if (newOrder != (o >= deliv)) {
                        bad.add(where + "new-order row of order " + o + (newOrder ? " present" : " absent")
                                + " against the delivery pointer " + deliv + " (conditions 3, 4)");
                    }
                    boolean carried = !of[2].equals("0");
                    if (carried == newOrder) {
                        bad.add(where + "order " + o + " carrier and new-order row disagree (condition 5)");
                    }
                    int lines = Integer.parseInt(of[3]);
                    long amount = 0;
                    for (int n = 1; n <= lines + 1; n++, at++) {
                        byte[] lv = ols.get(at);
                        if (n > lines) {
                            if (lv != null) {
                                bad.add(where + "order " + o + " has more lines than o_ol_cnt (condition 6)");
                            }
                            continue;
                        }
                        if (lv == null) {
                            bad.add(where + "order " + o + " line " + n + " missing (condition 6)");
                            continue;
                        }
                        String[] lf = fields(lv);
                        if (lf[2].equals("0") == carried) {
                            bad.add(where + "order " + o + " line " + n + " delivery date disagrees with the "
                                    + "carrier (condition 7)");
                        }
                        amount += Long.parseLong(lf[4]);
                    }
                    if (carried) {
                        deliveredPerCustomer.merge(Integer.parseInt(of[0]) + d * 1_000_000, amount, Long::sum);
                    }
                }
                List<byte[]> cKeys = new ArrayList<>();
                for (int c = 1; c <= scale.customers(); c++) {
                    cKeys.add(key("c", w, d, c));
                }
                List<byte[]> cs = rd.getAll(cKeys);
                for (int c = 1; c <= scale.customers(); c++) {
                    String[] cf = fields(cs.get(c - 1));
                    long balance = Long.parseLong(cf[0]);
                    long ytd = Long.parseLong(cf[1]);
                    paidByCustomers += ytd - 1000;
                    long delivered = deliveredPerCustomer.getOrDefault(c + d * 1_000_000, 0L);
                    if (balance != delivered - ytd) {
                        bad.add(where + "customer " + c + " balance " + balance + " != delivered " + delivered
                                + " - paid " + ytd + " (condition 10)");
                    }
                }
            }
            if (wYtd != dSum) {
                bad.add("w " + w + ": w_ytd " + wYtd + " != sum of d_ytd " + dSum + " (condition 1)");
            }
        }
        if (paidToWarehouses != paidByCustomers) {
            bad.add("payments credited to warehouses " + paidToWarehouses + " != debited from customers "
                    + paidByCustomers + " (conditions 8, 9)");
        }
        rd.verify();
        log.accept("consistency: read " + rd.keys + " keys in " + rd.promises.size() + " verified read-only "
                + "transactions; " + bad.size() + " violations");
        return bad;
    }

    /**
     * The checker's negative control: breaks condition 1 (w_ytd of warehouse 1 one cent off) and conditions 3 and 4
     * (district 1's delivery pointer moved back onto a delivered order), as an ordinary committed transaction.
     * {@link #check} must then report both; otherwise it checks nothing.
     */
    void corrupt() {
        Txn tx = client.begin();
        long ytd = num(tx.get(key("w_ytd", 1)), 0);
        long deliv = num(tx.get(key("d_deliv", 1, 1)), 0);
        tx.put(key("w_ytd", 1), val(ytd + 1));
        tx.put(key("d_deliv", 1, 1), val(deliv - 1));
        tx.commit().verification().orTimeout(60, TimeUnit.SECONDS).join();
    }

    /** Reads in read-only transactions of up to 2,000 keys, each verified through its promise. */
    private final class Reader {
        final List<CompletableFuture<?>> promises = new ArrayList<>();
        long keys;

        byte[] get(byte[] k) {
            return getAll(List.of(k)).get(0);
        }

        List<byte[]> getAll(List<byte[]> ks) {
            List<byte[]> out = new ArrayList<>(ks.size());
            for (int from = 0; from < ks.size(); from += 2000) {
                Txn tx = client.begin();
                out.addAll(tx.getAll(ks.subList(from, Math.min(ks.size(), from + 2000))));
                promises.add(tx.commit().verification());
            }
            keys += ks.size();
            return out;
        }

        void verify() {
            CompletableFuture.allOf(promises.toArray(CompletableFuture[]::new)).orTimeout(120, TimeUnit.SECONDS)
                    .join();
        }
    }
}
