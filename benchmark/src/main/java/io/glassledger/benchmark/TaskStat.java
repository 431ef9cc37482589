package io.glassledger.benchmark;

/**
 * One line of Linux's {@code /proc/PID/stat} or {@code /proc/PID/task/TID/stat} (proc(5)): the task's id, its name
 * (the {@code comm} field, the same text as {@code /proc/PID/task/TID/comm}), its start time and the CPU it has used.
 *
 * <p>The name is in parentheses and may itself contain spaces and parentheses (a thread may name itself
 * {@code "a) (b"}), so it is taken as everything between the first {@code '('} and the <em>last</em> {@code ')'};
 * the fields after it are separated by single spaces.
 *
 * @param id         field 1, the process or thread id
 * @param name       field 2 without its parentheses; the kernel truncates it to 15 bytes
 * @param startTicks field 22, when the task started, in clock ticks after boot: with {@code id} it tells a thread
 *                   apart from a later one that was given the same id
 * @param cpuTicks   fields 14 and 15, user plus system time, in clock ticks; for a whole process this includes the
 *                   threads that have exited
 */
record TaskStat(long id, String name, long startTicks, long cpuTicks) {
    /**
     * Clock ticks per second of the times in {@code stat} ({@code getconf CLK_TCK}): USER_HZ, which Linux fixes at
     * 100 on the architectures this project runs on.
     */
    static final int TICKS_PER_SECOND = 100;

    // indexes of fields 14, 15 and 22 among the fields after the name, which start at field 3
    private static final int UTIME = 14 - 3;
    private static final int STIME = 15 - 3;
    private static final int STARTTIME = 22 - 3;

    /** Parses one stat line; IllegalArgumentException, with the line, if it is not one. */
    static TaskStat parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 1 || close < open || close + 2 > line.length()) {
            throw new IllegalArgumentException("not a /proc stat line: " + line);
        }
        String[] f = line.substring(close + 2).trim().split(" ");
        if (f.length <= STARTTIME) {
            throw new IllegalArgumentException("too few fields in /proc stat line: " + line);
        }
        try {
            return new TaskStat(Long.parseLong(line.substring(0, open).trim()), line.substring(open + 1, close),
                    Long.parseLong(f[STARTTIME]), Long.parseLong(f[UTIME]) + Long.parseLong(f[STIME]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a /proc stat line: " + line, e);
        }
    }

    /** True if {@code other} is the same thread as this one, read at another time (same id, same start). */
    boolean sameTask(TaskStat other) {
        return other.id == id && other.startTicks == startTicks;
    }
}
