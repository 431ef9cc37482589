package io.glassledger.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TestPortsTest {
    @Test
    void bases_keepEveryLayerOutsideTheEphemeralRange() {
        int[] ephemeral = {32_768, 60_999};
        List<Integer> bases = TestPorts.bases(ephemeral);
        assertThat(bases).hasSize(80);  // regions 10000, 15000, 20000, 25000; 20 bases each
        for (int b : bases) {
            int highest = b + TestPorts.LAYER * (TestPorts.LAYERS - 1) + TestPorts.WIDTH - 1;
            assertThat(highest).as("block %d", b).isLessThan(ephemeral[0]);
        }
    }

    @Test
    void bases_withTheWholeRangeEphemeral_areNone() {
        assertThat(TestPorts.bases(new int[] {1_024, 65_535})).isEmpty();
    }

    @Test
    void block_twice_givesDisjointBlocks() {
        int a = TestPorts.block(TestPorts.WIDTH);
        int b = TestPorts.block(TestPorts.WIDTH);
        assertThat(Math.abs(a - b)).isGreaterThanOrEqualTo(TestPorts.WIDTH);
        assertThat(a % TestPorts.WIDTH).isZero();
        assertThat(TestPorts.free(a)).isTrue();
    }

    @Test
    void block_reservedByAnotherJvm_isNotHandedOutHere() throws Exception {
        Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Holder.class.getName()).start();
        try {
            String line = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertThat(line).as("the other JVM's block").isNotNull();
            int theirs = Integer.parseInt(line.trim());
            assertThat(TestPorts.reserve(theirs, 1)).as("block %d, locked by pid %d", theirs, other.pid()).isFalse();
        } finally {
            other.destroy();
            other.waitFor(60, TimeUnit.SECONDS);
        }
    }

    /** Another test JVM: reserves a block, prints its base, and holds it until killed or its input ends. */
    static final class Holder {
        public static void main(String[] args) throws Exception {
            System.out.println(TestPorts.block(1));
            System.out.flush();
            System.in.read();
        }
    }
}
