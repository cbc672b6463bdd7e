/* A structure-aware mutator for the module harnesses: byte flips almost
 * never survive the parser, so most of libFuzzer's own mutations of a
 * module die in the lexer and the passes behind it are never reached. This
 * one edits the text token by token, keeping it lexically valid:
 *
 *   - an axis name in quotes ("x") becomes another quoted name of the input
 *     (one occurrence, or every occurrence: a consistent rename);
 *   - a number becomes another number of the input or an edge value
 *     (axis sizes, dims of tensor<AxBxf32>, attribute values such as
 *     dimensions = [1], permutation, iota_dimension, sub-axis (pre)size);
 *   - a full axis reference "x" becomes a sub-axis "x":(1)2 and back;
 *   - an op name (stablehlo.add) becomes another op of the same family;
 *   - a shape tensor<AxB becomes tensor<B or tensor<2xAxB (rank changes).
 *
 * Half of the calls go to libFuzzer's own mutator (LLVMFuzzerMutate), so
 * the byte-level search still runs. Include this header from exactly one
 * translation unit of a harness; with libFuzzer linked in (SHARD_FUZZ_LIBFUZZER)
 * it defines LLVMFuzzerCustomMutator. */
#ifndef SHARD_FUZZ_MUTATOR_H
#define SHARD_FUZZ_MUTATOR_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct fuzz_tok {
  size_t off, len;
  char kind; /* 'q' quoted string, 'n' number, 'i' identifier (dotted) */
} fuzz_tok;

#define FUZZ_MAX_TOKS 4096

static inline uint32_t fuzz_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Quoted strings, numbers (optionally negative) and dotted identifiers. */
static inline size_t fuzz_tokens(const uint8_t *d, size_t n, fuzz_tok *t, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k < cap;) {
    uint8_t c = d[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < n && d[j] != '"' && d[j] != '\n' && j - i < 64) j++;
      if (j < n && d[j] == '"') t[k++] = (fuzz_tok){i, j + 1 - i, 'q'};
      i = j + 1;
    } else if (isdigit(c) || (c == '-' && i + 1 < n && isdigit(d[i + 1]))) {
      size_t j = i + 1;
      while (j < n && isdigit(d[j])) j++;
      t[k++] = (fuzz_tok){i, j - i, 'n'};
      i = j;
    } else if (isalpha(c) || c == '_') {
      size_t j = i + 1;
      while (j < n && (isalnum(d[j]) || d[j] == '_' || d[j] == '.')) j++;
      t[k++] = (fuzz_tok){i, j - i, 'i'};
      i = j;
    } else {
      i++;
    }
  }
  return k;
}

/* Replaces [off, off+len) with rep (rlen bytes); returns the new size, or
 * 0 when it would not fit. */
static inline size_t fuzz_splice(uint8_t *d, size_t n, size_t max, size_t off, size_t len, const char *rep,
                                 size_t rlen) {
  if (off > n || len > n - off || n - len + rlen > max) return 0;
  memmove(d + off + rlen, d + off + len, n - off - len);
  memcpy(d + off, rep, rlen);
  return n - len + rlen;
}

/* Families of ops with the same operands and results, so a swap keeps the
 * module well formed most of the time and moves it into another op's
 * verifier, sharding rule and interpreter code. */
static const char *const fuzz_op_families[][8] = {
    {"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
     "stablehlo.divide", "stablehlo.power", "stablehlo.remainder"},
    {"stablehlo.negate", "stablehlo.abs", "stablehlo.exponential", "stablehlo.tanh", "stablehlo.sqrt", "stablehlo.log",
     "stablehlo.sine", "stablehlo.floor"},
    {"stablehlo.and", "stablehlo.or", "stablehlo.xor", "stablehlo.shift_left", "stablehlo.add", "stablehlo.maximum",
     "stablehlo.minimum", "stablehlo.multiply"},
    {"stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim", "stablehlo.reverse", "stablehlo.convert",
     "stablehlo.copy", "sdy.sharding_constraint", "sdy.reshard"},
    {"sdy.all_gather", "sdy.all_slice", "sdy.all_to_all", "sdy.collective_permute", "sdy.all_reduce",
     "sdy.reduce_scatter", "sdy.reshard", "sdy.sharding_constraint"},
};

static const char *const fuzz_numbers[] = {"0", "1", "2", "3", "4", "8", "16", "-1", "6", "5", "7", "32"};

