/*
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size: the "external32"
 * representation (MPI 4.1, 13.5.2), big-endian with the sizes MPI's table fixes, whatever
 * this machine's are. Packing packs the native way first (shmc_mpi__pack: the type's
 * predefined elements one after another, in type-map order) and converts that stream
 * element by element, walking the type's signature (red_n elements of red, or its sig);
 * unpacking converts back into a native stream and unpacks it.
 *
 * Integers change size where MPI's table says (MPI_LONG and MPI_UNSIGNED_LONG are 4
 * bytes in external32): a value that does not fit keeps its low bytes, as MPICH does.
 * long double becomes IEEE binary128 (16 bytes) from the x87 80-bit format, or is
 * byte-swapped where it is binary128 already; elsewhere a type holding one is refused.
 */
#include "mpi_impl.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* How one predefined element converts: as bytes (one-byte types), a signed or unsigned
 * integer, an IEEE float of one size, a long double, or a pair / complex of two such. */
enum conv { RAW, SINT, UINT, IEEE, LDBL };

struct ext {
    MPI_Datatype h;
    enum conv c1, c2;   /* c2: the second member of a pair or complex (RAW: none) */
    int n1, e1, n2, e2; /* native and external32 sizes of each member */
    int native_off2;    /* the second member's offset in a packed native element */
};

#define ONE(h, c, t, e)                                                                            \
    {                                                                                              \
        h, c, RAW, sizeof(t), e, 0, 0, 0                                                           \
    }
#define TWO(h, c1, t1, e1, c2, t2, e2)                                                             \
    {                                                                                              \
        h, c1, c2, sizeof(t1), e1, sizeof(t2), e2, sizeof(t1)                                      \
    }

static const struct ext table[] = {
    ONE(MPI_CHAR, RAW, char, 1),
    ONE(MPI_SIGNED_CHAR, RAW, signed char, 1),
    ONE(MPI_UNSIGNED_CHAR, RAW, unsigned char, 1),
    ONE(MPI_BYTE, RAW, unsigned char, 1),
    ONE(MPI_PACKED, RAW, unsigned char, 1),
    ONE(MPI_CHARACTER, RAW, char, 1),
    ONE(MPI_C_BOOL, RAW, _Bool, 1),
    ONE(MPI_INT8_T, RAW, int8_t, 1),
    ONE(MPI_UINT8_T, RAW, uint8_t, 1),
    ONE(MPI_INTEGER1, RAW, int8_t, 1),
    ONE(MPI_WCHAR, UINT, wchar_t, 4),
    ONE(MPI_SHORT, SINT, short, 2),
    ONE(MPI_UNSIGNED_SHORT, UINT, unsigned short, 2),
    ONE(MPI_INT, SINT, int, 4),
    ONE(MPI_UNSIGNED, UINT, unsigned, 4),
    ONE(MPI_LONG, SINT, long, 4),
    ONE(MPI_UNSIGNED_LONG, UINT, unsigned long, 4),
    ONE(MPI_LONG_LONG_INT, SINT, long long, 8),
    ONE(MPI_UNSIGNED_LONG_LONG, UINT, unsigned long long, 8),
    ONE(MPI_INT16_T, SINT, int16_t, 2),
    ONE(MPI_INT32_T, SINT, int32_t, 4),
    ONE(MPI_INT64_T, SINT, int64_t, 8),
    ONE(MPI_UINT16_T, UINT, uint16_t, 2),
    ONE(MPI_UINT32_T, UINT, uint32_t, 4),
    ONE(MPI_UINT64_T, UINT, uint64_t, 8),
    ONE(MPI_AINT, SINT, MPI_Aint, 8),
    ONE(MPI_OFFSET, SINT, MPI_Offset, 8),
    ONE(MPI_COUNT, SINT, MPI_Count, 8),
    ONE(MPI_INTEGER, SINT, int, 4),
    ONE(MPI_LOGICAL, SINT, int, 4),
    ONE(MPI_INTEGER2, SINT, int16_t, 2),
    ONE(MPI_INTEGER4, SINT, int32_t, 4),
    ONE(MPI_INTEGER8, SINT, int64_t, 8),
    ONE(MPI_FLOAT, IEEE, float, 4),
    ONE(MPI_DOUBLE, IEEE, double, 8),
    ONE(MPI_REAL, IEEE, float, 4),
    ONE(MPI_DOUBLE_PRECISION, IEEE, double, 8),
    ONE(MPI_REAL4, IEEE, float, 4),
    ONE(MPI_REAL8, IEEE, double, 8),
    ONE(MPI_LONG_DOUBLE, LDBL, long double, 16),
    TWO(MPI_C_FLOAT_COMPLEX, IEEE, float, 4, IEEE, float, 4),
    TWO(MPI_COMPLEX, IEEE, float, 4, IEEE, float, 4),
    TWO(MPI_C_DOUBLE_COMPLEX, IEEE, double, 8, IEEE, double, 8),
    TWO(MPI_DOUBLE_COMPLEX, IEEE, double, 8, IEEE, double, 8),
    TWO(MPI_C_LONG_DOUBLE_COMPLEX, LDBL, long double, 16, LDBL, long double, 16),
    TWO(MPI_FLOAT_INT, IEEE, float, 4, SINT, int, 4),
    TWO(MPI_DOUBLE_INT, IEEE, double, 8, SINT, int, 4),
    TWO(MPI_LONG_INT, SINT, long, 4, SINT, int, 4),
    TWO(MPI_2INT, SINT, int, 4, SINT, int, 4),
    TWO(MPI_SHORT_INT, SINT, short, 2, SINT, int, 4),
    TWO(MPI_LONG_DOUBLE_INT, LDBL, long double, 16, SINT, int, 4),
    TWO(MPI_2INTEGER, SINT, int, 4, SINT, int, 4),
    TWO(MPI_2REAL, IEEE, float, 4, IEEE, float, 4),
    TWO(MPI_2DOUBLE_PRECISION, IEEE, double, 8, IEEE, double, 8),
    ONE(MPI_CXX_BOOL, RAW, _Bool, 1),
    TWO(MPI_CXX_FLOAT_COMPLEX, IEEE, float, 4, IEEE, float, 4),
    TWO(MPI_COMPLEX8, IEEE, float, 4, IEEE, float, 4),
    TWO(MPI_CXX_DOUBLE_COMPLEX, IEEE, double, 8, IEEE, double, 8),
    TWO(MPI_COMPLEX16, IEEE, double, 8, IEEE, double, 8),
    TWO(MPI_CXX_LONG_DOUBLE_COMPLEX, LDBL, long double, 16, LDBL, long double, 16),
};
#define NEXT ((int)(sizeof table / sizeof table[0]))

