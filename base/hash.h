/* hash.h: FNV-1a 64-bit, incremental; the JIT cache key and the cache entries' payload
 * checksum. Not cryptographic: it detects corruption and separates keys, nothing more. */
#ifndef ATTNGEN_HASH_H
#define ATTNGEN_HASH_H
#include <stddef.h>
#include <stdint.h>

#define ATTNGEN__FNV64_INIT 0xcbf29ce484222325ull

uint64_t attngen__fnv1a64(uint64_t h, const void *data, size_t n);
/* Hashes a string including its terminating NUL, so ("ab","c") and ("a","bc") differ. */
uint64_t attngen__fnv1a64_str(uint64_t h, const char *s);

#endif /* ATTNGEN_HASH_H */
