/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads a shared library's dynamic symbols and their version nodes (see elf_exports.h). */
#include "elf_exports.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct elf_image {
    const uint8_t *base;
    size_t size;
};

/* The section header of type `type`, or NULL. */
static const Elf64_Shdr *elf_section(const struct elf_image *img, uint32_t type)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img->base;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img->base + eh->e_shoff);

    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == type)
            return &sh[i];
    return NULL;
}

static bool elf_in_bounds(const struct elf_image *img, uint64_t off, uint64_t len)
{
    return off <= img->size && len <= img->size - off;
}

/* The name of version definition index `ndx` (from .gnu.version_d), or NULL. */
static const char *elf_verdef_name(const struct elf_image *img, const Elf64_Shdr *verdef,
                                   const char *strtab, uint16_t ndx)
{
    uint64_t off = verdef->sh_offset;

    for (uint64_t i = 0; i < verdef->sh_info; i++) {
        const Elf64_Verdef *vd;
        const Elf64_Verdaux *aux;

        if (!elf_in_bounds(img, off, sizeof(*vd)))
            return NULL;
        vd = (const Elf64_Verdef *)(img->base + off);
        if (vd->vd_ndx == ndx) {
            if (!elf_in_bounds(img, off + vd->vd_aux, sizeof(*aux)))
                return NULL;
            aux = (const Elf64_Verdaux *)(img->base + off + vd->vd_aux);
            return strtab + aux->vda_name;
        }
        if (vd->vd_next == 0)
            break;
        off += vd->vd_next;
    }
    return NULL;
}

static int elf_export_cmp(const void *a, const void *b)
{
    const struct elf_export *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c != 0 ? c : strcmp(x->node, y->node);
}

static int elf_collect(const struct elf_image *img, struct elf_exports *out)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img->base;
    const Elf64_Shdr *dynsym, *versym, *verdef, *strsec;
    const Elf64_Sym *syms;
    const uint16_t *vers;
    const char *strtab;
    size_t n;

    if (img->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        !elf_in_bounds(img, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return -1;
    dynsym = elf_section(img, SHT_DYNSYM);
    versym = elf_section(img, SHT_GNU_versym);
    verdef = elf_section(img, SHT_GNU_verdef);
    if (dynsym == NULL || dynsym->sh_link >= eh->e_shnum ||
        !elf_in_bounds(img, dynsym->sh_offset, dynsym->sh_size))
        return -1;
    strsec = (const Elf64_Shdr *)(img->base + eh->e_shoff) + dynsym->sh_link;
    if (!elf_in_bounds(img, strsec->sh_offset, strsec->sh_size))
        return -1;
    strtab = (const char *)img->base + strsec->sh_offset;
    syms = (const Elf64_Sym *)(img->base + dynsym->sh_offset);
    n = dynsym->sh_size / sizeof(*syms);
    vers = versym != NULL && elf_in_bounds(img, versym->sh_offset, n * sizeof(uint16_t))
                   ? (const uint16_t *)(img->base + versym->sh_offset)
                   : NULL;
    out->list = calloc(n, sizeof(*out->list));
    out->count = 0;
    if (out->list == NULL)
        return -1;
    for (size_t i = 1; i < n; i++) {
        uint16_t v = vers != NULL ? vers[i] : 1;
        const char *node = "";
        struct elf_export *e;

        if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strsec->sh_size)
            continue;
        if ((v & 0x7fff) > 1 && verdef != NULL) {
            node = elf_verdef_name(img, verdef, strtab, v & 0x7fff);
            if (node == NULL)
                node = "?";
        }
        e = &out->list[out->count++];
        e->name = strdup(strtab + syms[i].st_name);
        e->node = strdup(node);
        e->hidden = (v & 0x8000) != 0;
        e->object = ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC &&
                    ELF64_ST_TYPE(syms[i].st_info) != STT_GNU_IFUNC;
        if (e->name == NULL || e->node == NULL)
            return -1;
    }
    qsort(out->list, out->count, sizeof(*out->list), elf_export_cmp);
    return 0;
}

int elf_exports_read(const char *path, struct elf_exports *out)
{
    struct elf_image img;
    struct stat st;
    void *map;
    int fd, err;

    memset(out, 0, sizeof(*out));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    img.base = map;
    img.size = (size_t)st.st_size;
    err = elf_collect(&img, out);
    munmap(map, img.size);
    if (err != 0) {
        fprintf(stderr, "%s: not a readable 64-bit ELF shared library\n", path);
        elf_exports_free(out);
        errno = EINVAL;
        return -1;
    }
    return 0;
}

void elf_exports_free(struct elf_exports *e)
{
    for (size_t i = 0; i < e->count; i++) {
        free(e->list[i].name);
        free(e->list[i].node);
    }
    free(e->list);
    e->list = NULL;
    e->count = 0;
}

const struct elf_export *elf_exports_find(const struct elf_exports *e, const char *name,
                                          const char *node)
{
    struct elf_export key = {.name = (char *)name, .node = (char *)node};

    return bsearch(&key, e->list, e->count, sizeof(*e->list), elf_export_cmp);
}
