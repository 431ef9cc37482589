package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Ledger#scan}'s limit: "at most {@code limit}" live entries. */
class LedgerScanTest {
    private Ledger ledger;

    @BeforeEach
    void twoKeys() {
        ledger = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 0);
        ledger.append(List.of(new BlockSpec(1, List.of(), List.of(Mutation.put(Bytes.utf8("a"), Bytes.utf8("1")),
                Mutation.put(Bytes.utf8("b"), Bytes.utf8("2"))))));
    }

    @Test
    void scan_withLimitZero_returnsNoEntries() {
        assertEquals(List.of(), ledger.scan(null, null, 1, 0));
    }

    @Test
    void scan_withLimitOne_returnsOnlyTheFirstEntry() {
        List<Entry> one = ledger.scan(null, null, 1, 1);
        assertEquals(1, one.size());
        assertEquals(Bytes.utf8("a"), one.get(0).key());
    }

    @Test
    void scan_withLimitAboveTheCount_returnsEverything() {
        assertEquals(2, ledger.scan(null, null, 1, 10).size());
        assertEquals(1, ledger.scan(Bytes.utf8("b"), null, 1, 10).size());
        assertEquals(1, ledger.scan(null, Bytes.utf8("b"), 1, 10).size());
    }
}