static inline size_t fuzz_mutate_text(uint8_t *d, size_t n, size_t max, uint32_t seed) {
  static fuzz_tok toks[FUZZ_MAX_TOKS];
  uint32_t s = seed * 2654435761u + 1;
  size_t nt = fuzz_tokens(d, n, toks, FUZZ_MAX_TOKS);
  if (nt == 0) return 0;
  size_t pick = fuzz_rand(&s) % nt;
  /* find a token of the wanted kind, starting at a random place */
  char want = "qqnnnnii"[fuzz_rand(&s) % 8];
  size_t at = nt;
  for (size_t k = 0; k < nt; k++) {
    size_t j = (pick + k) % nt;
    if (toks[j].kind == want) {
      at = j;
      break;
    }
  }
  if (at == nt) at = pick;
  fuzz_tok t = toks[at];
  char rep[96];
  size_t rlen = 0;
  switch (t.kind) {
  case 'q': {
    uint32_t how = fuzz_rand(&s) % 4;
    if (how == 0 && t.len + 12 < sizeof rep) {
      /* "x" -> "x":(1)2 with small pre-size and size */
      static const char *const subs[] = {":(1)2", ":(2)2", ":(1)4", ":(2)4", ":(4)2", ":(1)3"};
      memcpy(rep, d + t.off, t.len);
      const char *sub = subs[fuzz_rand(&s) % 6];
      memcpy(rep + t.len, sub, strlen(sub));
      rlen = t.len + strlen(sub);
      break;
    }
    /* another quoted string of the input */
    size_t other = at;
    for (size_t k = 0; k < nt; k++) {
      size_t j = (fuzz_rand(&s) % nt);
      if (toks[j].kind == 'q' && j != at) {
        other = j;
        break;
      }
    }
    if (other == at) return 0;
    fuzz_tok o = toks[other];
    if (o.len > sizeof rep) return 0;
    if (how == 1) {
      /* rename every occurrence of this name */
      char name[64];
      if (t.len > sizeof name) return 0;
      memcpy(name, d + t.off, t.len);
      memcpy(rep, d + o.off, o.len);
      size_t len = n;
      for (size_t k = nt; k-- > 0;) {
        if (toks[k].kind != 'q' || toks[k].len != t.len || memcmp(d + toks[k].off, name, t.len) != 0) continue;
        size_t got = fuzz_splice(d, len, max, toks[k].off, toks[k].len, rep, o.len);
        if (!got) return len == n ? 0 : len;
        len = got;
      }
      return len;
    }
    memcpy(rep, d + o.off, o.len);
    rlen = o.len;
    break;
  }
  case 'n': {
    uint32_t how = fuzz_rand(&s) % 3;
    if (how == 0) {
      const char *v = fuzz_numbers[fuzz_rand(&s) % (sizeof fuzz_numbers / sizeof *fuzz_numbers)];
      rlen = strlen(v);
      memcpy(rep, v, rlen);
    } else if (how == 1) {
      size_t j = fuzz_rand(&s) % nt;
      for (size_t k = 0; k < nt && toks[j].kind != 'n'; k++) j = (j + 1) % nt;
      if (toks[j].kind != 'n' || toks[j].len > 20) return 0;
      rlen = toks[j].len;
      memcpy(rep, d + toks[j].off, rlen);
    } else {
      /* a dim of a shape: drop it (AxB -> B) or add one (B -> 2xB) */
      bool in_shape = t.off + t.len < n && d[t.off + t.len] == 'x';
      if (!in_shape) return 0;
      if (fuzz_rand(&s) & 1) {
        rlen = 0; /* drop "Ax" */
        t.len++;
      } else {
        /* a dim longer than rep is left alone: snprintf would truncate it and
         * report the untruncated length (a stack overflow in fuzz_splice's
         * memcpy, found by fuzz_interp) */
        if (t.len + 2 >= sizeof rep) return 0;
        rlen = (size_t)snprintf(rep, sizeof rep, "2x%.*s", (int)t.len, (const char *)d + t.off);
      }
    }
    break;
  }
  case 'i': {
    size_t fams = sizeof fuzz_op_families / sizeof *fuzz_op_families;
    for (size_t f = 0; f < fams && !rlen; f++)
      for (size_t k = 0; k < 8; k++) {
        const char *op = fuzz_op_families[f][k];
        size_t oplen = strlen(op);
        /* the pretty form may drop the dialect ("stablehlo.add" or "add"
         * inside a generic string); match the full name only */
        if (t.len == oplen && memcmp(d + t.off, op, oplen) == 0) {
          const char *to = fuzz_op_families[f][fuzz_rand(&s) % 8];
          rlen = strlen(to);
          memcpy(rep, to, rlen);
          break;
        }
      }
    if (!rlen) {
      /* another identifier of the input: attribute names, enum values */
      size_t j = fuzz_rand(&s) % nt;
      for (size_t k = 0; k < nt && toks[j].kind != 'i'; k++) j = (j + 1) % nt;
      if (toks[j].kind != 'i' || toks[j].len > sizeof rep) return 0;
      rlen = toks[j].len;
      memcpy(rep, d + toks[j].off, rlen);
    }
    break;
  }
  }
  return fuzz_splice(d, n, max, t.off, t.len, rep, rlen);
}

#ifdef SHARD_FUZZ_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 2 == 0) {
    /* one to three structured edits */
    size_t n = size;
    int changed = 0;
    unsigned edits = 1 + (seed / 2) % 3;
    for (unsigned e = 0; e < edits; e++) {
      size_t got = fuzz_mutate_text(data, n, max_size, seed + e * 7919u);
      if (got) n = got, changed = 1;
    }
    if (changed) return n;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif

#endif
