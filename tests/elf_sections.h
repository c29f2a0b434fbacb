/* elf_sections.h: finds a section of an in-memory ELF64 little-endian image (a gfx942 code
 * object or an sm90 cubin) by name, for tests that compare the machine code of two
 * compilers' output byte for byte. */
#ifndef ATTNGEN_TEST_ELF_SECTIONS_H
#define ATTNGEN_TEST_ELF_SECTIONS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t attngen_test_le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* The bytes of section `name`: returns a pointer into img and sets *size, or NULL when img
 * is not an ELF64 image or has no such section (or the section has no bytes in the file). */
static inline const unsigned char *attngen_test_elf_section(const void *image, size_t n,
                                                            const char *name, size_t *size) {
  const unsigned char *img = image;
  if (n < 64 || memcmp(img, "\x7f" "ELF", 4) != 0 || img[4] != 2 || img[5] != 1) return NULL;
  const uint64_t shoff = attngen_test_le(img + 0x28, 8);
  const uint64_t shentsize = attngen_test_le(img + 0x3a, 2);
  const uint64_t shnum = attngen_test_le(img + 0x3c, 2);
  const uint64_t shstrndx = attngen_test_le(img + 0x3e, 2);
  if (shentsize < 64 || shstrndx >= shnum || shoff > n || shnum * shentsize > n - shoff)
    return NULL;
  const unsigned char *strhdr = img + shoff + shstrndx * shentsize;
  const uint64_t stroff = attngen_test_le(strhdr + 24, 8), strsize = attngen_test_le(strhdr + 32, 8);
  if (stroff > n || strsize > n - stroff) return NULL;
  for (uint64_t i = 0; i < shnum; i++) {
    const unsigned char *sh = img + shoff + i * shentsize;
    const uint64_t nm = attngen_test_le(sh, 4), type = attngen_test_le(sh + 4, 4);
    const uint64_t off = attngen_test_le(sh + 24, 8), sz = attngen_test_le(sh + 32, 8);
    if (nm >= strsize || type == 8 /* SHT_NOBITS */) continue;
    const char *s = (const char *)img + stroff + nm;
    if (strnlen(s, strsize - nm) == strsize - nm || strcmp(s, name) != 0) continue;
    if (off > n || sz > n - off) return NULL;
    *size = (size_t)sz;
    return img + off;
  }
  return NULL;
}

#endif /* ATTNGEN_TEST_ELF_SECTIONS_H */
