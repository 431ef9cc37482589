package io.glassledger.verify.format;

/**
 * Every rule of docs/FORMAT.md that the reference's decoders and verifiers enforce, named after what it rejects.
 * Each rule is stated, with the test vectors that only it rejects (or the rules that imply it), in the vectors'
 * README (ledger-core/src/test/resources/vectors/README.md, "Rules"); the constant's argument is its FORMAT.md
 * section.
 *
 * <p>A check is written {@code if (broken && RULE.enforced()) throw ...}. {@link #enforced()} is asked only once the
 * input breaks the rule, so valid input never reaches it, and it answers true everywhere but in the rule-ablation
 * test. That test (ledger-core's RuleAblationTest) installs a switch, through a package-private hook that only this
 * package's test code reaches, which turns one rule off at a time on the test's own thread: it shows that some
 * vector fails without each rule, or that the README lists the rule as implied by others.
 *
 * <p>One rule may guard several places: every place that enforces the same statement of FORMAT.md (a decoder's
 * check and the constructor invariant behind it), so that switching it off switches off the statement.
 */
public enum FormatRule {
    // §1 primitives
    TRUNCATED("1.3"),
    VARINT_NOT_MINIMAL("1.1"),
    VARINT_TOO_LONG("1.1"),
    COUNT_EXCEEDS_INPUT("1.3"),

    // §3 entries: storage, proofs, and claims that own an entry
    KEY_EMPTY("3"),
    KEY_TOO_LONG("3"),
    VALUE_TOO_LONG("3"),

    // §4.4 node encoding
    NODE_LEVEL_OVER_254("4.4"),
    NODE_COUNT_OVER_LIMIT("4.4"),
    NODE_EMPTY("4.4"),
    LEAF_KEYS_UNSORTED("4.4"),
    LEAF_KEYS_DUPLICATE("4.4"),
    INDEX_SEPARATOR_EMPTY("4.4"),
    INDEX_SEPARATOR_TOO_LONG("4.4"),
    INDEX_SEPARATORS_UNSORTED("4.4"),
    INDEX_SEPARATORS_DUPLICATE("4.4"),
    INDEX_CHILD_COUNT_ZERO("4.4"),
    INDEX_COUNTS_OVER_2_48("4.3"),
    NODE_TRAILING("4.4"),

    // §5.1 tree parameters
    PARAMS_OVER_DECODING_LIMIT("5.1"),
    LEAF_TARGET_NOT_POWER_OF_TWO("5.1"),
    LEAF_TARGET_BELOW_2("5.1"),
    LEAF_MAX_BELOW_TARGET("5.1"),
    LEAF_MAX_OVER_LIMIT("5.1"),
    INDEX_TARGET_NOT_POWER_OF_TWO("5.1"),
    INDEX_TARGET_BELOW_2("5.1"),
    INDEX_MAX_BELOW_TARGET("5.1"),
    INDEX_MAX_OVER_1024("5.1"),
    PARAMS_TRAILING("5.1"),

    // §6 blocks
    BODY_VERSION_UNKNOWN("6.1"),
    TIMESTAMP_OVER_2_63("6.1"),
    TX_COUNT_OVER_LIMIT("6.1"),
    TX_ID_EMPTY("6.1"),
    TX_ID_OVER_256("6.1"),
    META_COUNT_OVER_LIMIT("6.1"),
    META_KEY_EMPTY("6.1"),
    META_KEY_OVER_1024("6.1"),
    META_KEY_NOT_PRINTABLE("6.1"),
    META_KEYS_UNSORTED("6.1"),
    META_KEYS_DUPLICATE("6.1"),
    META_VALUE_OVER_1_MIB("6.1"),
    BLOCK_RECORD_TRAILING("6.1"),
    GENESIS_FORMAT("6.2"),
    GENESIS_HASH("6.2"),
    GENESIS_TREE_MISSING("6.2"),

    // §7 upper tree
    INCLUSION_INDEX_OUT_OF_RANGE("7.1"),
    INCLUSION_PATH_TOO_LONG("7.1"),
    INCLUSION_PATH_TOO_SHORT("7.1"),
    CONSISTENCY_SIZES("7.2"),
    CONSISTENCY_EMPTY("7.2"),
    CONSISTENCY_TOO_LONG("7.2"),
    CONSISTENCY_TOO_SHORT("7.2"),
    CONSISTENCY_FIRST_ROOT_MISMATCH("7.2"),

    // §9.2 lower proof encoding
    ROOT_LEVEL_OVER_254("9.2"),
    SYMBOL_COUNT_OVER_LIMIT("9.2"),
    SYMBOL_PADDING_NOT_ZERO("9.2"),
    SYMBOLS_RUN_OUT("9.2"),
    SYMBOLS_LEFT_OVER("9.2"),
    NESTED_TOO_DEEP("9.2"),
    SEPARATOR_OVER_1024("9.2"),
    ENTRY_SYMBOL_IN_INDEX_NODE("9.2"),
    OWNER_OVER_LIMIT("9.2"),
    VALUE_MARKER_UNKNOWN("9.2"),

