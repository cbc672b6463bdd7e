/* A main for the fuzz harnesses when libFuzzer is not linked in (gcc, or a
 * normal build): runs LLVMFuzzerTestOneInput once per file named on the
 * command line, or per file in each directory named, so the saved corpus
 * and every past crash (regressions/) replay as an ordinary test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0, got;
  uint8_t *buf = shard_xmalloc(cap);
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = shard_xrealloc(buf, cap *= 2);
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int failures = 0, runs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
        failures += run_file(path);
        runs++;
      }
      if (d) closedir(d);
    } else {
      failures += run_file(argv[i]);
      runs++;
    }
  }
  printf("%d inputs replayed\n", runs);
  return failures != 0;
}
