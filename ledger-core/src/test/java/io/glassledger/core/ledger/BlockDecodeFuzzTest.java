package io.glassledger.core.ledger;

import io.glassledger.verify.block.Block;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.core.postree.TreeParams;

/**
 * Block records (FORMAT.md §6.1) come from the store and, through the API, reach auditors; the genesis block's tree
 * parameters (§5.1) are decoded from its meta. Decoding either gives the value whose encoding is the input or throws
 * {@link MalformedException}.
 */
class BlockDecodeFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decode(byte[] data) {
        try {
            Block b = Block.decode(7, data);
            assertArrayEquals(data, b.encode(), "a block record has one encoding");
            b.hash();
        } catch (MalformedException expected) {
            // the documented failure
        }
        try {
            TreeParams p = TreeParams.decode(data);
            assertArrayEquals(data, p.encode(), "tree parameters have one encoding");
        } catch (MalformedException expected) {
            // the documented failure
        }
    }
}
