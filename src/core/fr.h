/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PyTorch Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE > 0; written on a watchdog
 * timeout with TORCH_NCCL_DUMP_ON_TIMEOUT=1, one file per rank named <prefix><global rank>,
 * default prefix /tmp/nccl_trace_rank_). Two formats, both read here:
 *
 *   pickle: FlightRecorder::dump() → pickle_str(): torch::jit::Pickler, protocol 2, with
 *     tag_aggregates off, so the stream holds only PROTO, EMPTY_DICT/EMPTY_LIST/EMPTY_TUPLE,
 *     MARK, SETITEMS, APPENDS, BINUNICODE, BININT1/BININT2/BININT/LONG1, BINFLOAT, NONE,
 *     NEWTRUE/NEWFALSE, TUPLE1-3/TUPLE, BINPUT/LONG_BINPUT, BINGET/LONG_BINGET and STOP.
 *     Python's own pickle (a dump re-saved by a script, protocol 2 to 5) adds FRAME,
 *     SHORT_BINUNICODE, BINUNICODE8, MEMOIZE, SETITEM and APPEND; those are read too.
 *     Nothing that imports or calls (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
 *     NEWOBJ, PERSID, EXT…) is: such a file is refused, naming the byte.
 *   JSON: FlightRecorder::dump_json() (nlohmann::json: the same keys; pg_config and
 *     pg_status values are strings; "entries" absent when there are none).
 *
 * Keys read (FlightRecorder.hpp DEFINE_CONSTANT, dump "version" 2.3 … 2.10): version,
 * comm_lib_version, pg_config {name: {name, desc, ranks "[0, 1]"}}, entries [{record_id,
 * pg_id, process_group (name, desc), collective_seq_id (seq_id in older dumps), p2p_seq_id,
 * op_id, profiling_name, input_sizes, output_sizes, input_dtypes, output_dtypes, state,
 * timeout_ms, is_p2p}]. The dump does not name its rank: the file name does.
 */
#ifndef CD_FR_H
#define CD_FR_H

#include <stddef.h>

#define CD_FR_MAX_FILE (256u << 20) /* a dump with stack traces of 2000 entries is tens of MiB */
#define CD_FR_MAX_NODES (4u << 20)  /* values one dump may hold, BINGET copies counted */
#define CD_FR_MAX_DEPTH 64          /* containers open at once; a dump nests five deep */
#define CD_FR_MAX_RANKS (1u << 20)  /* ranks of one process group */

enum cd_fr_state { CD_FR_UNKNOWN, CD_FR_SCHEDULED, CD_FR_STARTED, CD_FR_COMPLETED };

struct cd_fr_entry {
	long long record_id, coll_seq, p2p_seq, op_id; /* -1 when absent */
	char *pg_name, *pg_desc;
	char *profiling_name;  /* "nccl:all_reduce" */
	char *in_sizes, *out_sizes; /* the sizes as Python prints them: "[[1024, 8]]" */
	char *in_dtypes, *out_dtypes;
	enum cd_fr_state state;
	int p2p;               /* is_p2p, or a send/recv by its name when the dump predates the key */
	double timeout_ms;     /* NAN when absent */
};

struct cd_fr_pg {
	char *name, *desc;
	long *ranks;           /* global ranks, in group-rank order */
	size_t n_ranks;
};

struct cd_fr_dump {
	char *path;
	long rank;             /* the global rank, from the file name */
	char *version;         /* the dump format: "2.4", "2.10" */
	char *comm_lib;        /* comm_lib_version (2.7 and later), else NULL */
	int json;
	struct cd_fr_pg *pgs;
	size_t n_pgs, cap_pgs;
	struct cd_fr_entry *entries;
	size_t n_entries, cap_entries;
};

const char *cd_fr_state_str(enum cd_fr_state s);
/* The global rank PyTorch's writer put at the end of the file name ("nccl_trace_rank_3", "…_3.json"). */
int cd_fr_rank_from_name(const char *path, long *rank);
/*
 * One dump (pickle or JSON, told by its first byte) of `len` bytes read from `path`. 0, or
 * -1 with *err (malloc'd, naming the file and, for a pickle, the byte offset) and an empty
 * dump. The rank is taken from the file name, -1 when it has none.
 */
int cd_fr_parse(struct cd_fr_dump *d, const char *path, const unsigned char *buf, size_t len, char **err);
void cd_fr_dump_free(struct cd_fr_dump *d);

#endif
