package org.apache.bookkeeper.mledger.impl.cache;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** Reading the real objects' private state, and calling their private methods, for the observations. */
final class Reflect {
    private Reflect() {}

    static Field field(Class<?> owner, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException error) {
            throw new ExceptionInInitializerError(error);
        }
    }

    static Method method(Class<?> owner, String name) {
        try {
            Method method = owner.getDeclaredMethod(name);
            method.setAccessible(true);
            return method;
        } catch (NoSuchMethodException error) {
            throw new ExceptionInInitializerError(error);
        }
    }

    /** The nested class of {@code owner} called {@code simpleName}. */
    static Class<?> nested(Class<?> owner, String simpleName) {
        for (Class<?> nested : owner.getDeclaredClasses()) {
            if (nested.getSimpleName().equals(simpleName)) {
                return nested;
            }
        }
        throw new ExceptionInInitializerError(owner.getName() + " has no " + simpleName);
    }

    @SuppressWarnings("unchecked")
    static <T> T get(Field field, Object owner) {
        try {
            return (T) field.get(owner);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
    }

    static void setLong(Field field, Object owner, long value) {
        try {
            field.setLong(owner, value);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
    }

    /** Call a private method with no arguments; what it throws is thrown as it is. */
    static void call(Method method, Object owner) {
        try {
            method.invoke(owner);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        } catch (InvocationTargetException error) {
            throw error.getCause() instanceof RuntimeException runtime ? runtime
                    : new IllegalStateException(error.getCause());
        }
    }
}
