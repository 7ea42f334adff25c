/*
 * The datatype engine: packing elements of a type into their bytes and back by walking
 * the type's flattened runs, the views that hand the C library packed bytes (the user's
 * own memory when the type is dense), counting elements, and MPI_Pack, MPI_Unpack,
 * MPI_Pack_size, MPI_Get_count, MPI_Get_elements.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

void shmc_mpi__pack(const void *buf, size_t count, const struct shmc_mpi_type *t, void *out)
{
    if (t->dense) {
        memcpy(out, buf, count * (size_t)t->size);
        return;
    }
    const char *base = buf;
    char *o = out;
    for (size_t i = 0; i < count; i++, base += t->extent)
        for (int s = 0; s < t->nseg; s++) {
            memcpy(o, base + t->seg[s].disp, (size_t)t->seg[s].len);
            o += t->seg[s].len;
        }
}

void shmc_mpi__unpack(const void *in, size_t bytes, void *buf, size_t count,
                      const struct shmc_mpi_type *t)
{
    size_t whole = count * (size_t)t->size;
    if (bytes > whole)
        bytes = whole;
    if (t->dense) {
        memcpy(buf, in, bytes);
        return;
    }
    const char *p = in;
    char *base = buf;
    for (size_t i = 0; i < count && bytes > 0; i++, base += t->extent)
        for (int s = 0; s < t->nseg && bytes > 0; s++) {
            size_t n = (size_t)t->seg[s].len < bytes ? (size_t)t->seg[s].len : bytes;
            memcpy(base + t->seg[s].disp, p, n);
            p += n;
            bytes -= n;
        }
}

MPI_Count shmc_mpi__elements(const struct shmc_mpi_type *t, MPI_Count bytes)
{
    if (t->size == 0)
        return 0;
    MPI_Count per = 0;
    for (int s = 0; s < t->nseg; s++)
        per += t->seg[s].len / t->seg[s].esize;
    MPI_Count n = bytes / t->size * per, rest = bytes % t->size;
    for (int s = 0; s < t->nseg && rest > 0; s++) {
        MPI_Count take = rest < t->seg[s].len ? rest : t->seg[s].len;
        if (take % t->seg[s].esize)
            return MPI_UNDEFINED; /* ends within a predefined element */
        n += take / t->seg[s].esize;
        rest -= take;
    }
    return n;
}

static int packed_bytes(size_t count, const struct shmc_mpi_type *t, size_t *bytes)
{
    if (__builtin_mul_overflow(count, (size_t)t->size, bytes))
        return shmc_mpi__err(MPI_ERR_COUNT, "count %zu of a %lld-byte type overflows", count,
                             (long long)t->size);
    return MPI_SUCCESS;
}

int shmc_mpi__buffer_arg_full(const void *buf, MPI_Count count, MPI_Datatype type,
                              const struct shmc_mpi_type **t, size_t *bytes)
{
    int rc = MPI_SUCCESS;
    if (!(*t = shmc_mpi__type_usable(type, &rc)))
        return rc;
    if ((rc = shmc_mpi__buffer_ok(buf, count, *t)) != MPI_SUCCESS)
        return rc;
    return packed_bytes((size_t)count, *t, bytes);
}

/* A view over count elements of t at buf: the user's memory when there is nothing to
 * move, otherwise staging memory of the packed size (v->tmp); what is the error. */
