/*
 * The MPI functions of shmcomm's MPI interface, for mpi.h (which includes this file with
 * SHMC_MPI_FN declaring MPI_name and PMPI_name). SHMC_MPI_NOTYET marks the functions
 * declared so that programs link, which return MPI_ERR_UNSUPPORTED_OPERATION through the
 * error handler (docs/mpi.md lists them); the library's stubs.c makes their bodies from
 * this same list. Not a header to include on its own.
 */
#ifndef SHMC_MPI_NOTYET
#define SHMC_MPI_NOTYET(name, params, args) SHMC_MPI_FN(int, name, params)
#define SHMC_MPI_NOTYET_DEFINED_HERE
#endif

/* ---- start-up, errors, environment ------------------------------------------------ */
SHMC_MPI_FN(int, Init, (int *argc, char ***argv));
SHMC_MPI_FN(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
SHMC_MPI_FN(int, Initialized, (int *flag));
SHMC_MPI_FN(int, Finalize, (void));
SHMC_MPI_FN(int, Finalized, (int *flag));
SHMC_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode));
SHMC_MPI_FN(int, Query_thread, (int *provided));
SHMC_MPI_FN(int, Is_thread_main, (int *flag));
SHMC_MPI_FN(double, Wtime, (void));
SHMC_MPI_FN(double, Wtick, (void));
SHMC_MPI_FN(int, Get_version, (int *version, int *subversion));
SHMC_MPI_FN(int, Get_library_version, (char *version, int *resultlen));
SHMC_MPI_FN(int, Get_processor_name, (char *name, int *resultlen));
SHMC_MPI_FN(int, Error_string, (int errorcode, char *string, int *resultlen));
SHMC_MPI_FN(int, Error_class, (int errorcode, int *errorclass));
SHMC_MPI_FN(int, Add_error_class, (int *errorclass));
SHMC_MPI_FN(int, Add_error_code, (int errorclass, int *errorcode));
SHMC_MPI_FN(int, Add_error_string, (int errorcode, const char *string));
SHMC_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
SHMC_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Comm_create_errhandler,
            (MPI_Comm_errhandler_function * fn, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
SHMC_MPI_FN(int, Errhandler_free, (MPI_Errhandler * errhandler));
SHMC_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
SHMC_MPI_FN(int, Free_mem, (void *base));
SHMC_MPI_FN(int, Get_address, (const void *location, MPI_Aint *address));
SHMC_MPI_FN(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
SHMC_MPI_FN(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
SHMC_MPI_FN(int, Info_create, (MPI_Info * info));
SHMC_MPI_FN(int, Info_set, (MPI_Info info, const char *key, const char *value));
SHMC_MPI_FN(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
SHMC_MPI_FN(int, Info_delete, (MPI_Info info, const char *key));
SHMC_MPI_FN(int, Info_get_string,
            (MPI_Info info, const char *key, int *buflen, char *value, int *flag));
SHMC_MPI_FN(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag));
SHMC_MPI_FN(int, Pcontrol, (const int level, ...));
SHMC_MPI_FN(int, Info_get_nkeys, (MPI_Info info, int *nkeys));
SHMC_MPI_FN(int, Info_get_nthkey, (MPI_Info info, int n, char *key));
SHMC_MPI_FN(int, Info_dup, (MPI_Info info, MPI_Info *newinfo));
SHMC_MPI_FN(int, Info_free, (MPI_Info * info));
SHMC_MPI_FN(int, Info_create_env, (int argc, char *argv[], MPI_Info *info));

/* ---- sessions ------------------------------------------------------------------------ */
SHMC_MPI_FN(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session));
SHMC_MPI_FN(int, Session_finalize, (MPI_Session * session));
SHMC_MPI_FN(int, Session_get_info, (MPI_Session session, MPI_Info *info_used));
SHMC_MPI_FN(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names));
SHMC_MPI_FN(int, Session_get_nth_pset,
            (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name));
SHMC_MPI_FN(int, Session_get_pset_info,
            (MPI_Session session, const char *pset_name, MPI_Info *info));
SHMC_MPI_FN(int, Group_from_session_pset,
            (MPI_Session session, const char *pset_name, MPI_Group *newgroup));
SHMC_MPI_FN(int, Session_create_errhandler,
            (MPI_Session_errhandler_function * fn, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler));
SHMC_MPI_FN(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Session_call_errhandler, (MPI_Session session, int errorcode));
SHMC_MPI_FN(MPI_Fint, Session_c2f, (MPI_Session h));
SHMC_MPI_FN(MPI_Session, Session_f2c, (MPI_Fint h));

/* ---- communicators and groups ------------------------------------------------------ */
SHMC_MPI_FN(int, Comm_rank, (MPI_Comm comm, int *rank));
SHMC_MPI_FN(int, Comm_size, (MPI_Comm comm, int *size));
SHMC_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_split_type,
            (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_free, (MPI_Comm * comm));
SHMC_MPI_FN(int, Comm_disconnect, (MPI_Comm * comm));
SHMC_MPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
SHMC_MPI_FN(int, Comm_idup_with_info,
            (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request));
SHMC_MPI_FN(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
SHMC_MPI_FN(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
SHMC_MPI_FN(int, Comm_create_from_group,
            (MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
             MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
SHMC_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
SHMC_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
SHMC_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
SHMC_MPI_FN(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
SHMC_MPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
SHMC_MPI_FN(int, Comm_create_keyval,
            (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
             MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
             void *extra_state));
SHMC_MPI_FN(int, Comm_free_keyval, (int *comm_keyval));
SHMC_MPI_FN(int, Type_get_attr,
            (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
SHMC_MPI_FN(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
SHMC_MPI_FN(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
SHMC_MPI_FN(int, Type_create_keyval,
            (MPI_Type_copy_attr_function * type_copy_attr_fn,
             MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
             void *extra_state));
SHMC_MPI_FN(int, Type_free_keyval, (int *type_keyval));
SHMC_MPI_FN(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
SHMC_MPI_FN(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
SHMC_MPI_FN(int, Win_delete_attr, (MPI_Win win, int win_keyval));
SHMC_MPI_FN(int, Win_create_keyval,
            (MPI_Win_copy_attr_function * win_copy_attr_fn,
             MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state));
SHMC_MPI_FN(int, Win_free_keyval, (int *win_keyval));
SHMC_MPI_FN(int, Keyval_create,
            (MPI_Copy_function * copy_fn, MPI_Delete_function *delete_fn, int *keyval,
             void *extra_state));
SHMC_MPI_FN(int, Keyval_free, (int *keyval));
SHMC_MPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
SHMC_MPI_FN(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
SHMC_MPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval));
SHMC_MPI_FN(int, Comm_test_inter, (MPI_Comm comm, int *flag));
SHMC_MPI_FN(int, Intercomm_create,
            (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
             MPI_Comm *newintercomm));
SHMC_MPI_FN(int, Intercomm_create_from_groups,
            (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
             const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
             MPI_Comm *newintercomm));
SHMC_MPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
SHMC_MPI_FN(int, Comm_remote_size, (MPI_Comm comm, int *size));
SHMC_MPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
SHMC_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
SHMC_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
SHMC_MPI_FN(int, Group_size, (MPI_Group group, int *size));
SHMC_MPI_FN(int, Group_rank, (MPI_Group group, int *rank));
SHMC_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_translate_ranks,
            (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
SHMC_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
SHMC_MPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
SHMC_MPI_FN(int, Group_free, (MPI_Group * group));
SHMC_MPI_FN(int, Cart_create,
            (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
             MPI_Comm *comm_cart));
SHMC_MPI_FN(int, Dims_create, (int nnodes, int ndims, int dims[]));
SHMC_MPI_FN(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
SHMC_MPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
SHMC_MPI_FN(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
SHMC_MPI_FN(int, Cartdim_get, (MPI_Comm comm, int *ndims));
SHMC_MPI_FN(int, Cart_shift,
            (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
SHMC_MPI_FN(int, Topo_test, (MPI_Comm comm, int *status));
SHMC_MPI_FN(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
SHMC_MPI_FN(int, Cart_map,
            (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
SHMC_MPI_FN(int, Graph_create,
            (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
             MPI_Comm *comm_graph));
SHMC_MPI_FN(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
SHMC_MPI_FN(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
SHMC_MPI_FN(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
SHMC_MPI_FN(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
SHMC_MPI_FN(int, Graph_map,
            (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
SHMC_MPI_FN(int, Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
             int outdegree, const int destinations[], const int destweights[], MPI_Info info,
             int reorder, MPI_Comm *comm_dist_graph));
SHMC_MPI_FN(int, Dist_graph_create,
            (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
             const int destinations[], const int weights[], MPI_Info info, int reorder,
             MPI_Comm *comm_dist_graph));
SHMC_MPI_FN(int, Dist_graph_neighbors_count,
            (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
SHMC_MPI_FN(int, Dist_graph_neighbors,
            (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
             int destinations[], int destweights[]));

/* ---- point-to-point ------------------------------------------------------------------ */
SHMC_MPI_FN(int, Send,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SHMC_MPI_FN(int, Ssend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SHMC_MPI_FN(int, Rsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SHMC_MPI_FN(int, Bsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
SHMC_MPI_FN(int, Buffer_attach, (void *buffer, int size));
SHMC_MPI_FN(int, Buffer_detach, (void *buffer_addr, int *size));
SHMC_MPI_FN(int, Recv,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status));
SHMC_MPI_FN(int, Isend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Issend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Irsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ibsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Irecv,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Wait, (MPI_Request * request, MPI_Status *status));
SHMC_MPI_FN(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status *statuses));
SHMC_MPI_FN(int, Waitany,
            (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
SHMC_MPI_FN(int, Waitsome,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status *statuses));
SHMC_MPI_FN(int, Test, (MPI_Request * request, int *flag, MPI_Status *status));
SHMC_MPI_FN(int, Testall,
            (int count, MPI_Request array_of_requests[], int *flag, MPI_Status *statuses));
SHMC_MPI_FN(int, Testany,
            (int count, MPI_Request array_of_requests[], int *index, int *flag,
             MPI_Status *status));
SHMC_MPI_FN(int, Testsome,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status *statuses));
SHMC_MPI_FN(int, Request_free, (MPI_Request * request));
SHMC_MPI_FN(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
SHMC_MPI_FN(int, Send_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Bsend_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ssend_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Rsend_init,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Recv_init,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Start, (MPI_Request * request));
SHMC_MPI_FN(int, Startall, (int count, MPI_Request array_of_requests[]));
SHMC_MPI_FN(int, Grequest_start,
            (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function *free_fn,
             MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
SHMC_MPI_FN(int, Grequest_complete, (MPI_Request request));
SHMC_MPI_FN(int, Request_get_status_any,
            (int count, MPI_Request array_of_requests[], int *index, int *flag,
             MPI_Status *status));
SHMC_MPI_FN(int, Request_get_status_all,
            (int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses));
SHMC_MPI_FN(int, Request_get_status_some,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status *array_of_statuses));
SHMC_MPI_FN(int, Status_get_source, (const MPI_Status *status, int *source));
SHMC_MPI_FN(int, Status_set_source, (MPI_Status * status, int source));
SHMC_MPI_FN(int, Status_get_tag, (const MPI_Status *status, int *tag));
SHMC_MPI_FN(int, Status_set_tag, (MPI_Status * status, int tag));
SHMC_MPI_FN(int, Status_get_error, (const MPI_Status *status, int *error));
SHMC_MPI_FN(int, Status_set_error, (MPI_Status * status, int error));
SHMC_MPI_FN(int, Cancel, (MPI_Request * request));
SHMC_MPI_FN(int, Test_cancelled, (const MPI_Status *status, int *flag));
SHMC_MPI_FN(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
SHMC_MPI_FN(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
SHMC_MPI_FN(int, Get_elements_x,
            (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
SHMC_MPI_FN(int, Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count));
SHMC_MPI_FN(int, Status_set_elements_x,
            (MPI_Status * status, MPI_Datatype datatype, MPI_Count count));
SHMC_MPI_FN(int, Status_set_cancelled, (MPI_Status * status, int flag));
SHMC_MPI_FN(int, Sendrecv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status *status));
SHMC_MPI_FN(int, Sendrecv_replace,
            (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Status *status));
SHMC_MPI_FN(int, Isendrecv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Isendrecv_replace,
            (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
SHMC_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
SHMC_MPI_FN(int, Mprobe,
            (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
SHMC_MPI_FN(int, Improbe,
            (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
             MPI_Status *status));
SHMC_MPI_FN(int, Mrecv,
            (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Status *status));
SHMC_MPI_FN(int, Imrecv,
            (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Request *request));

/* ---- collectives and reductions ------------------------------------------------------ */
SHMC_MPI_FN(int, Barrier, (MPI_Comm comm));
SHMC_MPI_FN(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Reduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm));
SHMC_MPI_FN(int, Allreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Gather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Gatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm));
SHMC_MPI_FN(int, Scatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Scatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Alltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
SHMC_MPI_FN(int, Reduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm));
SHMC_MPI_FN(int, Reduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Scan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Exscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Reduce_local,
            (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));
SHMC_MPI_FN(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op *op));
SHMC_MPI_FN(int, Op_free, (MPI_Op * op));
SHMC_MPI_FN(int, Op_commutative, (MPI_Op op, int *commute));

/* ---- datatypes ------------------------------------------------------------------------- */
SHMC_MPI_FN(int, Type_size, (MPI_Datatype datatype, int *size));
SHMC_MPI_FN(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
SHMC_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
SHMC_MPI_FN(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
SHMC_MPI_FN(int, Type_get_true_extent_x,
            (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
SHMC_MPI_FN(int, Type_get_true_extent,
            (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
SHMC_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
SHMC_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
SHMC_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_vector,
            (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_hvector,
            (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_indexed,
            (int count, const int array_of_blocklengths[], const int array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_hindexed,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_indexed_block,
            (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_hindexed_block,
            (int count, int blocklength, const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_struct,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_subarray,
            (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_resized,
            (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_darray,
            (int size, int rank, int ndims, const int array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
             int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
SHMC_MPI_FN(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_get_envelope,
            (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
             int *combiner));
SHMC_MPI_FN(int, Type_get_contents,
            (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
             int array_of_integers[], MPI_Aint array_of_addresses[],
             MPI_Datatype array_of_datatypes[]));
SHMC_MPI_FN(int, Type_commit, (MPI_Datatype * datatype));
SHMC_MPI_FN(int, Type_free, (MPI_Datatype * datatype));
SHMC_MPI_FN(int, Pack,
            (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm));
SHMC_MPI_FN(int, Unpack,
            (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
             MPI_Datatype datatype, MPI_Comm comm));
SHMC_MPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
SHMC_MPI_FN(int, Pack_external,
            (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
             void *outbuf, MPI_Aint outsize, MPI_Aint *position));
SHMC_MPI_FN(int, Unpack_external,
            (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
             void *outbuf, int outcount, MPI_Datatype datatype));
SHMC_MPI_FN(int, Pack_external_size,
            (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));

/* ---- MPI-1 names that MPI 3 removed, kept because old programs still call them ------ */
SHMC_MPI_FN(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
SHMC_MPI_FN(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
SHMC_MPI_FN(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
SHMC_MPI_FN(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
SHMC_MPI_FN(int, Type_struct,
            (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
             MPI_Datatype array_of_types[], MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_hvector,
            (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_hindexed,
            (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Address, (void *location, MPI_Aint *address));

/* ---- MPI 4's large-count forms ("_c": counts and displacements as MPI_Count) ---------- */
SHMC_MPI_FN(int, Send_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm));
SHMC_MPI_FN(int, Bsend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm));
SHMC_MPI_FN(int, Ssend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm));
SHMC_MPI_FN(int, Rsend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm));
SHMC_MPI_FN(int, Recv_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status));
SHMC_MPI_FN(int, Isend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ibsend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Issend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Irsend_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Irecv_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Send_init_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Bsend_init_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ssend_init_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Rsend_init_c,
            (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Recv_init_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Sendrecv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status *status));
SHMC_MPI_FN(int, Sendrecv_replace_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Status *status));
SHMC_MPI_FN(int, Isendrecv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Isendrecv_replace_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Mrecv_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Status *status));
SHMC_MPI_FN(int, Imrecv_c,
            (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Request *request));
SHMC_MPI_FN(int, Buffer_attach_c, (void *buffer, MPI_Count size));
SHMC_MPI_FN(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size));
SHMC_MPI_FN(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
SHMC_MPI_FN(int, Get_elements_c,
            (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
SHMC_MPI_FN(int, Status_set_elements_c,
            (MPI_Status * status, MPI_Datatype datatype, MPI_Count count));
SHMC_MPI_FN(int, Pack_c,
            (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
             MPI_Count outsize, MPI_Count *position, MPI_Comm comm));
SHMC_MPI_FN(int, Unpack_c,
            (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm));
SHMC_MPI_FN(int, Pack_size_c,
            (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size));
SHMC_MPI_FN(int, Pack_external_c,
            (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
             void *outbuf, MPI_Count outsize, MPI_Count *position));
SHMC_MPI_FN(int, Unpack_external_c,
            (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
             void *outbuf, MPI_Count outcount, MPI_Datatype datatype));
SHMC_MPI_FN(int, Pack_external_size_c,
            (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size));
SHMC_MPI_FN(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_vector_c,
            (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_hvector_c,
            (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_indexed_c,
            (MPI_Count count, const MPI_Count array_of_blocklengths[],
             const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_hindexed_c,
            (MPI_Count count, const MPI_Count array_of_blocklengths[],
             const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_indexed_block_c,
            (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_hindexed_block_c,
            (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_struct_c,
            (MPI_Count count, const MPI_Count array_of_blocklengths[],
             const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_subarray_c,
            (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
             const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
             MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_darray_c,
            (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
             int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_create_resized_c,
            (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype));
SHMC_MPI_FN(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size));
SHMC_MPI_FN(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
SHMC_MPI_FN(int, Type_get_true_extent_c,
            (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
SHMC_MPI_FN(int, Type_get_envelope_c,
            (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
             MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner));
SHMC_MPI_FN(int, Type_get_contents_c,
            (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
             MPI_Datatype array_of_datatypes[]));
SHMC_MPI_FN(int, Op_create_c, (MPI_User_function_c * user_fn, int commute, MPI_Op *op));
SHMC_MPI_FN(int, Reduce_local_c,
            (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op));
SHMC_MPI_FN(int, Bcast_c,
            (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Reduce_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm));
SHMC_MPI_FN(int, Allreduce_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Scan_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Exscan_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm));
SHMC_MPI_FN(int, Reduce_scatter_block_c,
            (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm));
SHMC_MPI_FN(int, Reduce_scatter_c,
            (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
SHMC_MPI_FN(int, Gather_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Scatter_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
SHMC_MPI_FN(int, Allgather_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Alltoall_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Gatherv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm));
SHMC_MPI_FN(int, Scatterv_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
             MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm));
SHMC_MPI_FN(int, Allgatherv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm));
SHMC_MPI_FN(int, Alltoallv_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Alltoallw_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

/* ---- nonblocking collectives (on intracommunicators) ------------------------------- */
SHMC_MPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ibcast,
            (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ibcast_c,
            (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Iallreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iallreduce_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ireduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ireduce_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Igather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Igather_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Igatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Igatherv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iscatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iscatter_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Iscatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Iscatterv_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
             MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iallgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iallgather_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iallgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Iallgatherv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ialltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ialltoall_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ialltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ialltoallv_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ialltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ialltoallw_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ireduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ireduce_scatter_c,
            (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ireduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ireduce_scatter_block_c,
            (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iscan_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iexscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Iexscan_c,
            (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request));

/* ---- persistent collectives (on intracommunicators) -------------------------------- */
SHMC_MPI_FN(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Bcast_init,
            (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Reduce_init,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Allreduce_init,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Gather_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Gatherv_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Scatter_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Scatterv_init,
            (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Allgather_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Allgatherv_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Alltoall_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Alltoallv_init,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Alltoallw_init,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Reduce_scatter_init,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Reduce_scatter_block_init,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Scan_init,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Exscan_init,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* ---- neighbourhood collectives ------------------------------------------------------ */
SHMC_MPI_FN(int, Neighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Neighbor_allgather_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Ineighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ineighbor_allgather_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_allgather_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Neighbor_allgatherv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm));
SHMC_MPI_FN(int, Ineighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ineighbor_allgatherv_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_allgatherv_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Neighbor_alltoall_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Ineighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ineighbor_alltoall_c,
            (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_alltoall_init,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Neighbor_alltoallv_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
SHMC_MPI_FN(int, Ineighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Ineighbor_alltoallv_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_alltoallv_init,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
SHMC_MPI_FN(int, Neighbor_alltoallw_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
SHMC_MPI_FN(int, Ineighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Ineighbor_alltoallw_c,
            (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request));
SHMC_MPI_FN(int, Neighbor_alltoallw_init,
            (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request *request));

/* ---- one-sided communication (win.c, rma.c) ---------------------------------------- */
SHMC_MPI_FN(int, Win_allocate,
            (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
             MPI_Win *win));
SHMC_MPI_FN(int, Win_allocate_shared,
            (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
             MPI_Win *win));
SHMC_MPI_FN(int, Win_shared_query,
            (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
SHMC_MPI_FN(int, Win_free, (MPI_Win * win));
SHMC_MPI_FN(int, Win_fence, (int assert, MPI_Win win));
SHMC_MPI_FN(int, Win_post, (MPI_Group group, int assert, MPI_Win win));
SHMC_MPI_FN(int, Win_start, (MPI_Group group, int assert, MPI_Win win));
SHMC_MPI_FN(int, Win_complete, (MPI_Win win));
SHMC_MPI_FN(int, Win_wait, (MPI_Win win));
SHMC_MPI_FN(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win));
SHMC_MPI_FN(int, Win_unlock, (int rank, MPI_Win win));
SHMC_MPI_FN(int, Win_lock_all, (int assert, MPI_Win win));
SHMC_MPI_FN(int, Win_unlock_all, (MPI_Win win));
SHMC_MPI_FN(int, Win_flush, (int rank, MPI_Win win));
SHMC_MPI_FN(int, Win_flush_local, (int rank, MPI_Win win));
SHMC_MPI_FN(int, Win_flush_all, (MPI_Win win));
SHMC_MPI_FN(int, Win_flush_local_all, (MPI_Win win));
SHMC_MPI_FN(int, Win_sync, (MPI_Win win));
SHMC_MPI_FN(int, Put,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win));
SHMC_MPI_FN(int, Get,
            (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
SHMC_MPI_FN(int, Accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Op op, MPI_Win win));
SHMC_MPI_FN(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
SHMC_MPI_FN(int, Win_create,
            (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
SHMC_MPI_FN(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size));
SHMC_MPI_FN(int, Win_detach, (MPI_Win win, const void *base));
SHMC_MPI_FN(int, Win_test, (MPI_Win win, int *flag));
SHMC_MPI_FN(int, Win_get_group, (MPI_Win win, MPI_Group *group));
SHMC_MPI_FN(int, Win_set_name, (MPI_Win win, const char *win_name));
SHMC_MPI_FN(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen));
SHMC_MPI_FN(int, Win_set_info, (MPI_Win win, MPI_Info info));
SHMC_MPI_FN(int, Win_get_info, (MPI_Win win, MPI_Info *info_used));
SHMC_MPI_FN(int, Win_create_errhandler,
            (MPI_Win_errhandler_function * win_errhandler_fn, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
SHMC_MPI_FN(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler));
SHMC_MPI_FN(int, Win_call_errhandler, (MPI_Win win, int errorcode));
SHMC_MPI_FN(int, Get_accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win));
SHMC_MPI_FN(int, Fetch_and_op,
            (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
             MPI_Aint target_disp, MPI_Op op, MPI_Win win));
SHMC_MPI_FN(int, Compare_and_swap,
            (const void *origin_addr, const void *compare_addr, void *result_addr,
             MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
SHMC_MPI_FN(int, Rput,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request));
SHMC_MPI_FN(int, Rget,
            (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request));
SHMC_MPI_FN(int, Raccumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Op op, MPI_Win win, MPI_Request *request));
SHMC_MPI_FN(int, Rget_accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win, MPI_Request *request));

/* ---- declared, not implemented: MPI_ERR_UNSUPPORTED_OPERATION -------------------------- */
/* ---- handle conversions (every handle is an int: each gives its number back) ------- */
SHMC_MPI_FN(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status));
SHMC_MPI_FN(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status));
SHMC_MPI_FN(MPI_Fint, Comm_c2f, (MPI_Comm h));
SHMC_MPI_FN(MPI_Comm, Comm_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Comm_toint, (MPI_Comm h));
SHMC_MPI_FN(MPI_Comm, Comm_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Type_c2f, (MPI_Datatype h));
SHMC_MPI_FN(MPI_Datatype, Type_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Type_toint, (MPI_Datatype h));
SHMC_MPI_FN(MPI_Datatype, Type_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Group_c2f, (MPI_Group h));
SHMC_MPI_FN(MPI_Group, Group_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Group_toint, (MPI_Group h));
SHMC_MPI_FN(MPI_Group, Group_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Request_c2f, (MPI_Request h));
SHMC_MPI_FN(MPI_Request, Request_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Request_toint, (MPI_Request h));
SHMC_MPI_FN(MPI_Request, Request_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Op_c2f, (MPI_Op h));
SHMC_MPI_FN(MPI_Op, Op_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Op_toint, (MPI_Op h));
SHMC_MPI_FN(MPI_Op, Op_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Info_c2f, (MPI_Info h));
SHMC_MPI_FN(MPI_Info, Info_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Info_toint, (MPI_Info h));
SHMC_MPI_FN(MPI_Info, Info_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Errhandler_c2f, (MPI_Errhandler h));
SHMC_MPI_FN(MPI_Errhandler, Errhandler_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Errhandler_toint, (MPI_Errhandler h));
SHMC_MPI_FN(MPI_Errhandler, Errhandler_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Win_c2f, (MPI_Win h));
SHMC_MPI_FN(MPI_Win, Win_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Win_toint, (MPI_Win h));
SHMC_MPI_FN(MPI_Win, Win_fromint, (int h));
SHMC_MPI_FN(MPI_Fint, Message_c2f, (MPI_Message h));
SHMC_MPI_FN(MPI_Message, Message_f2c, (MPI_Fint h));
SHMC_MPI_FN(int, Message_toint, (MPI_Message h));
SHMC_MPI_FN(MPI_Message, Message_fromint, (int h));

#ifdef SHMC_MPI_NOTYET_DEFINED_HERE
#undef SHMC_MPI_NOTYET
#undef SHMC_MPI_NOTYET_DEFINED_HERE
#endif