static const struct ext *ext_of(MPI_Datatype basic)
{
    for (int i = 0; i < NEXT; i++)
        if (table[i].h == basic)
            return &table[i];
    return NULL;
}

/* ---- one member --------------------------------------------------------------------------- */

/* The native little-endian integer of n bytes at p, as 64 bits (sign-extended if sign). */
static uint64_t get_native(const unsigned char *p, int n, int sign)
{
    uint64_t v = 0;
    memcpy(&v, p, (size_t)n); /* x86-64 and the other little-endian targets */
    if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * n);
    return v;
}

static uint64_t get_big(const unsigned char *p, int n, int sign)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * n);
    return v;
}

static void put_big(unsigned char *p, int n, uint64_t v)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

/* long double <-> binary128, big-endian: sign, 15 bits of exponent (the same bias as
 * x87's), 112 bits of fraction. x87 keeps the leading bit explicit and 63 bits of
 * fraction, which become the fraction's top 63 bits (binary128's extra bits are zero,
 * and dropped on the way back). */
#if LDBL_MANT_DIG == 64
#define LDBL_OK 1
static void ldbl_out(const unsigned char *in, unsigned char *out)
{
    uint64_t m, hi, lo;
    uint16_t se;
    memcpy(&m, in, 8);
    memcpy(&se, in + 8, 2);
    uint64_t frac = m & ~(1ull << 63);
    hi = (uint64_t)se << 48 | frac >> 15;
    lo = (frac & 0x7fff) << 49;
    put_big(out, 8, hi);
    put_big(out + 8, 8, lo);
}
static void ldbl_in(const unsigned char *in, unsigned char *out)
{
    uint64_t hi = get_big(in, 8, 0), lo = get_big(in + 8, 8, 0);
    uint16_t se = (uint16_t)(hi >> 48);
    uint64_t frac = (hi & 0xffffffffffffull) << 15 | lo >> 49;
    uint64_t m = frac | ((se & 0x7fff) ? 1ull << 63 : 0); /* normal, infinite or NaN */
    memset(out, 0, sizeof(long double));
    memcpy(out, &m, 8);
    memcpy(out + 8, &se, 2);
}
#elif LDBL_MANT_DIG == 113
#define LDBL_OK 1
static void ldbl_out(const unsigned char *in, unsigned char *out)
{
    for (int i = 0; i < 16; i++)
        out[i] = in[15 - i];
}
static void ldbl_in(const unsigned char *in, unsigned char *out)
{
    ldbl_out(in, out);
}
#else
#define LDBL_OK 0
#endif

