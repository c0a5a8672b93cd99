/* The yardstick for `kvplan replay`'s speed: the plainest single-threaded float32 decode attention
 * over a kvplan trace, as llama2.c computes it (run.c, `forward`: scores q·k / sqrt(d) over
 * positions 0..t, softmax, weighted sum of V), at every step t, for every layer and query head.
 * Keys are rotated (RoPE, as the trace's metadata says) once when they enter the cache, the query
 * at every step. bench/replay_vs_naive.sh builds it with -O2 and times it against the replay.
 *
 *   cc -O2 -std=c11 -o naive_attention bench/naive_attention.c -lm
 *   ./naive_attention synth4k.safetensors     ->  "naive: 4096 steps, 2 layers, 8/2 heads, d 64:
 *                                                   5.41 s, checksum ..."
 *
 * It reads the .safetensors file itself (F32, F16 or BF16 tensors `layers.{l}.q|k|v`), with a
 * reader that only knows the layout kvplan writes; it is a benchmark, not a validator.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char* what) {
  fprintf(stderr, "naive_attention: %s\n", what);
  exit(2);
}

static float half_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  float f;
  if (e == 0) {
    f = ldexpf((float)m, -24);
  } else if (e == 31) {
    f = m ? NAN : INFINITY;
  } else {
    f = ldexpf((float)(m | 0x400u), (int)e - 25);
  }
  uint32_t u;
  memcpy(&u, &f, 4);
  u |= sign;
  memcpy(&f, &u, 4);
  return f;
}

/* Finds `"name":{...}` in the header and reads its dtype, shape and offsets. */
static void find_tensor(const char* hdr, const char* name, char* dtype, uint64_t shape[3],
                        uint64_t off[2]) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\":{", name);
  const char* p = strstr(hdr, key);
  if (!p) die("tensor missing from the header");
  const char* end = strchr(p, '}');
  const char* d = strstr(p, "\"dtype\":\"");
  const char* s = strstr(p, "\"shape\":[");
  const char* o = strstr(p, "\"data_offsets\":[");
  if (!d || !s || !o || d > end || s > end || o > end) die("tensor entry incomplete");
  if (sscanf(d + 9, "%7[A-Z0-9]", dtype) != 1) die("bad dtype");
  if (sscanf(s + 9, "%lu,%lu,%lu", &shape[0], &shape[1], &shape[2]) != 3) die("bad shape");
  if (sscanf(o + 16, "%lu,%lu", &off[0], &off[1]) != 2) die("bad offsets");
}

static void meta_string(const char* hdr, const char* key, char* out, size_t cap) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":\"", key);
  const char* p = strstr(hdr, k);
  if (!p) die("metadata key missing");
  p += strlen(k);
  size_t i = 0;
  while (p[i] && p[i] != '"' && i + 1 < cap) out[i] = p[i], ++i;
  out[i] = 0;
}

/* The tensor as float32, [shape0 * shape1 * shape2]. */
static float* load_tensor(const unsigned char* data, const char* dtype, uint64_t n,
                          const uint64_t off[2]) {
  float* x = malloc(n * sizeof(float));
  if (!x) die("out of memory");
  const unsigned char* p = data + off[0];
  for (uint64_t i = 0; i < n; ++i) {
    if (!strcmp(dtype, "F32")) {
      memcpy(&x[i], p + 4 * i, 4);
    } else {
      uint16_t h;
      memcpy(&h, p + 2 * i, 2);
      if (!strcmp(dtype, "F16")) {
        x[i] = half_to_float(h);
      } else if (!strcmp(dtype, "BF16")) {
        uint32_t u = (uint32_t)h << 16;
        memcpy(&x[i], &u, 4);
      } else {
        die("dtype is not F32, F16 or BF16");
      }
    }
  }
  return x;
}

/* RoPE as llama2.c (interleaved pairs) or Hugging Face Llama (half): angle pos * theta^(-i/dims).
 */
static void rope(float* x, int dims, float theta, int half_style, float pos) {
  for (int i = 0; i < dims / 2; ++i) {
    const float freq = 1.0f / powf(theta, (float)(2 * i) / (float)dims);
    const float c = cosf(pos * freq), s = sinf(pos * freq);
    const int i0 = half_style ? i : 2 * i, i1 = half_style ? i + dims / 2 : 2 * i + 1;
    const float v0 = x[i0], v1 = x[i1];
    x[i0] = v0 * c - v1 * s;
    x[i1] = v0 * s + v1 * c;
  }
}

