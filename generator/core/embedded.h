/* embedded.h: Lua modules and templates embedded into the library at build time
 * (the attngen_embed tool writes the table), looked up by repository-relative path. */
#ifndef ATTNGEN_EMBEDDED_H
#define ATTNGEN_EMBEDDED_H
#include <stddef.h>

typedef struct attngen__embedded_file {
  const char *name;           /* e.g. "generator/lua/config.lua", "templates/sm90/attn_fwd.cu.in" */
  const unsigned char *data;  /* NUL-terminated */
  size_t size;                /* without the NUL */
} attngen__embedded_file;

extern const attngen__embedded_file attngen__embedded_sources[];
extern const size_t attngen__embedded_sources_count;

/* Returns the embedded file of that name, or NULL. */
const attngen__embedded_file *attngen__embedded_find(const char *name);

#endif /* ATTNGEN_EMBEDDED_H */
