/* hash.c: FNV-1a 64-bit. */
#include "hash.h"

uint64_t attngen__fnv1a64(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t attngen__fnv1a64_str(uint64_t h, const char *s) {
  if (!s) s = "";
  size_t n = 0;
  while (s[n]) n++;
  return attngen__fnv1a64(h, s, n + 1);
}
