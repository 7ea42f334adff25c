/*
 * Info objects: ordered key/value lists. shmcomm reads no hints, so an info only stores
 * what a program sets and gives it back; MPI_INFO_ENV is an empty, read-only info. As
 * MPI 4 allows, they work before MPI_Init and after MPI_Finalize, which leaves them be:
 * they are the program's until it frees them.
 */
#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct info {
    int alive;
    int n;
    char **key, **val;
};

#define MAX_INFOS 4096
static struct info infos[MAX_INFOS]; /* 0: MPI_INFO_NULL, 1: MPI_INFO_ENV */

static struct info *lookup(MPI_Info h, int writable, int *rc)
{
    if (h == MPI_INFO_ENV && !writable)
        return &infos[MPI_INFO_ENV];
    if (h <= MPI_INFO_ENV || h >= MAX_INFOS || !infos[h].alive) {
        *rc = shmc_mpi__err(MPI_ERR_INFO, "%d is not an info object%s", h,
                            h == MPI_INFO_ENV ? " that may be changed" : "");
        return NULL;
    }
    return &infos[h];
}

int shmc_mpi__info_check(MPI_Info info)
{
    int rc = MPI_SUCCESS;
    if (info != MPI_INFO_NULL)
        lookup(info, 0, &rc);
    return rc;
}

static int find(const struct info *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (strcmp(in->key[i], key) == 0)
            return i;
    return -1;
}

static int check_key(const char *key)
{
    if (!key || !key[0] || strlen(key) > MPI_MAX_INFO_KEY)
        return shmc_mpi__err(MPI_ERR_INFO_KEY, "the key is NULL, empty or longer than %d",
                             MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "info is NULL"));
    /* Finding a free object is the lock's; an object is then its holder's alone (two
     * threads changing one info object at once is the program's race, as in MPI). */
    shmc_mpi__lock();
    for (int h = MPI_INFO_ENV + 1; h < MAX_INFOS; h++)
        if (!infos[h].alive) {
            infos[h] = (struct info){.alive = 1};
            *info = h;
            shmc_mpi__unlock();
            return MPI_SUCCESS;
        }
    shmc_mpi__unlock();
    return SHMC_MPI_RAISE(
        MPI_COMM_WORLD,
        shmc_mpi__err(MPI_ERR_OTHER, "more than %d info objects at once", MAX_INFOS - 2));
}
SHMC_MPI_ALIAS(Info_create);

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 1, &rc);
    if (in)
        rc = check_key(key);
    if (rc == MPI_SUCCESS && (!value || strlen(value) > MPI_MAX_INFO_VAL))
        rc = shmc_mpi__err(MPI_ERR_INFO_VALUE, "the value is NULL or longer than %d",
                           MPI_MAX_INFO_VAL);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    char *v = strdup(value);
    if (!v)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_NO_MEM, "info value"));
    int i = find(in, key);
    if (i >= 0) {
        free(in->val[i]);
        in->val[i] = v;
        return MPI_SUCCESS;
    }
    char *k = strdup(key);
    char **nk = realloc(in->key, (size_t)(in->n + 1) * sizeof *nk);
    if (nk)
        in->key = nk;
    char **nv = nk ? realloc(in->val, (size_t)(in->n + 1) * sizeof *nv) : NULL;
    if (nv)
        in->val = nv;
    if (!k || !nk || !nv) {
        free(k);
        free(v);
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_NO_MEM, "info key"));
    }
    in->key[in->n] = k;
    in->val[in->n] = v;
    in->n++;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_set);

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 0, &rc);
    if (in)
        rc = check_key(key);
    if (rc == MPI_SUCCESS && (!flag || (!value && valuelen > 0) || valuelen < 0))
        rc = shmc_mpi__err(MPI_ERR_ARG, "flag or value is NULL, or valuelen is negative");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0 && valuelen > 0) {
        /* valuelen excludes the terminating null (MPI's rule): value holds valuelen + 1. */
        strncpy(value, in->val[i], (size_t)valuelen);
        value[valuelen] = '\0';
    }
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_get);