    // §9.3 lower proof evaluation
    NO_CLAIMS("9.3"),
    DUPLICATE_CLAIMS("9.3"),
    VALUE_CLAIMED_IN_EMPTY_TREE("9.3"),
    PART_OUT_OF_PLACE("9.3"),
    NODE_CONTENT_PRUNED("9.3"),
    CLAIM_NOT_COVERED("9.3"),
    UNREACHED_EXPANSION("9.3"),
    OWNER_OUT_OF_RANGE("9.3"),
    NON_OWNER_CLAIMED_PRESENT("9.3"),
    CLAIMED_KEY_IN_HASHED_FORM("9.3"),
    PRESENT_CLAIM_ON_HASHED_ENTRY("9.3"),

    // §10 keys proof
    KEYS_PROOF_TYPE("10.1"),
    ANCHOR_FORM_UNKNOWN("10.1"),
    UPPER_PATH_OVER_64("10.1"),
    KEYS_PROOF_TRAILING("10.1"),
    KEYS_BLOCK_AFTER_DIGEST("10.2"),
    TAIL_FORM_FOR_OLDER_BLOCK("10.2"),
    OLDER_FORM_AT_DIGEST_BLOCK("10.2"),
    KEYS_ROOT_MISMATCH("10.2"),
    PROOF_NOT_AT_DIGEST_BLOCK("10.3"),
    PROOF_NOT_AT_CLAIMED_BLOCK("10.3"),
    CLAIM_NOT_FOUND("10.3"),

    // §11 append-only proof
    APPEND_PROOF_TYPE("11"),
    APPEND_PATH_OVER_128("11"),
    APPEND_PROOF_TRAILING("11"),
    APPEND_BLOCKS_MISMATCH("11"),
    APPEND_NOT_FORWARD("11"),
    APPEND_FIRST_ROOT_MISMATCH("11"),
    APPEND_CONSISTENCY_FROM_ZERO("11"),
    APPEND_UPPER_ROOT_FROM_ZERO("11"),
    APPEND_PATHS_DISAGREE("11"),
    APPEND_SECOND_ROOT_MISMATCH("11"),

    // §12 history proof
    HISTORY_PROOF_TYPE("12"),
    OLDER_COUNT_OVER_LIMIT("12"),
    HISTORY_PROOF_TRAILING("12"),
    HISTORY_LIMIT_BELOW_1("12"),
    HISTORY_HEAD_NOT_AT_DIGEST("12"),
    HISTORY_VERSIONS_OVER_LIMIT("12"),
    HISTORY_PROOF_COUNT_MISMATCH("12"),
    HISTORY_ABSENT_KEY_HAS_ENTRY("12"),
    HISTORY_OLDER_PROOFS_WITHOUT_VERSIONS("12"),
    HISTORY_HEAD_NOT_FOUND("12"),
    HISTORY_HEAD_VERSION_MISMATCH("12"),
    HISTORY_OLDER_WRONG_BLOCK("12"),
    HISTORY_OLDER_NOT_FOUND("12"),
    HISTORY_NOT_BACK_IN_TIME("12"),
    HISTORY_OLDER_VERSION_MISMATCH("12"),
    HISTORY_INCOMPLETE("12"),

    // §14.1 transaction encoding
    TX_VERSION_UNKNOWN("14.1"),
    TX_SHARD_OVER_LIMIT("14.1"),
    TX_PARTICIPANTS_OVER_1024("14.1"),
    TX_PARTICIPANTS_DUPLICATE("14.1"),
    TX_SHARD_NOT_PARTICIPANT("14.1"),
    TX_OPS_OVER_LIMIT("14.1"),
    TX_READS_UNSORTED("14.1"),
    TX_READS_DUPLICATE("14.1"),
    TX_WRITES_UNSORTED("14.1"),
    TX_WRITES_DUPLICATE("14.1"),
    TX_KEY_EMPTY("14.1"),
    TX_KEY_TOO_LONG("14.1"),
    TX_VALUE_TOO_LONG("14.1"),
    TX_OP_UNKNOWN("14.1"),
    TX_TRAILING("14.1"),

    // §14.2 signed transaction record, §16 signed head: Ed25519 as §14.2 restricts it
    RECORD_LENGTH_OVER_LIMIT("14.2"),
    RECORD_TRAILING("14.2"),
    SIGNATURE_LENGTH("14.2"),
    SIGNATURE_KEY_INVALID("14.2"),
    SIGNATURE_S_NOT_BELOW_L("14.2"),
    SIGNATURE_R_SMALL_ORDER("14.2"),
    SIGNATURE_EQUATION("14.2");

    private final String section;

    FormatRule(String section) {
        this.section = section;
    }

    /** The section of docs/FORMAT.md that states the rule, such as {@code "9.2"}. */
    public String section() {
        return section;
    }

    /**
     * Whether input that breaks this rule is rejected: always, except on the thread of the rule-ablation test while
     * it switches this rule off. Ask only once the input is known to break the rule; the test also learns from the
     * call which rule rejected the input.
     */
    public boolean enforced() {
        Switch s = ablation;
        return s == null || s.enforced(this);
    }

    /** The rule-ablation test's view of the rules; see the class comment. */
    interface Switch {
        /** Called with a rule the input breaks: whether to reject it. */
        boolean enforced(FormatRule rule);
    }

    /** Null but while the rule-ablation test runs. */
    private static volatile Switch ablation;

    /** Installs (or, with null, removes) the ablation switch. Package-private: for this package's tests only. */
    static void ablation(Switch s) {
        ablation = s;
    }
}
