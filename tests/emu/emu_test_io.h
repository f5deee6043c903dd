/* SPDX-License-Identifier: BSD-3-Clause */
/* What softmlx5's two-process tests share: whole reads and writes on their control socket. */
#ifndef EMU_TEST_IO_H
#define EMU_TEST_IO_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Writes (wr) or reads all len bytes of p on fd; -1 on an error or the peer's end. */
static inline int emu_test_full_io(int fd, void *p, size_t len, bool wr)
{
    uint8_t *b = (uint8_t *)p;

    while (len > 0) {
        ssize_t n = wr ? write(fd, b, len) : read(fd, b, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

#endif /* EMU_TEST_IO_H */