static int view_start(void *buf, size_t count, const struct shmc_mpi_type *t,
                      struct shmc_mpi_view *v, const char *what)
{
    *v = (struct shmc_mpi_view){0};
    int rc = packed_bytes(count, t, &v->bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (v->bytes > 0 && !(v->tmp = malloc(v->bytes)))
        return shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes to %s", v->bytes, what);
    v->p = v->tmp ? v->tmp : buf;
    return MPI_SUCCESS;
}

int shmc_mpi__view_pack(const void *buf, size_t count, const struct shmc_mpi_type *t,
                        struct shmc_mpi_view *v)
{
    int rc = view_start((void *)(uintptr_t)buf, count, t, v, "pack a message into");
    if (rc == MPI_SUCCESS && v->tmp)
        shmc_mpi__pack(buf, count, t, v->tmp);
    return rc;
}

int shmc_mpi__view_stage(void *buf, size_t count, const struct shmc_mpi_type *t,
                         struct shmc_mpi_view *v)
{
    int rc = view_start(buf, count, t, v, "receive a message into");
    if (rc == MPI_SUCCESS && v->tmp) { /* unpacked into buf by view_unstage */
        v->ubuf = buf;
        v->count = count;
        v->t = t;
        /* The receive holds its type: the program may free it before the message comes
         * (MPI 4.1, 5.1.11), and unpacking needs its layout then. */
        if (!t->predefined)
            __atomic_add_fetch(&((struct shmc_mpi_type *)(uintptr_t)t)->refs, 1, __ATOMIC_RELAXED);
    }
    return rc;
}

int shmc_mpi__view_inout(void *buf, size_t count, const struct shmc_mpi_type *t,
                         struct shmc_mpi_view *v)
{
    int rc = shmc_mpi__view_recv(buf, count, t, v);
    if (rc == MPI_SUCCESS && v->tmp)
        shmc_mpi__pack(buf, count, t, v->tmp);
    return rc;
}

void shmc_mpi__view_unstage(struct shmc_mpi_view *v, size_t got)
{
    if (v->t) { /* a receive view (ubuf may be MPI_BOTTOM) */
        shmc_mpi__unpack(v->tmp, got, v->ubuf, v->count, v->t);
        shmc_mpi__type_unref((struct shmc_mpi_type *)(uintptr_t)v->t);
        v->t = NULL;
    }
    free(v->tmp);
    v->tmp = NULL;
}

/* ---- MPI_Pack and friends ------------------------------------------------------------------ */

static int pack_args(MPI_Count count, MPI_Datatype datatype, MPI_Count size,
                     const MPI_Count *position, const struct shmc_mpi_type **t, size_t *bytes)
{
    int rc = MPI_SUCCESS;
    if (!(*t = shmc_mpi__type_usable(datatype, &rc)))
        return rc;
    if ((rc = shmc_mpi__check_count(count)) != MPI_SUCCESS)
        return rc;
    if (size < 0 || *position < 0 || *position > size)
        return shmc_mpi__err(MPI_ERR_ARG, "position %lld is outside the buffer of %lld bytes",
                             *position, size);
    if ((rc = packed_bytes((size_t)count, *t, bytes)) != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

/* MPI_Pack and MPI_Pack_c: the position is the caller's, read and advanced here. */
static int pack(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm, const char *fn)
{
    int rc;
    const struct shmc_mpi_type *t;
    size_t bytes;
    if (!shmc_mpi__comm_any(comm, &rc) ||
        (rc = pack_args(incount, datatype, outsize, position, &t, &bytes)) != MPI_SUCCESS)
        return shmc_mpi__raise(comm, rc, fn);
    if (bytes > (size_t)(outsize - *position))
        return shmc_mpi__raise(comm,
                               shmc_mpi__err(MPI_ERR_TRUNCATE,
                                             "%zu bytes do not fit in the %lld left", bytes,
                                             outsize - *position),
                               fn);
    if (bytes && (!outbuf || (!inbuf && t->predefined)))
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_BUFFER, "a buffer is NULL"), fn);
    shmc_mpi__pack(inbuf, (size_t)incount, t, (char *)outbuf + *position);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm, const char *fn)
{
    int rc;
    const struct shmc_mpi_type *t;
    size_t bytes;
    if (!shmc_mpi__comm_any(comm, &rc) ||
        (rc = pack_args(outcount, datatype, insize, position, &t, &bytes)) != MPI_SUCCESS)
        return shmc_mpi__raise(comm, rc, fn);
    if (bytes > (size_t)(insize - *position))
        return shmc_mpi__raise(comm,
                               shmc_mpi__err(MPI_ERR_TRUNCATE,
                                             "%zu bytes wanted, %lld left in the input", bytes,
                                             insize - *position),
                               fn);
    if (bytes && (!inbuf || (!outbuf && t->predefined)))
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_BUFFER, "a buffer is NULL"), fn);
    shmc_mpi__unpack((const char *)inbuf + *position, bytes, outbuf, (size_t)outcount, t);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int no_position(MPI_Comm comm, const char *fn)
{
    return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_ARG, "position is NULL"), fn);
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    if (!position)
        return no_position(comm, __func__);
    MPI_Count at = *position;
    int rc = pack(inbuf, incount, datatype, outbuf, outsize, &at, comm, __func__);
    *position = (int)at; /* within outsize, an int */
    return rc;
}
SHMC_MPI_ALIAS(Pack);

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    if (!position)
        return no_position(comm, __func__);
    return pack(inbuf, incount, datatype, outbuf, outsize, position, comm, __func__);
}
SHMC_MPI_ALIAS(Pack_c);

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    if (!position)
        return no_position(comm, __func__);
    MPI_Count at = *position;
    int rc = unpack(inbuf, insize, &at, outbuf, outcount, datatype, comm, __func__);
    *position = (int)at; /* within insize, an int */
    return rc;
}
SHMC_MPI_ALIAS(Unpack);

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    if (!position)
        return no_position(comm, __func__);
    return unpack(inbuf, insize, position, outbuf, outcount, datatype, comm, __func__);
}
SHMC_MPI_ALIAS(Unpack_c);

