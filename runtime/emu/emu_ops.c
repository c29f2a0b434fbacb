/* emu_ops.c: semantics of the gfx942 cross-lane instructions, each a function over the
 * 64 lanes of a wave (in = [64][in_size], out = [64][out_size], see emu_core.h).
 *
 * Sources: AMD Instinct MI300 (CDNA3) ISA reference guide, chapters "Matrix Arithmetic
 * Instructions" (MFMA operand layout), "Data Share Operations" (ds_swizzle_b32,
 * ds_bpermute_b32) and "VOP3 / v_perm_b32" (byte selection); lane layout of
 * v_mfma_f32_16x16x16_bf16 as printed by AMD's Matrix Instruction Calculator
 * (ROCm/amd_matrix_instruction_calculator, `--architecture cdna3 --instruction
 * v_mfma_f32_16x16x16_bf16 --register-layout`):
 *   A (16x16, 2 VGPRs = 4 bf16): lane l holds row l%16, k = 4*(l/16) + 0..3
 *   B (16x16, 4 bf16):           lane l holds column l%16, k = 4*(l/16) + 0..3
 *   C/D (16x16 fp32, 4 VGPRs):   lane l holds column l%16, rows 4*(l/16) + 0..3 (VGPR i = row
 *                                4*(l/16) + i)
 * Lower-numbered bf16 (bits 15:0 of the first VGPR) is the lower k. */
#include "emu_core.h"

#include <math.h>
#include <string.h>

#define W ATTNGEN__EMU_WAVE

static float bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* D = C + A*B with the 16 products (exact in double, bf16 x bf16) summed in double and
 * rounded once to fp32: the hardware's internal summation order is not specified, and the
 * numerics contract leaves the accumulation order to the kernel. */
void attngen__emu_exec_mfma_f32_16x16x16_bf16(const unsigned char *in, unsigned char *out,
                                              const void *imm) {
  (void)imm;
  float a[16][16], bt[16][16]; /* a[row][k], bt[col][k] */
  attngen__emu_mfma_in x[W];
  for (int l = 0; l < W; l++) memcpy(&x[l], in + (size_t)l * 64, sizeof x[l]);
  for (int l = 0; l < W; l++)
    for (int i = 0; i < 4; i++) {
      a[l % 16][4 * (l / 16) + i] = bf16_to_f32(x[l].a[i]);
      bt[l % 16][4 * (l / 16) + i] = bf16_to_f32(x[l].b[i]);
    }
  for (int l = 0; l < W; l++) {
    float d[4];
    int col = l % 16;
    for (int i = 0; i < 4; i++) {
      int row = 4 * (l / 16) + i;
      double s = (double)x[l].c[i];
      for (int k = 0; k < 16; k++) s += (double)a[row][k] * (double)bt[col][k];
      d[i] = (float)s;
    }
    memcpy(out + (size_t)l * 64, d, sizeof d);
  }
  attngen__emu_count_mfma();
}

/* Per lane in = {byte address, data}: lane l receives data of lane (addr[l] / 4) % 64. */
void attngen__emu_exec_ds_bpermute_b32(const unsigned char *in, unsigned char *out,
                                       const void *imm) {
  (void)imm;
  for (int l = 0; l < W; l++) {
    uint32_t addr, v;
    memcpy(&addr, in + (size_t)l * 64, 4);
    memcpy(&v, in + (size_t)((addr >> 2) & 63) * 64 + 4, 4);
    memcpy(out + (size_t)l * 64, &v, 4);
  }
}

/* ds_swizzle_b32, per lane in = {unused, data}, imm = uint32 offset. offset[15] = 1:
 * quad-permute mode, lane l reads lane (l & ~3) | offset[2*(l%4)+1 : 2*(l%4)].
 * offset[15] = 0: bit-mask mode within groups of 32, lane l reads
 * ((l & and_mask) | or_mask) ^ xor_mask with and = offset[4:0], or = offset[9:5],
 * xor = offset[14:10]. */
void attngen__emu_exec_ds_swizzle_b32(const unsigned char *in, unsigned char *out,
                                      const void *imm) {
  uint32_t off;
  memcpy(&off, imm, 4);
  for (int l = 0; l < W; l++) {
    int src;
    if (off & 0x8000u) {
      src = (l & ~3) | (int)((off >> (2 * (l & 3))) & 3);
    } else {
      int andm = (int)(off & 31), orm = (int)((off >> 5) & 31), xorm = (int)((off >> 10) & 31);
      src = (l & 32) | ((((l & 31) & andm) | orm) ^ xorm);
    }
    memcpy(out + (size_t)l * 64, in + (size_t)src * 64 + 4, 4);
  }
}


/* v_exp_f32: 2^x. The hardware result is approximate (about 1 ULP) and never denormal;
 * the emulator defines it as exp2f(x) with results below 2^-126 flushed to +0. */
float attngen__emu_v_exp_f32(float x) {
  float r = exp2f(x);
  if (r < 0x1p-126f) r = 0.0f;
  return r;
}

/* v_log_f32: log2(x) with denormal inputs flushed to zero (log2(+-0) = -inf). */
float attngen__emu_v_log_f32(float x) {
  if (x != 0.0f && fabsf(x) < 0x1p-126f) x = 0.0f;
  if (x == 0.0f) return -INFINITY;
  return log2f(x);
}

/* v_perm_b32: byte i of the result is chosen by byte i of sel from the 8 bytes {hi:lo}
 * (0-3 = bytes of lo, 4-7 = bytes of hi); 8-11 replicate the sign bit of bytes 1, 3, 5,
 * 7; 12 gives 0x00; 13-255 give 0xFF. */
uint32_t attngen__emu_v_perm_b32(uint32_t hi, uint32_t lo, uint32_t sel) {
  uint64_t v = ((uint64_t)hi << 32) | lo;
  uint32_t r = 0;
  for (int i = 0; i < 4; i++) {
    unsigned s = (sel >> (8 * i)) & 0xFF;
    uint32_t b;
    if (s <= 7)
      b = (uint32_t)(v >> (8 * s)) & 0xFF;
    else if (s <= 11)
      b = ((v >> (16 * (s - 8) + 15)) & 1) ? 0xFF : 0x00;
    else if (s == 12)
      b = 0x00;
    else
      b = 0xFF;
    r |= b << (8 * i);
  }
  return r;
}
