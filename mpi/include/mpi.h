/*
 * mpi.h of shmcomm's MPI interface (libshmcomm_mpi): MPI programs compiled with shmcc run
 * on shmcomm under shmrun. Source-compatible with MPI 3.1 for the functions docs/mpi.md
 * lists; the others are declared so that programs link, and return
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler.
 *
 * Handles are ints, as in MPICH: the predefined ones are constants usable in static
 * initialisers, and a bad handle is a failed table lookup (an error), never a wild
 * pointer. Installed under include/shmcomm-mpi/ so that it never shadows a system MPI.
 */
#ifndef SHMCOMM_MPI_H
#define SHMCOMM_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMCOMM_MPI 1
#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* ---- handles and scalar types ---------------------------------------------------- */

typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;
typedef int MPI_Session;
typedef int MPI_Message;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int shmc_cancelled;   /* internal: use MPI_Test_cancelled */
    MPI_Count shmc_bytes; /* internal: use MPI_Get_count */
} MPI_Status;

typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void(MPI_User_function_c)(void *invec, void *inoutvec, MPI_Count *len,
                                  MPI_Datatype *datatype);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error, ...);
typedef void(MPI_File_errhandler_function)(MPI_File *file, int *error, ...);
typedef void(MPI_Session_errhandler_function)(MPI_Session *session, int *error, ...);
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int keyval, void *attribute_val,
                                           void *extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype type, int keyval, void *attribute_val,
                                           void *extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int keyval, void *attribute_val,
                                          void *extra_state);
/* MPI-1's names of the communicator callbacks' types. */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int(MPI_Grequest_free_function)(void *extra_state);
typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);

/* ---- predefined handles ----------------------------------------------------------- */

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_SESSION_NULL ((MPI_Session)0)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)3)

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MINLOC ((MPI_Op)11)
#define MPI_MAXLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

/* Predefined datatypes: 1 .. 63; derived ones are handles from 64 up. */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_WCHAR ((MPI_Datatype)5)
#define MPI_SHORT ((MPI_Datatype)6)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)7)
#define MPI_INT ((MPI_Datatype)8)
#define MPI_UNSIGNED ((MPI_Datatype)9)
#define MPI_LONG ((MPI_Datatype)10)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT ((MPI_Datatype)12)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)13)
#define MPI_FLOAT ((MPI_Datatype)14)
#define MPI_DOUBLE ((MPI_Datatype)15)
#define MPI_LONG_DOUBLE ((MPI_Datatype)16)
#define MPI_INT8_T ((MPI_Datatype)17)
#define MPI_INT16_T ((MPI_Datatype)18)
#define MPI_INT32_T ((MPI_Datatype)19)
#define MPI_INT64_T ((MPI_Datatype)20)
#define MPI_UINT8_T ((MPI_Datatype)21)
#define MPI_UINT16_T ((MPI_Datatype)22)
#define MPI_UINT32_T ((MPI_Datatype)23)
#define MPI_UINT64_T ((MPI_Datatype)24)
#define MPI_C_BOOL ((MPI_Datatype)25)
#define MPI_AINT ((MPI_Datatype)26)
#define MPI_OFFSET ((MPI_Datatype)27)
#define MPI_COUNT ((MPI_Datatype)28)
#define MPI_PACKED ((MPI_Datatype)29)
#define MPI_FLOAT_INT ((MPI_Datatype)30)
#define MPI_DOUBLE_INT ((MPI_Datatype)31)
#define MPI_LONG_INT ((MPI_Datatype)32)
#define MPI_2INT ((MPI_Datatype)33)
#define MPI_SHORT_INT ((MPI_Datatype)34)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)35)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)36)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)37)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)38)
#define MPI_CHARACTER ((MPI_Datatype)39)
#define MPI_INTEGER ((MPI_Datatype)40)
#define MPI_REAL ((MPI_Datatype)41)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)42)
#define MPI_LOGICAL ((MPI_Datatype)43)
#define MPI_COMPLEX ((MPI_Datatype)44)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)45)
#define MPI_2INTEGER ((MPI_Datatype)46)
#define MPI_2REAL ((MPI_Datatype)47)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)48)
#define MPI_INTEGER1 ((MPI_Datatype)49)
#define MPI_INTEGER2 ((MPI_Datatype)50)
#define MPI_INTEGER4 ((MPI_Datatype)51)
#define MPI_INTEGER8 ((MPI_Datatype)52)
#define MPI_REAL4 ((MPI_Datatype)53)
#define MPI_REAL8 ((MPI_Datatype)54)
#define MPI_UB ((MPI_Datatype)55) /* removed in MPI 3: refused where used */
#define MPI_LB ((MPI_Datatype)56)
#define MPI_CXX_BOOL ((MPI_Datatype)57)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)58)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)59)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)60)
#define MPI_COMPLEX8 ((MPI_Datatype)61)
#define MPI_COMPLEX16 ((MPI_Datatype)62)
/* Optional Fortran types this machine has no C type for (MPI 4.1, 19.1.9: an
 * implementation without one defines it as MPI_DATATYPE_NULL). */
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_REAL16 MPI_DATATYPE_NULL
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_INTEGER16 MPI_DATATYPE_NULL