/* The packed size of incount elements; max bounds it (INT32_MAX for the int call). */
static int pack_size(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size,
                     MPI_Count max, const char *fn)
{
    int rc;
    const struct shmc_mpi_type *t = NULL;
    size_t bytes = 0;
    if (shmc_mpi__comm_any(comm, &rc) && (t = shmc_mpi__type_usable(datatype, &rc)) &&
        (rc = shmc_mpi__check_count(incount)) == MPI_SUCCESS && !size)
        rc = shmc_mpi__err(MPI_ERR_ARG, "size is NULL");
    if (rc == MPI_SUCCESS && t && (rc = packed_bytes((size_t)incount, t, &bytes)) == MPI_SUCCESS &&
        bytes > (size_t)max)
        rc =
            shmc_mpi__err(MPI_ERR_COUNT, "%zu bytes do not fit in an int (MPI_Pack_size_c)", bytes);
    if (rc != MPI_SUCCESS || !t)
        return shmc_mpi__raise(comm, rc, fn);
    *size = (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n = 0;
    int rc = pack_size(incount, datatype, comm, size ? &n : NULL, INT32_MAX, __func__);
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}
SHMC_MPI_ALIAS(Pack_size);

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size(incount, datatype, comm, size, INT64_MAX, __func__);
}
SHMC_MPI_ALIAS(Pack_size_c);

static int count_args(const MPI_Status *status, MPI_Datatype datatype, const void *count,
                      const struct shmc_mpi_type **t)
{
    int rc = MPI_SUCCESS;
    if (!(*t = shmc_mpi__type(datatype, &rc)))
        return rc;
    if (!status || status == MPI_STATUS_IGNORE || !count)
        return shmc_mpi__err(MPI_ERR_ARG, "status (or MPI_STATUS_IGNORE) or count is NULL");
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    const struct shmc_mpi_type *t;
    int rc = count_args(status, datatype, count, &t);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    MPI_Count b = status->shmc_bytes;
    if (t->size == 0)
        *count = 0;
    else if (b % t->size || b / t->size > INT32_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(b / t->size);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_count);

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    const struct shmc_mpi_type *t;
    int rc = count_args(status, datatype, count, &t);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    MPI_Count b = status->shmc_bytes;
    *count = t->size == 0 ? 0 : b % t->size ? MPI_UNDEFINED : b / t->size;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_count_c);

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    const struct shmc_mpi_type *t;
    int rc = count_args(status, datatype, count, &t);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    MPI_Count n = shmc_mpi__elements(t, status->shmc_bytes);
    *count = n > INT32_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_elements);
