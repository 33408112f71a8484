# commdiag build knobs: override on the command line (make PREFIX=/opt/commdiag MPI=0)
VERSION    ?= 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share/commdiag
# the Slurm prolog/epilog/health check and the CI preflight go to $(LIBEXECDIR)/commdiag
LIBEXECDIR ?= $(PREFIX)/libexec
# bash-completion's directory (its pkg-config completionsdir, under PREFIX), else the usual one
BASHCOMPDIR ?= $(or $(shell $(PKG_CONFIG) --define-variable=prefix=$(PREFIX) --variable=completionsdir bash-completion \
	2>/dev/null),$(PREFIX)/share/bash-completion/completions)
# systemd units, under PREFIX: systemd reads both /usr/lib/systemd/system and
# /usr/local/lib/systemd/system (not pkg-config's systemdsystemunitdir: on Debian it
# ignores the prefix and says /lib/systemd/system)
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
# configuration (the example $(SYSCONFDIR)/default/commdiag that the service reads):
# /etc for PREFIX=/usr, as packages do; else under PREFIX, like everything else
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
DESTDIR    ?=

CC         ?= cc
PKG_CONFIG ?= pkg-config
INSTALL    ?= install
CFLAGS     ?= -O2 -g
LDFLAGS    ?=

# CUDA Toolkit: only its headers (cuda.h, nccl.h) are used; nothing GPU is linked
CUDA_HOME  ?= /usr/local/cuda
# MPI: auto-detected from mpicc on PATH; MPI=0 builds a one-rank tool
MPICC      ?= mpicc
MPI        ?= $(if $(shell command -v $(MPICC) 2>/dev/null),1,0)
# SANITIZE=1: AddressSanitizer + UndefinedBehaviorSanitizer
SANITIZE   ?= 0
# fuzzing (make fuzz, make fuzz-run): libFuzzer needs clang (Debian: clang, libclang-rt-14-dev)
FUZZ_CC    ?= clang
FUZZ_SECONDS ?= 60