/* Converts one member (conv c, native size n, external size e) out (to external32) or in. */
static void member(enum conv c, int n, int e, const unsigned char *from, unsigned char *to, int out)
{
    switch (c) {
    case RAW:
        memcpy(to, from, (size_t)n);
        break;
    case SINT:
    case UINT:
        if (out) {
            put_big(to, e, get_native(from, n, c == SINT));
        } else {
            uint64_t v = get_big(from, e, c == SINT);
            memcpy(to, &v, (size_t)n); /* little-endian: the low n bytes */
        }
        break;
    case IEEE:
        for (int i = 0; i < n; i++)
            to[i] = from[n - 1 - i];
        break;
    case LDBL:
#if LDBL_OK
        if (out)
            ldbl_out(from, to);
        else
            ldbl_in(from, to);
#endif
        break;
    }
}

/* ---- streams -------------------------------------------------------------------------------- */

/* Converts count elements of type t between a native packed stream and external32 (out:
 * native to external). Returns MPI_SUCCESS, or MPI_ERR_TYPE for a predefined type with no
 * external32 form here. With from and to NULL, only checks and counts: *ext gets the
 * external32 bytes. */
static int convert(const struct shmc_mpi_type *t, size_t count, const unsigned char *from,
                   unsigned char *to, int out, size_t *ext)
{
    struct shmc_mpi_sig one = {t->red, t->red_n};
    const struct shmc_mpi_sig *sig = t->red ? &one : t->sig;
    int nsig = t->red ? 1 : t->nsig;
    size_t total = 0;
    for (size_t k = 0; k < (from ? count : 1); k++) {
        for (int s = 0; s < nsig; s++) {
            const struct ext *x = ext_of(sig[s].basic);
            if (!x || (!LDBL_OK && (x->c1 == LDBL || x->c2 == LDBL)))
                return shmc_mpi__err(MPI_ERR_TYPE,
                                     "datatype %d has no external32 form here (it holds "
                                     "predefined type %d)",
                                     (int)sig[s].basic, (int)sig[s].basic);
            int nat = x->n1 + x->n2, e = x->e1 + x->e2;
            if (!from) {
                total += (size_t)sig[s].n * (size_t)e;
                continue;
            }
            for (MPI_Count i = 0; i < sig[s].n; i++) {
                const unsigned char *f = from;
                unsigned char *d = to;
                member(x->c1, x->n1, x->e1, f, d, out);
                if (x->n2)
                    member(x->c2, x->n2, x->e2, f + (out ? x->native_off2 : x->e1),
                           d + (out ? x->e1 : x->native_off2), out);
                from += out ? nat : e;
                to += out ? e : nat;
            }
        }
    }
    if (!from)
        *ext = total * count;
    return MPI_SUCCESS;
}

/* The common arguments: the representation's name, the type, the count; *ext gets the
 * external32 bytes of count elements. */
static int args(const char *datarep, MPI_Count count, MPI_Datatype type,
                const struct shmc_mpi_type **t, size_t *ext)
{
    int rc = shmc_mpi__check_running();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!datarep || strcmp(datarep, "external32") != 0)
        return shmc_mpi__err(MPI_ERR_ARG, "datarep \"%s\" is not \"external32\"",
                             datarep ? datarep : "(NULL)");
    if (!(*t = shmc_mpi__type_usable(type, &rc)))
        return rc;
    if ((rc = shmc_mpi__check_count(count)) != MPI_SUCCESS)
        return rc;
    return convert(*t, (size_t)count, NULL, NULL, 1, ext);
}

