package io.glassledger.client.cli;

/** A command line that cannot be run as given: exit {@link Exit#USAGE}, with the message and the usage text. */
final class Usage extends RuntimeException {
    static final Usage HELP = new Usage("help");

    Usage(String message) {
        super(message);
    }
}
