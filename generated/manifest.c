/* attngen 0.1.0 | manifest of the default variant set | generated, do not edit */
#include "variant.h"

const attngen__variant_desc attngen__manifest[] = {
  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} /* end */
};
const size_t attngen__manifest_count = 0;
