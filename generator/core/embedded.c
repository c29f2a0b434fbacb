/* embedded.c: lookup in the table of embedded Lua modules and templates. */
#include <string.h>
#include "embedded.h"

const attngen__embedded_file *attngen__embedded_find(const char *name) {
  for (size_t i = 0; i < attngen__embedded_sources_count; i++)
    if (strcmp(attngen__embedded_sources[i].name, name) == 0) return &attngen__embedded_sources[i];
  return NULL;
}
