#ifndef PERIMETER_PREFETCH_H
#define PERIMETER_PREFETCH_H

/* A hint that `address` will be read soon. Swift has no prefetch of its own; unlike a load, a
   prefetch never holds up the instructions after it, so many can be waiting for memory at once. */
static inline void perimeter_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