/* MPI 4's form: *buflen is the buffer's size in, the value's length plus one out; a
 * buffer of 0 bytes asks for the length alone. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 0, &rc);
    if (in)
        rc = check_key(key);
    if (rc == MPI_SUCCESS && (!flag || !buflen || *buflen < 0 || (*buflen > 0 && !value)))
        rc = shmc_mpi__err(MPI_ERR_ARG, "flag, buflen or value is NULL, or *buflen is negative");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int i = find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    int len = (int)strlen(in->val[i]);
    if (*buflen > 0) {
        int n = len < *buflen - 1 ? len : *buflen - 1;
        memcpy(value, in->val[i], (size_t)n);
        value[n] = '\0';
    }
    *buflen = len + 1;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_get_string);

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 0, &rc);
    if (in)
        rc = check_key(key);
    if (rc == MPI_SUCCESS && (!flag || !valuelen))
        rc = shmc_mpi__err(MPI_ERR_ARG, "flag or valuelen is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(in->val[i]);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_get_valuelen);

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 1, &rc);
    if (in)
        rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    int i = find(in, key);
    if (i < 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_INFO_NOKEY, "no key \"%s\"", key));
    free(in->key[i]);
    free(in->val[i]);
    memmove(in->key + i, in->key + i + 1, (size_t)(in->n - i - 1) * sizeof *in->key);
    memmove(in->val + i, in->val + i + 1, (size_t)(in->n - i - 1) * sizeof *in->val);
    in->n--;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_delete);

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 0, &rc);
    if (in && !nkeys)
        rc = shmc_mpi__err(MPI_ERR_ARG, "nkeys is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    *nkeys = in->n;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_get_nkeys);

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 0, &rc);
    if (in && (n < 0 || n >= in->n))
        rc = shmc_mpi__err(MPI_ERR_ARG, "n %d is outside 0..%d", n, in->n - 1);
    if (rc == MPI_SUCCESS && !key)
        rc = shmc_mpi__err(MPI_ERR_ARG, "key is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    strcpy(key, in->key[n]);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_get_nthkey);

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    int rc = MPI_SUCCESS;
    struct info *in = lookup(info, 0, &rc);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    rc = PMPI_Info_create(newinfo);
    for (int i = 0; rc == MPI_SUCCESS && i < in->n; i++)
        rc = PMPI_Info_set(*newinfo, in->key[i], in->val[i]);
    return rc;
}
SHMC_MPI_ALIAS(Info_dup);

/* MPI_INFO_ENV's keys (none here) plus the command and its arguments, when given: callable
 * before MPI_Init, as MPI 4 allows. */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    if (argc < 0 || (argc > 0 && !argv))
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "argc %d is negative or argv NULL", argc));
    int rc = PMPI_Info_dup(MPI_INFO_ENV, info);
    if (rc != MPI_SUCCESS || argc == 0 || !argv[0])
        return rc;
    rc = PMPI_Info_set(*info, "command", argv[0]);
    char joined[MPI_MAX_INFO_VAL] = "";
    size_t n = 0;
    for (int i = 1; rc == MPI_SUCCESS && i < argc && argv[i]; i++) {
        int w = snprintf(joined + n, sizeof joined - n, "%s%s", i > 1 ? " " : "", argv[i]);
        if (w < 0 || (size_t)w >= sizeof joined - n)
            break; /* the arguments that fit in one value */
        n += (size_t)w;
    }
    if (rc == MPI_SUCCESS && n)
        rc = PMPI_Info_set(*info, "argv", joined);
    return rc;
}
SHMC_MPI_ALIAS(Info_create_env);

static void release(struct info *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->key[i]);
        free(in->val[i]);
    }
    free(in->key);
    free(in->val);
    *in = (struct info){0};
}

int PMPI_Info_free(MPI_Info *info)
{
    int rc = MPI_SUCCESS;
    struct info *in =
        info ? lookup(*info, 1, &rc) : (rc = shmc_mpi__err(MPI_ERR_ARG, "info is NULL"), NULL);
    if (!in)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    shmc_mpi__lock();
    release(in);
    shmc_mpi__unlock();
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Info_free);
