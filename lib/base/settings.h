/*
 * The library's settings, each declared once (settings.c): its SHMC_* variable, where it
 * lands in struct shmc__config, its default, its range or words, whether shmc_config_set
 * may change it while the program runs, and one line of documentation. The loader and
 * shmc_config_set (config.c), shmrun --info and the library's table in
 * docs/configuration.md (generated from shmc__settings_print; tests/unit/check_config_docs.c
 * fails when the page is not what it prints) all read this table.
 */
#ifndef SHMC_SETTINGS_H
#define SHMC_SETTINGS_H

#include <stddef.h>
#include <stdio.h>

struct shmc__config;

enum shmc__set_kind {
    SHMC_SET_UINT,  /* unsigned, a whole number in [lo, hi] */
    SHMC_SET_SIZE,  /* size_t, bytes in [lo, hi], with k, M or G */
    SHMC_SET_BOOL,  /* int, 1/on/yes/true/auto or 0/off/no/false */
    SHMC_SET_WORDS, /* int, one of words */
    SHMC_SET_TEXT,  /* const char *, the environment's string */
    SHMC_SET_OWN,   /* parsed by own() */
};

struct shmc__word {
    const char *word;
    int value;
};

struct shmc__setting {
    const char *name; /* the variable; a family's ends in "<NAME>" */
    enum shmc__set_kind kind;
    size_t at;                      /* offsetof(struct shmc__config, its field) */
    unsigned long long lo, hi;      /* UINT, SIZE: the range */
    unsigned long long def;         /* the default stored (UINT, SIZE, BOOL, WORDS) */
    const char *shown;              /* the default as documented; NULL: def as a number */
    int runtime;                    /* shmc_config_set may change it */
    const struct shmc__word *words; /* WORDS: what is accepted, ended by a NULL word */
    const char *hint;               /* WORDS, OWN: what to write, for the error message */
    /* OWN: parses value (non-empty) of variable name into cfg; SHMC_OK or SHMC_ERR_ENV,
     * logged. */
    int (*own)(const char *name, const char *value, struct shmc__config *cfg);
    const char *doc; /* one line of Markdown: what it does */
};

/* Parses "4096", "64k", "1M", "2GiB" (powers of 1024). Returns 0 on success. */
int shmc__parse_size(const char *s, size_t *out);

extern const struct shmc__setting shmc__settings[];
extern const size_t shmc__nsettings;

/* The setting a variable belongs to (a family's for SHMC_ALGO_ALLREDUCE), or NULL. */
const struct shmc__setting *shmc__setting_find(const char *name);

/* Stores s's default into cfg. */
void shmc__setting_default(const struct shmc__setting *s, struct shmc__config *cfg);

/* Parses value (NULL or empty: unset, nothing changes) of variable name, whose setting
 * is s, into cfg. SHMC_OK, or SHMC_ERR_ENV after logging what is wrong and what to
 * write instead. */
int shmc__setting_parse(const struct shmc__setting *s, const char *name, const char *value,
                        struct shmc__config *cfg);

/* Writes every setting to f: as the Markdown table of docs/configuration.md (markdown
 * non-zero), or as a listing for people, each with its value in this environment where it
 * is set (shmrun --info). */
void shmc__settings_print(FILE *f, int markdown);

#endif /* SHMC_SETTINGS_H */