/* ---- other constants ---------------------------------------------------------------- */

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 64

#define MPI_IN_PLACE ((void *)(intptr_t)-1)
#define MPI_BOTTOM ((void *)0)
#define MPI_STATUS_IGNORE ((MPI_Status *)(intptr_t)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)(intptr_t)1)
/* A status in Fortran integers (MPI_Status_c2f): its bytes, the public fields first. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
/* Addresses of the library's own, not small constants: GCC's -Wstringop-overread warns
 * where a program passes a constant address as an array of ints. */
extern int shmc_mpi_weights[2];
#define MPI_UNWEIGHTED (&shmc_mpi_weights[0])
#define MPI_WEIGHTS_EMPTY (&shmc_mpi_weights[1])

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_DATAREP_STRING 128
#define MPI_MAX_PSET_NAME_LEN 256

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* Attribute keys of communicators. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_LASTUSEDCODE 6
#define MPI_APPNUM 7
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12

/* The predefined attribute callbacks are functions, so that a program may also call them.
 * Every handle is an int, so the communicator's three serve the datatype's, the window's
 * and MPI-1's names too. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
#define MPI_TYPE_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_TYPE_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_TYPE_DUP_FN MPI_COMM_DUP_FN
#define MPI_WIN_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_WIN_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_WIN_DUP_FN MPI_COMM_DUP_FN
#define MPI_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_DUP_FN MPI_COMM_DUP_FN

#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16

#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

#define MPI_COMM_TYPE_SHARED 1
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

#define MPI_MODE_RDONLY 2
#define MPI_MODE_RDWR 8
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 1
#define MPI_MODE_EXCL 64
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604

/* ---- error classes ------------------------------------------------------------------ */

#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_FILE 38
#define MPI_ERR_NOT_SAME 39
#define MPI_ERR_AMODE 40
#define MPI_ERR_UNSUPPORTED_DATAREP 41
#define MPI_ERR_UNSUPPORTED_OPERATION 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_FILE_EXISTS 44
#define MPI_ERR_BAD_FILE 45
#define MPI_ERR_ACCESS 46
#define MPI_ERR_NO_SPACE 47
#define MPI_ERR_QUOTA 48
#define MPI_ERR_READ_ONLY 49
#define MPI_ERR_FILE_IN_USE 50
#define MPI_ERR_DUP_DATAREP 51
#define MPI_ERR_CONVERSION 52
#define MPI_ERR_IO 53
#define MPI_ERR_RMA_ATTACH 54
#define MPI_ERR_RMA_FLAVOR 55
#define MPI_ERR_RMA_RANGE 56
#define MPI_ERR_RMA_SHARED 57
#define MPI_ERR_PROC_ABORTED 58
#define MPI_ERR_SESSION 59
#define MPI_ERR_VALUE_TOO_LARGE 60
#define MPI_ERR_LASTCODE 0x3fff

/* ---- the functions ---------------------------------------------------------------------
 * Each is declared as MPI_name and PMPI_name (the profiling interface): the library
 * defines PMPI_name and MPI_name as a weak alias of it, so a tool may define MPI_name
 * and call PMPI_name. */
#define SHMC_MPI_FN(ret, name, params)                                                             \
    ret MPI_##name params;                                                                         \
    ret PMPI_##name params

#include "shmcomm_mpi_functions.h"

#undef SHMC_MPI_FN

#ifdef __cplusplus
}
#endif

#endif /* SHMCOMM_MPI_H */
