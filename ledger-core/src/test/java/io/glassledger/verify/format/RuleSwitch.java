package io.glassledger.verify.format;

/**
 * The rule-ablation test's switch (see {@link FormatRule}): while installed, it turns off one rule at a time on the
 * thread that installed it, and records which rule rejected each input. Other threads see every rule enforced.
 * Lives in {@code io.glassledger.verify.format} because only this package can install a switch, and only in tests.
 */
public final class RuleSwitch implements AutoCloseable {
    private final Thread owner = Thread.currentThread();
    private FormatRule off;
    private FormatRule rejectedBy;

    private RuleSwitch() {
    }

    /** Installs a switch for the calling thread, with every rule on; {@link #close()} removes it. */
    public static RuleSwitch install() {
        RuleSwitch s = new RuleSwitch();
        FormatRule.ablation(s::enforced);
        return s;
    }

    /** Before an input is checked: switches {@code rule} off (null: none) and forgets which rule rejected the last. */
    public void switchOff(FormatRule rule) {
        off = rule;
        rejectedBy = null;
    }

    /** The first rule that rejected the input since {@link #switchOff}, or null. */
    public FormatRule rejectedBy() {
        return rejectedBy;
    }

    private boolean enforced(FormatRule rule) {
        if (Thread.currentThread() != owner) {
            return true;
        }
        if (rule == off) {
            return false;
        }
        if (rejectedBy == null) {
            rejectedBy = rule;
        }
        return true;
    }

    @Override
    public void close() {
        FormatRule.ablation(null);
    }
}
