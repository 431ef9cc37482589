package io.glassledger.benchmark;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU a process has used so far, in total and by thread, read from {@code /proc/PID/stat} and
 * {@code /proc/PID/task/TID/stat} (Linux). The reads are not atomic: a thread that starts or ends while they run
 * may be missing, and the total is read first, so it can lag the threads' sum by the CPU used during the read.
 *
 * @param processTicks user plus system clock ticks of the whole process, exited threads included
 * @param tasks        the threads alive at the read, by thread id
 */
record CpuSnapshot(long processTicks, Map<Long, TaskStat> tasks) {
    CpuSnapshot {
        tasks = Map.copyOf(tasks);
    }

    /** Reads process {@code pid}; IOException if the process is gone. */
    static CpuSnapshot read(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        long total = TaskStat.parse(Files.readString(proc.resolve("stat"))).cpuTicks();
        Map<Long, TaskStat> tasks = new LinkedHashMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(proc.resolve("task"))) {
            for (Path task : dir) {
                String line;
                try {
                    line = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended after the listing: it is not alive at this read
                }
                TaskStat t = TaskStat.parse(line);
                tasks.put(t.id(), t);
            }
        }
        return new CpuSnapshot(total, tasks);
    }
}
