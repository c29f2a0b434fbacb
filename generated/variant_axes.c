/* attngen 0.1.0 | variant axes of generator/lua/config.lua | generated, do not edit */
#include "variant_axes.h"

const char *const attngen__layout_names[ATTNGEN__LAYOUT_COUNT] = {"bshd", "bhsd"};
const char *const attngen__rounding_names[ATTNGEN__ROUNDING_COUNT] = {"rtne", "rtna", "rtz"};
const char *const attngen__kv_split_names[ATTNGEN__SPLIT_COUNT] = {"off", "tail"};
const char *const attngen__v_path_names[ATTNGEN__V_PATH_COUNT] = {"perm", "vt"};
const char *const attngen__load_names[ATTNGEN__LOAD_COUNT] = {"thread", "tma"};
const char *const attngen__mask_names[ATTNGEN__MASK_COUNT] = {"none", "causal"};
const char *const attngen__skip_names[ATTNGEN__SKIP_COUNT] = {"off", "on"};
const char *const attngen__impl_names[ATTNGEN__IMPL_COUNT] = {"mfma", "mma", "wgmma"};
const char *const attngen__target_names[ATTNGEN__TARGET_COUNT] = {"gfx942", "sm90"};
const char *const attngen__target_arch[ATTNGEN__TARGET_COUNT] = {"gfx942", "sm_90a"};
const char *const attngen__target_backend[ATTNGEN__TARGET_COUNT] = {"hip", "cuda"};
