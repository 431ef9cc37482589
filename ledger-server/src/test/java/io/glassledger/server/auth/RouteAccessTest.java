package io.glassledger.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.springframework.web.method.HandlerMethod;

/** What a controller method declares: its own annotation, else its class's, else nothing (denied). */
class RouteAccessTest {
    static class Undeclared {
        public void handle() {
        }
    }

    @Allow(Role.AUDITOR)
    static class ClassDeclared {
        public void inherits() {
        }

        @Allow({Role.CLIENT, Role.ADMIN})
        public void overrides() {
        }

        @Public
        public void open() {
        }
    }

    static class Both {
        @Public
        @Allow(Role.ADMIN)
        public void confused() {
        }
    }

    static Access of(Object bean, String method) throws Exception {
        return RouteAccess.declared(new HandlerMethod(bean, bean.getClass().getMethod(method)));
    }

    @Test
    void undeclaredHandler_isDeniedToEveryRole() throws Exception {
        Access a = of(new Undeclared(), "handle");
        assertEquals(Access.DENIED, a);
        for (Role r : Role.values()) {
            assertEquals(false, a.permits(r), r.name());
        }
    }

    @Test
    void methodDeclaration_overridesTheClass() throws Exception {
        assertEquals(Access.of(Role.AUDITOR), of(new ClassDeclared(), "inherits"));
        assertEquals(Access.of(Role.CLIENT, Role.ADMIN), of(new ClassDeclared(), "overrides"));
        assertEquals(Access.PUBLIC, of(new ClassDeclared(), "open"));
    }

    @Test
    void publicAndAllowTogether_isRefused() {
        assertThrows(IllegalStateException.class, () -> of(new Both(), "confused"));
    }
}
