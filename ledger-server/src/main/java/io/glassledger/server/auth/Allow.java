package io.glassledger.server.auth;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The roles that may call a handler method (or, on a class, each of its handler methods that declares nothing of
 * its own). A handler with neither {@code @Allow} nor {@link Public} is denied to everyone, and the server refuses to
 * start with one ({@link RouteAccess}). A handler may check more inside (a client reads only its own registration).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Allow {
    Role[] value();
}
