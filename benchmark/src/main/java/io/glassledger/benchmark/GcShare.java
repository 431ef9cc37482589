package io.glassledger.benchmark;

/**
 * How much of a JVM's CPU in a window its garbage-collection threads used, from two {@link CpuSnapshot}s of the
 * process, one at each end of the window.
 *
 * <p><b>GC threads</b> are those whose name starts with {@code "GC Thread#"} or {@code "G1 "}: the names HotSpot 17
 * gives G1's threads (seen on the server JVM: {@code GC Thread#0}, {@code GC Thread#1} – the workers of the
 * stop-the-world pauses; {@code G1 Main Marker} and {@code G1 Conc#0} – concurrent marking; {@code G1 Refine#0},
 * {@code G1 Refine#1} – concurrent refinement; {@code G1 Service} – periodic work such as remembered-set
 * sampling). {@code GC Thread#N} is also the Parallel collector's name. The {@code VM Thread} is not counted: it
 * runs every safepoint operation, of which a collection pause is one, and its share is reported apart as an upper
 * bound of what the count may miss.
 *
 * <p><b>Threads that start or end in the window.</b> A thread alive at both ends (same id and start time) counts
 * its ticks at the end minus those at the start. A thread alive only at the end started in the window and counts
 * all its ticks. A thread alive only at the start ended in the window: what it used between the start and its end
 * can no longer be read, so it counts nothing and is counted in {@link #gcThreadsExited} (HotSpot 17 does not end
 * G1's threads, so this should stay 0). The whole process's ticks, the denominator, include ended threads.
 *
 * @param gcTicks         clock ticks of the GC threads in the window
 * @param vmThreadTicks   clock ticks of the VM Thread in the window
 * @param processTicks    clock ticks of the whole process in the window
 * @param gcThreads       GC threads alive at the end of the window
 * @param gcThreadsExited GC threads alive at the start and gone at the end
 */
record GcShare(long gcTicks, long vmThreadTicks, long processTicks, int gcThreads, int gcThreadsExited) {
    static final GcShare NONE = new GcShare(0, 0, 0, 0, 0);

    /** True for the name of a garbage-collection thread, as the class comment says. */
    static boolean isGcThread(String name) {
        return name.startsWith("GC Thread#") || name.startsWith("G1 ");
    }

    /** The window from {@code start} to {@code end}, two reads of the same process. */
    static GcShare between(CpuSnapshot start, CpuSnapshot end) {
        long gc = 0;
        long vm = 0;
        int alive = 0;
        for (TaskStat t : end.tasks().values()) {
            TaskStat before = start.tasks().get(t.id());
            long ticks = before != null && before.sameTask(t) ? t.cpuTicks() - before.cpuTicks() : t.cpuTicks();
            if (isGcThread(t.name())) {
                gc += ticks;
                alive++;
            } else if (t.name().equals("VM Thread")) {
                vm += ticks;
            }
        }
        int exited = 0;
        for (TaskStat t : start.tasks().values()) {
            TaskStat after = end.tasks().get(t.id());
            if (isGcThread(t.name()) && (after == null || !after.sameTask(t))) {
                exited++;
            }
        }
        return new GcShare(gc, vm, end.processTicks() - start.processTicks(), alive, exited);
    }

    /** Both windows together, e.g. the shards of a cluster over the same window. */
    GcShare plus(GcShare o) {
        return new GcShare(gcTicks + o.gcTicks, vmThreadTicks + o.vmThreadTicks, processTicks + o.processTicks,
                gcThreads + o.gcThreads, gcThreadsExited + o.gcThreadsExited);
    }

    /** GC ticks ÷ process ticks; NaN if the process used no CPU in the window. */
    double share() {
        return processTicks == 0 ? Double.NaN : (double) gcTicks / processTicks;
    }

    /** VM Thread ticks ÷ process ticks; NaN if the process used no CPU in the window. */
    double vmThreadShare() {
        return processTicks == 0 ? Double.NaN : (double) vmThreadTicks / processTicks;
    }

    static double seconds(long ticks) {
        return (double) ticks / TaskStat.TICKS_PER_SECOND;
    }
}