int main(int argc, char** argv) {
  if (argc != 2) die("usage: naive_attention TRACE.safetensors");
  FILE* f = fopen(argv[1], "rb");
  if (!f) die("cannot open the trace");
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* file = malloc((size_t)size + 1);
  if (!file || fread(file, 1, (size_t)size, f) != (size_t)size) die("cannot read the trace");
  fclose(f);
  uint64_t hlen;
  memcpy(&hlen, file, 8);
  if (hlen + 8 > (uint64_t)size) die("header longer than the file");
  char* hdr = malloc(hlen + 1);
  memcpy(hdr, file + 8, hlen);
  hdr[hlen] = 0;
  const unsigned char* data = file + 8 + hlen;

  char style[32], buf[32];
  meta_string(hdr, "rope_style", style, sizeof style);
  meta_string(hdr, "rope_theta", buf, sizeof buf);
  const float theta = strtof(buf, NULL);
  meta_string(hdr, "rope_dims", buf, sizeof buf);
  int L = 0;
  for (;; ++L) {
    char name[32];
    snprintf(name, sizeof name, "\"layers.%d.q\"", L);
    if (!strstr(hdr, name)) break;
  }
  if (L == 0) die("no layers.0.q tensor");

  float **Q = calloc(L, sizeof *Q), **K = calloc(L, sizeof *K), **V = calloc(L, sizeof *V);
  uint64_t T = 0, Hq = 0, Hkv = 0, d = 0;
  for (int l = 0; l < L; ++l) {
    char name[32], dtype[8];
    uint64_t sq[3], sk[3], off[2];
    snprintf(name, sizeof name, "layers.%d.q", l);
    find_tensor(hdr, name, dtype, sq, off);
    Q[l] = load_tensor(data, dtype, sq[0] * sq[1] * sq[2], off);
    snprintf(name, sizeof name, "layers.%d.k", l);
    find_tensor(hdr, name, dtype, sk, off);
    K[l] = load_tensor(data, dtype, sk[0] * sk[1] * sk[2], off);
    snprintf(name, sizeof name, "layers.%d.v", l);
    find_tensor(hdr, name, dtype, sk, off);
    V[l] = load_tensor(data, dtype, sk[0] * sk[1] * sk[2], off);
    T = sq[0], Hq = sq[1], Hkv = sk[1], d = sq[2];
  }
  const int dims = atoi(buf) ? atoi(buf) : (int)d;
  const int half_style = strcmp(style, "half") == 0;
  const uint64_t kvw = Hkv * d, group = Hq / Hkv;

  /* The timed part: the cache fills step by step, attention over all of it at every step. */
  float** kcache = calloc(L, sizeof *kcache); /* per layer: RoPE'd keys, [T, Hkv, d] */
  for (int l = 0; l < L; ++l) kcache[l] = malloc(T * kvw * sizeof(float));
  float* q = malloc(Hq * d * sizeof(float));
  float* att = malloc(T * sizeof(float));
  float* out = malloc(Hq * d * sizeof(float));
  double checksum = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (uint64_t t = 0; t < T; ++t) {
    for (int l = 0; l < L; ++l) {
      float* kt = kcache[l] + t * kvw;
      memcpy(kt, K[l] + t * kvw, kvw * sizeof(float));
      for (uint64_t h = 0; h < Hkv; ++h) rope(kt + h * d, dims, theta, half_style, (float)t);
      memcpy(q, Q[l] + t * Hq * d, Hq * d * sizeof(float));
      for (uint64_t h = 0; h < Hq; ++h) {
        float* qh = q + h * d;
        rope(qh, dims, theta, half_style, (float)t);
        const uint64_t koff = (h / group) * d;
        for (uint64_t s = 0; s <= t; ++s) {
          const float* k = kcache[l] + s * kvw + koff;
          float score = 0.0f;
          for (uint64_t i = 0; i < d; ++i) score += qh[i] * k[i];
          att[s] = score / sqrtf((float)d);
        }
        float mx = att[0];
        for (uint64_t s = 1; s <= t; ++s)
          if (att[s] > mx) mx = att[s];
        float sum = 0.0f;
        for (uint64_t s = 0; s <= t; ++s) {
          att[s] = expf(att[s] - mx);
          sum += att[s];
        }
        for (uint64_t s = 0; s <= t; ++s) att[s] /= sum;
        float* o = out + h * d;
        memset(o, 0, d * sizeof(float));
        for (uint64_t s = 0; s <= t; ++s) {
          const float* v = V[l] + s * kvw + koff;
          for (uint64_t i = 0; i < d; ++i) o[i] += att[s] * v[i];
        }
      }
      for (uint64_t i = 0; i < Hq * d; ++i) checksum += out[i];
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("naive: %lu steps, %d layers, %lu/%lu heads, d %lu: %.3f s, checksum %.6f\n",
         (unsigned long)T, L, (unsigned long)Hq, (unsigned long)Hkv, (unsigned long)d, sec,
         checksum);
  return 0;
}
