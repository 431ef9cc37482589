package io.glassledger.api.contract;

import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Refuses to start when a {@code glassledger.*} property is set that the service does not know (a misspelt
 * {@code --glassledger.data-dri=...} would otherwise be ignored and the default used), naming it and the nearest
 * known one. Known means in the service's configuration metadata ({@link KnownProperties}), which docs/CONFIGURATION.md
 * is checked against. It checks the command line, system properties and configuration files, not environment
 * variables: {@code GLASSLEDGER_URL}, {@code GLASSLEDGER_PIN} and {@code GLASSLEDGER_API_KEY} are ledger-cli's, and
 * the same shell may start a server. Runs right after the configuration files are read, before anything is written
 * to the data directory.
 */
public class UnknownPropertiesCheck implements EnvironmentPostProcessor, Ordered {
    public static final String PREFIX = "glassledger.";

    @Override
    public int getOrder() {
        return ConfigDataEnvironmentPostProcessor.ORDER + 1;
    }

    private static String where(PropertySource<?> source) {
        return switch (source.getName()) {
            case "commandLineArgs" -> "the command line";
            case StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME -> "a -D system property";
            default -> source.getName();
        };
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        Map<String, String> given = new TreeMap<>();
        for (PropertySource<?> source : env.getPropertySources()) {
            if (StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(source.getName())) {
                continue;
            }
            ConfigurationPropertySource c = ConfigurationPropertySource.from(source);
            if (c instanceof IterableConfigurationPropertySource it) {
                for (ConfigurationPropertyName name : it) {
                    given.putIfAbsent(name.toString(), where(source));
                }
            }
        }
        ClassLoader loader = app.getClassLoader() != null ? app.getClassLoader() : getClass().getClassLoader();
        KnownProperties.load(loader, PREFIX).refusal(PREFIX, given).ifPresent(message -> {
            throw new StartupRefusal(message, "Correct or remove the property (docs/CONFIGURATION.md lists every "
                    + PREFIX + "* property with its default).", StartupRefusal.EXIT_CONFIG);
        });
    }
}
