/* SPDX-License-Identifier: MIT */
/* Replays a fuzz corpus through LLVMFuzzerTestOneInput() without libFuzzer, so every normal
 * build (and the ASan/UBSan CI build) exercises the corpus. Argument: corpus directory or files.
 * An empty or missing corpus fails: a replay that replays nothing tests nothing. */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned n;

static int replay_file(const char *path) {
        char *buf;
        size_t size;
        int r;

        r = read_full_file_at(-100 /* AT_FDCWD */, path, &buf, &size);
        if (r < 0) {
                printf("not ok %u - %s: cannot read (%d)\n", ++n, path, r);
                return -1;
        }
        (void) LLVMFuzzerTestOneInput((const uint8_t *) buf, size);
        free(buf);
        printf("ok %u - %s\n", ++n, path);
        return 0;
}

int main(int argc, char **argv) {
        int failed = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
                struct dirent **names;
                int k;

                if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
                        failed |= replay_file(argv[i]) < 0;
                        continue;
                }
                k = scandir(argv[i], &names, NULL, alphasort);
                for (int j = 0; j < k; j++) {
                        char path[4096];

                        if (names[j]->d_name[0] != '.') {
                                snprintf(path, sizeof(path), "%s/%s", argv[i], names[j]->d_name);
                                failed |= replay_file(path) < 0;
                        }
                        free(names[j]);
                }
                if (k >= 0)
                        free(names);
        }
        printf("1..%u\n", n);
        return failed || n == 0;
}
