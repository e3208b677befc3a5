#ifndef PERIMETER_BUILTINS_H
#define PERIMETER_BUILTINS_H

/* Compiler builtins that Swift does not expose, one inline function each. */

/* A hint that `address` will be read soon. Swift has no prefetch of its own; unlike a load, a
   prefetch never holds up the instructions after it, so many can be waiting for memory at once. */
static inline void perimeter_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/* sin and cos of `x` in one call to libm's sincos (one argument reduction for both). glibc's sincos
   returns exactly what its sin and cos do; Swift calls them separately. */
static inline void perimeter_sincos(double x, double *sine, double *cosine) {
    __builtin_sincos(x, sine, cosine);
}

/* `x` truncated toward zero, for an `x` the caller knows is well within `long`'s range: one
   instruction, where Swift's conversion also checks the range (a dozen per raster lookup). */
static inline long perimeter_truncate(double x) {
    return (long)x;
}

#endif
