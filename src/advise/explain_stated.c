/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The words in which a line states its own cause, from the texts the system prints them with,
 * read on Debian 12: glibc 2.36's strerror (python3 os.strerror) and gai_strerror (through
 * ctypes), its dynamic loader's messages (strings /lib64/ld-linux-x86-64.so.2), the CUDA 13
 * runtime's error strings (strings libcudart.so.13) and the driver API's CUresult names (CUDA 13's
 * cuda.h) where the code says what is wrong, Python 3.11's ModuleNotFoundError and
 * argparse, GNU getopt and bash, SIGILL's name and the kernel OOM killer's report; and the MPI
 * error classes that name a refused argument, as MPICH (src/mpi/errhan/errnames.txt,
 * 6a79bf6575) and Open MPI (ompi/errhandler/errcode.c, 8efebee745) print them, with MPICH
 * hydra's "unrecognized argument %s" (lib/utils/args.c).
 * Only words that name what is wrong are here: a timeout, a refused or reset connection,
 * "Invalid argument", "Input/output error" and "Bad address" say that something failed, not
 * why, so a log of them alone stays one explain cannot explain.
 * Most specific first: the loader's, the resolver's, CUDA's and the tools' own words before the
 * strerror text their line may end with ("cannot open shared object file: No such file or
 * directory" is a missing library), "Too many open files in system" before "Too many open files".
 */
#include <ctype.h>
#include <string.h>

#include "explain_stated.h"

#define GLIBC "glibc's strerror"
#define GAI "glibc's getaddrinfo (gai_strerror)"
#define LDSO "the dynamic loader (ld.so)"
#define CUDART "the CUDA runtime"
#define CUDRV "the CUDA driver API (cuda.h CUresult names)"
#define MPICH "MPICH's error class texts (errnames.txt)"
#define OMPI "Open MPI's error class strings (ompi/errhandler/errcode.c)"

#define PERMISSION                                                                                                    \
	"check that the job's user may use the path or device the line names on that host (ls -ld PATH; id), "    \
	"and, in a container, the user it runs as and how the path is mounted"
#define MISSING_PATH                                                                                                  \
	"check that the path the line names exists on every host the job runs on (ls -l PATH): installed, mounted, " \
	"or created by the step that should have made it"
#define FULL                                                                                                          \
	"free space or quota where the line writes (df -h PATH; quota -s), or point the program at a file system "   \
	"with room; in a container /dev/shm and /tmp are often small"
#define NO_MEMORY                                                                                                     \
	"check what else holds memory on that host or GPU (free -g; nvidia-smi) and the job's limits (ulimit -a; "   \
	"the cgroup or the scheduler's memory request)"
#define ADDRESS                                                                                                       \
	"check the address the line names against the host's own (ip -br addr): it must be configured on that host, " \
	"in a family (IPv4 or IPv6) the host has enabled"
#define ROUTE                                                                                                         \
	"check the route from that host to the address the line names (ip route get ADDRESS) and any firewall "       \
	"between the two hosts"
#define RESOLVE                                                                                                       \
	"make the host name the line names resolve on every host (getent hosts NAME: DNS or /etc/hosts), or give "   \
	"addresses instead of names"
#define LIBRARY                                                                                                       \
	"install the library the line names on every host, or add its directory to LD_LIBRARY_PATH where the ranks " \
	"start (ldd on the program shows what is missing)"
#define MIXED                                                                                                         \
	"the program was built against another version of the library the line names than the one it loads: check " \
	"LD_LIBRARY_PATH and ldd on the program, and use one version on every host"
#define MPI_ARGS                                                                                                      \
	"MPI refused an argument of the program's call: a program built with one MPI's mpi.h and run with another's " \
	"library (mpi4py or a wheel built elsewhere) passes handles the library does not know: ldd PROGRAM; mpicc " \
	"-show; which mpirun"
#define MPI_RANK                                                                                                      \
	"a call named a rank the communicator does not have: start as many ranks as the program expects (mpirun " \
	"-np), or check how it computes the rank it names"
#define TRUNCATED                                                                                                     \
	"a receive got more data than its buffer holds: the ranks disagree on a message's size (different inputs, " \
	"code or library versions on different ranks, or a bug in the program)"
#define ECC "take the GPU out of service and check it (nvidia-smi -q -d ECC,ROW_REMAPPER; dcgmi diag)"
#define FABRIC                                                                                                        \
	"on a host with NVSwitches the fabric manager must run, at the driver's exact version, before CUDA starts: " \
	"systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -A2 Fabric"
#define DRIVER_MIX                                                                                                    \
	"the kernel module and the user-space driver libraries differ in version (after an upgrade without a " \
	"reboot, or a container's own libcuda): cat /proc/driver/nvidia/version against nvidia-smi"
#define DRIVER_OLD                                                                                                    \
	"the driver is older than the CUDA the program was built with: upgrade the driver, or use a build for the " \
	"driver's CUDA (nvidia-smi shows the newest CUDA it supports)"
#define NO_CODE                                                                                                       \
	"the program or a library it loads has no code for this GPU's architecture: use a build that includes it " \
	"(nvidia-smi --query-gpu=compute_cap --format=csv; the build's arch list)"
#define GPU_BUSY                                                                                                      \
	"check the GPUs' compute mode (nvidia-smi -q -d COMPUTE: Exclusive_Process lets one process in) and what " \
	"else runs on them"
#define NO_DEVICE                                                                                                     \
	"check that the device the line names is present and up on that host (ls -l /dev; ip -br link; ibv_devinfo)"
#define GPUS                                                                                                          \
	"check which GPUs each process sees and asks for (nvidia-smi -L; CUDA_VISIBLE_DEVICES; the device index each " \
	"local rank selects)"

static const struct cd_stated stated[] = {
	{ "Name or service not known", GAI, "host name does not resolve", RESOLVE },
	{ "Temporary failure in name resolution", GAI, "name resolution failed", RESOLVE },
	{ "No address associated with hostname", GAI, "host name has no address", RESOLVE },
	{ "cannot open shared object file", LDSO, "shared library missing", LIBRARY },
	{ "undefined symbol: ", LDSO, "library version mixed", MIXED },
	{ "' not found (required by ", LDSO, "library too old", MIXED },
	{ "wrong ELF class", LDSO, "library of the wrong word size",
	  "the library the line names is 32-bit where the program is 64-bit (or the reverse): install the right "
	  "one and check LD_LIBRARY_PATH" },
	{ "invalid device ordinal", CUDART, "GPU index out of range", GPUS },
	{ "no CUDA-capable device is detected", CUDART, "no GPU visible", GPUS },
	{ "CUDA-capable device(s) is/are busy or unavailable", CUDART, "GPU busy or unavailable", GPU_BUSY },
	{ "all CUDA-capable devices are busy or unavailable", CUDART, "GPU busy or unavailable", GPU_BUSY },
	{ "system not yet initialized", CUDART, "GPU system not ready", FABRIC },
	{ "CUDA_ERROR_SYSTEM_NOT_READY", CUDRV, "GPU system not ready", FABRIC },
	{ "system has unsupported display driver / cuda driver combination", CUDART, "driver components mixed",
	  DRIVER_MIX },
	{ "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", CUDRV, "driver components mixed", DRIVER_MIX },
	{ "CUDA driver version is insufficient for CUDA runtime version", CUDART, "driver older than the runtime",
	  DRIVER_OLD },
	{ "forward compatibility was attempted on non supported HW", CUDART, "forward compatibility unsupported",
	  DRIVER_OLD },
	{ "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", CUDRV, "forward compatibility unsupported", DRIVER_OLD },
	{ "no kernel image is available for execution on the device", CUDART, "no code for this GPU", NO_CODE },
	{ "CUDA_ERROR_NO_BINARY_FOR_GPU", CUDRV, "no code for this GPU", NO_CODE },
	{ "the provided PTX was compiled with an unsupported toolchain", CUDART, "driver older than the compiler",
	  DRIVER_OLD },
	{ "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", CUDRV, "driver older than the compiler", DRIVER_OLD },
	{ "CUDA_ERROR_NO_DEVICE", CUDRV, "no GPU visible", GPUS },
	{ "CUDA_ERROR_INVALID_DEVICE", CUDRV, "GPU index out of range", GPUS },
	{ "CUDA_ERROR_OUT_OF_MEMORY", CUDRV, "memory exhausted", NO_MEMORY },
	{ "CUDA_ERROR_ECC_UNCORRECTABLE", CUDRV, "GPU memory error", ECC },
	{ "out of memory", CUDART, "memory exhausted", NO_MEMORY },
	{ "uncorrectable ECC error encountered", CUDART, "GPU memory error", ECC },
	{ "No module named ", "Python's ModuleNotFoundError", "Python module missing",
	  "install the module the line names in the environment the ranks run in, the same one on every host" },
	{ "unrecognized arguments: ", "Python's argparse", "option not accepted",
	  "the program does not accept an option it was given: the command was written for another program or "
	  "version (which PROGRAM; PROGRAM --help)" },
	{ "unrecognized option", "GNU getopt", "option not accepted",
	  "the program does not accept an option it was given: the command was written for another program or "
	  "version (which PROGRAM; PROGRAM --help)" },
	{ ": command not found", "the shell", "program not found",
	  "install the program the line names, or put its directory on PATH where the ranks start" },
	{ "unrecognized argument ", "MPICH's hydra (mpiexec)", "launcher option not accepted",
	  "the launcher does not accept an option it was given: the command was written for another MPI's mpirun "
	  "(Open MPI's options given to MPICH's mpiexec, or the reverse): which mpirun; mpirun --version" },
	{ "MPI not initialized", MPICH, "MPI used before MPI_Init", "the program calls MPI before MPI_Init (or after "
	  "MPI_Finalize), or a library it loads uses another MPI than the one that initialised" },
	{ "Invalid communicator", MPICH, "MPI argument refused", MPI_ARGS },
	{ "Null communicator", MPICH, "MPI argument refused", MPI_ARGS },
	{ "Invalid datatype", MPICH, "MPI argument refused", MPI_ARGS },
	{ "Message truncated", MPICH, "MPI message larger than its receive", TRUNCATED },
	{ "MPI_ERR_COMM: invalid communicator", OMPI, "MPI argument refused", MPI_ARGS },
	{ "MPI_ERR_TYPE: invalid datatype", OMPI, "MPI argument refused", MPI_ARGS },
	{ "MPI_ERR_RANK: invalid rank", OMPI, "MPI rank out of range", MPI_RANK },
	{ "MPI_ERR_ROOT: invalid root", OMPI, "MPI rank out of range", MPI_RANK },
	{ "MPI_ERR_TRUNCATE: message truncated", OMPI, "MPI message larger than its receive", TRUNCATED },
	{ "Out of memory: Killed process", "the Linux kernel's OOM killer (mm/oom_kill.c)", "memory exhausted",
	  NO_MEMORY },
	{ "Illegal instruction", "glibc's strsignal (SIGILL)", "CPU lacks an instruction the program uses",
	  "the program was built for a newer CPU than this host's (AVX-512, for one): use a build for this host's "
	  "CPU (lscpu flags against the build's -march)" },
	{ "Permission denied", GLIBC, "permission denied", PERMISSION },
	{ "Operation not permitted", GLIBC, "operation not permitted", PERMISSION },
	{ "Read-only file system", GLIBC, "read-only file system", PERMISSION },
	{ "No such file or directory", GLIBC, "no such file or directory", MISSING_PATH },
	{ "No space left on device", GLIBC, "no space left on device", FULL },
	{ "Disk quota exceeded", GLIBC, "disk quota exceeded", FULL },
	{ "Cannot allocate memory", GLIBC, "memory exhausted", NO_MEMORY },
	{ "Too many open files in system", GLIBC, "the system's open-file limit reached",
	  "raise the system's limit (sysctl fs.file-max) or find the process holding the files (lsof | wc -l)" },
	{ "Too many open files", GLIBC, "the open-file limit reached",
	  "raise the job's open-file limit (ulimit -n; the scheduler's or container's nofile limit)" },
	{ "Address already in use", GLIBC, "address already in use",
	  "another process holds the address or port the line names (ss -ltnp): stop it, or give the job a port "
	  "that is free on every host" },
	{ "Cannot assign requested address", GLIBC, "address not on this host", ADDRESS },
	{ "Address family not supported by protocol", GLIBC, "address family not supported", ADDRESS },
	{ "Network is unreachable", GLIBC, "network unreachable", ROUTE },
	{ "No route to host", GLIBC, "no route to host", ROUTE },
	{ "Device or resource busy", GLIBC, "device busy",
	  "find the process that holds the device the line names (fuser -v DEVICE; nvidia-smi), or give the job "
	  "another one" },
	{ "No such device or address", GLIBC, "no such device", NO_DEVICE },
	{ "No such device", GLIBC, "no such device", NO_DEVICE },
	{ "Stale file handle", GLIBC, "network file system handle stale",
	  "the network file system the path is on lost its handle (the server restarted or the file was replaced "
	  "on another host): remount it on that host, and check the server (mount | grep nfs; dmesg)" },
	{ "Exec format error", GLIBC, "a program built for another architecture",
	  "the program the line names was built for another CPU architecture or is not a program: rebuild it or use "
	  "the build for this host (file PROGRAM; uname -m)" },
	{ "Argument list too long", GLIBC, "argument list too long",
	  "shorten the command or environment the launcher passes (long host lists or environments: a hostfile)" },
	{ "Function not implemented", GLIBC, "not supported by this kernel",
	  "the kernel or the container's sandbox does not offer the call the line names: check the kernel "
	  "version and the container's seccomp profile" },
	{ "Operation not supported", GLIBC, "operation not supported",
	  "the device, driver or file system the line names does not support the operation: check its kind and "
	  "driver on that host" },
};

/* The tag stands as a word of its own: not inside a name (INFO in "PMIX_INFO_KEY", "ignored" in a
 * path such as /runs/ignored_runs). */
static int tag_in(const char *line, const char *tag)
{
	size_t n = strlen(tag);

	for (const char *p = strstr(line, tag); p; p = strstr(p + 1, tag)) {
		int before = p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '/');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '/';

		if (!before && !after)
			return 1;
	}
	return 0;
}

/*
 * Lines of a level that reports routine events, or that say the failure was passed over: what
 * they say went wrong was handled ("libibverbs: Warning: couldn't load driver …: cannot open
 * shared object file", ld.so's "cannot be preloaded (…): ignored.", a Python UserWarning). A
 * warning of NCCL's is its error channel, not a notice: the catalogue and LOG099 read those.
 */
static int routine_level(const char *line)
{
	static const char *const tags[] = { "INFO",    "DEBUG",	  "TRACE",	 "info>",   "debug>",	"trace>",
					    "Warning", "WARNING", "warning:",	 "warn>",   "UserWarning", "ignored",
					    "ignoring", "can ignore" };
	const char *w = strstr(line, " WARN ");

	if (w && !(w - line >= 4 && !strncmp(w - 4, "NCCL", 4)))
		return 1;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (tag_in(line, tags[i]))
			return 1;
	return 0;
}

const struct cd_stated *cd_stated_cause(const char *line)
{
	/* the words first: most lines have none, and only those that do need their level read */
	for (size_t i = 0; i < sizeof(stated) / sizeof(stated[0]); i++)
		if (strstr(line, stated[i].words))
			return routine_level(line) ? NULL : &stated[i];
	return NULL;
}