static int external_size(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                         MPI_Count *size, const char *fn)
{
    const struct shmc_mpi_type *t;
    size_t ext = 0;
    int rc = args(datarep, incount, datatype, &t, &ext);
    if (rc == MPI_SUCCESS && !size)
        rc = shmc_mpi__err(MPI_ERR_ARG, "size is NULL");
    if (rc != MPI_SUCCESS)
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    *size = (MPI_Count)ext;
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    MPI_Count n = 0;
    int rc = external_size(datarep, incount, datatype, size ? &n : NULL, __func__);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n;
    return rc;
}
SHMC_MPI_ALIAS(Pack_external_size);

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    return external_size(datarep, incount, datatype, size, __func__);
}
SHMC_MPI_ALIAS(Pack_external_size_c);

/* The position argument: inside a buffer of size bytes with need more to go. */
static int position_ok(const MPI_Count *position, MPI_Count size, size_t need)
{
    if (!position)
        return shmc_mpi__err(MPI_ERR_ARG, "position is NULL");
    if (size < 0 || *position < 0 || *position > size)
        return shmc_mpi__err(MPI_ERR_ARG, "position %lld is outside the buffer of %lld bytes",
                             *position, size);
    if (need > (size_t)(size - *position))
        return shmc_mpi__err(MPI_ERR_TRUNCATE, "%zu bytes do not fit in the %lld left", need,
                             size - *position);
    return MPI_SUCCESS;
}

/* What packing and unpacking share: the arguments checked (data: the buffer of elements,
 * ext32: the external32 buffer of size bytes), *ext the external32 bytes of count
 * elements, and *tmp the native packed stream's staging (NULL for a dense type, whose
 * memory is that stream). Returns MPI_SUCCESS or the error, raised. */
static int begin(const char *datarep, const void *data, MPI_Count count, MPI_Datatype type,
                 const void *ext32, MPI_Count size, const MPI_Count *position,
                 const struct shmc_mpi_type **t, size_t *ext, unsigned char **tmp, const char *fn)
{
    int rc = args(datarep, count, type, t, ext);
    if (rc == MPI_SUCCESS)
        rc = position_ok(position, size, *ext);
    if (rc == MPI_SUCCESS && *ext && (!ext32 || (!data && (*t)->predefined)))
        rc = shmc_mpi__err(MPI_ERR_BUFFER, "a buffer is NULL");
    size_t nat = rc == MPI_SUCCESS ? (size_t)count * (size_t)(*t)->size : 0;
    *tmp = rc == MPI_SUCCESS && !(*t)->dense ? malloc(nat ? nat : 1) : NULL;
    if (rc == MPI_SUCCESS && !(*t)->dense && !*tmp)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes of packed data", nat);
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
}

static int pack_external(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position, const char *fn)
{
    const struct shmc_mpi_type *t;
    size_t ext = 0;
    unsigned char *tmp;
    int rc =
        begin(datarep, inbuf, incount, datatype, outbuf, outsize, position, &t, &ext, &tmp, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (tmp)
        shmc_mpi__pack(inbuf, (size_t)incount, t, tmp);
    const unsigned char *from = tmp ? tmp : (const unsigned char *)inbuf;
    if (ext)
        convert(t, (size_t)incount, from, (unsigned char *)outbuf + *position, 1, &ext);
    free(tmp);
    *position += (MPI_Count)ext;
    return MPI_SUCCESS;
}

static int unpack_external(const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype, const char *fn)
{
    const struct shmc_mpi_type *t;
    size_t ext = 0;
    unsigned char *tmp;
    int rc =
        begin(datarep, outbuf, outcount, datatype, inbuf, insize, position, &t, &ext, &tmp, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    unsigned char *to = tmp ? tmp : (unsigned char *)outbuf;
    if (ext)
        convert(t, (size_t)outcount, (const unsigned char *)inbuf + *position, to, 0, &ext);
    if (tmp)
        shmc_mpi__unpack(tmp, (size_t)outcount * (size_t)t->size, outbuf, (size_t)outcount, t);
    free(tmp);
    *position += (MPI_Count)ext;
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count at = position ? *position : 0;
    int rc = pack_external(datarep, inbuf, incount, datatype, outbuf, outsize,
                           position ? &at : NULL, __func__);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)at;
    return rc;
}
SHMC_MPI_ALIAS(Pack_external);

int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position, __func__);
}
SHMC_MPI_ALIAS(Pack_external_c);

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count at = position ? *position : 0;
    int rc = unpack_external(datarep, inbuf, insize, position ? &at : NULL, outbuf, outcount,
                             datatype, __func__);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)at;
    return rc;
}
SHMC_MPI_ALIAS(Unpack_external);

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype, __func__);
}
SHMC_MPI_ALIAS(Unpack_external_c);
