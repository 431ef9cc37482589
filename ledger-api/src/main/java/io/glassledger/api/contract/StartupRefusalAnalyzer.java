package io.glassledger.api.contract;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints a {@link StartupRefusal} as a short report, without a stack trace. Registered in each service's spring.factories. */
public class StartupRefusalAnalyzer extends AbstractFailureAnalyzer<StartupRefusal> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, StartupRefusal cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
