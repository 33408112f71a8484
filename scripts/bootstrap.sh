#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Install what commdiag needs to build and test, on Debian/Ubuntu (apt) or
# RHEL-like systems (dnf). Idempotent: installs only what is missing and says what.
# Not root: prints the command to run with sudo and exits 1 if anything is missing.
# --slurm-test: also Slurm's daemons and srun for tests/slurm/run.sh (CI does this; on a
# node that runs its own Slurm, Debian's packages and their services would be in the way).
set -eu

SLURM_TEST=0
for arg in "$@"; do
	case $arg in
	--slurm-test) SLURM_TEST=1 ;;
	*)
		echo "bootstrap: unknown argument '$arg': expected --slurm-test or nothing" >&2
		exit 2
		;;
	esac
done

if [ -r /etc/os-release ]; then
	# shellcheck source=/dev/null
	. /etc/os-release
fi

# The Debian packages of those named that are not installed, each after a space.
apt_missing() {
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
			printf ' %s' "$p"
		fi
	done
}

if command -v apt-get >/dev/null 2>&1; then
	PM=apt
	# build: compiler, pkg-config, the libraries; tests: check, python3 (JSON assertions),
	# python3-jsonschema (the suites' documents against docs/schema), groff (man page),
	# valgrind (check-valgrind), script from bsdutils (colour on a tty),
	# passwd (useradd: CI's unprivileged run), shellcheck (tests/run_scripts.sh); fuzzing:
	# clang and its compiler-rt, which holds libFuzzer (-fsanitize=fuzzer; only recommended
	# by clang, so named here); tests/run_prom.sh: promtool (prometheus) and systemd-analyze
	# (systemd); the HTML report's browser test: chromium, and the font its golden screenshot
	# was taken with (fonts-dejavu-core; chromium only recommends fonts); ucx_info (ucx-utils):
	# the env linter's test feeds it every UCX parameter UCX itself lists; python3-yaml and
	# python3-kubernetes: tests/run_deploy.sh reads the Kubernetes manifests through the API's models
	PKGS="build-essential pkg-config libhwloc-dev libnl-3-dev libnl-route-3-dev libibverbs-dev libcjson-dev
	      check openmpi-bin libopenmpi-dev python3 python3-jsonschema iproute2 man-db groff-base valgrind
	      bsdutils passwd shellcheck clang libclang-rt-dev prometheus systemd chromium fonts-dejavu-core ucx-utils
	      python3-yaml python3-kubernetes"
	# --slurm-test: tests/slurm/run.sh (srun on a one-node cluster of this machine); it skips
	# without them, so a failure to install them (a daemon's postinst in a container) is
	# reported, not fatal
	OPT_PKGS="slurmctld slurmd slurm-client munge"
	# shellcheck disable=SC2086 # a list of names
	missing=$(apt_missing $PKGS)
elif command -v dnf >/dev/null 2>&1; then
	PM=dnf
	# libcjson-devel, check-devel and ShellCheck live in EPEL on RHEL/Rocky/Alma
	PKGS="gcc make pkgconf-pkg-config hwloc-devel libnl3-devel rdma-core-devel cjson-devel check-devel
	      openmpi openmpi-devel python3 python3-jsonschema iproute man-db valgrind util-linux shadow-utils ShellCheck
	      clang compiler-rt chromium dejavu-sans-fonts dejavu-sans-mono-fonts"
	missing=""
	for p in $PKGS; do
		if ! rpm -q "$p" >/dev/null 2>&1; then
			missing="$missing $p"
		fi
	done
else
	echo "bootstrap: neither apt-get nor dnf found; install by hand: a C compiler, make, pkg-config," >&2
	echo "  and the development files of hwloc, libnl-3 (+route), libibverbs, cJSON, Check, OpenMPI" >&2
	exit 1
fi

if [ -z "$missing" ]; then
	echo "bootstrap: all build and test dependencies are installed"
else
	echo "bootstrap: installing:$missing"
	if [ "$(id -u)" != 0 ]; then
		echo "bootstrap: not root; run this, then bootstrap again:" >&2
		if [ "$PM" = apt ]; then
			echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
		else
			echo "  sudo dnf install -y epel-release && sudo dnf install -y$missing" >&2
		fi
		exit 1
	fi
	if [ "$PM" = apt ]; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		if [ "${ID:-}" != fedora ]; then
			dnf install -y -q epel-release >/dev/null 2>&1 || true
		fi
		# shellcheck disable=SC2086
		dnf install -y -q $missing
	fi
	echo "bootstrap: installed:$missing"
fi

if [ "$PM" = apt ] && [ "$SLURM_TEST" = 1 ]; then
	# shellcheck disable=SC2086 # a list of names
	opt_missing=$(apt_missing $OPT_PKGS)
	if [ -n "$opt_missing" ] && [ "$(id -u)" = 0 ]; then
		[ -n "$missing" ] || apt-get update -qq || true
		# shellcheck disable=SC2086
		if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $opt_missing >/dev/null; then
			echo "bootstrap: installed:$opt_missing"
		else
			echo "bootstrap: could not install$opt_missing: tests/slurm/run.sh will skip" >&2
		fi
	elif [ -n "$opt_missing" ]; then
		echo "bootstrap: optional, for tests/slurm/run.sh: sudo apt-get install -y$opt_missing" >&2
	fi
fi

# The CUDA Toolkit is not in the distribution's main archive: only its headers are
# needed (cuda.h, nccl.h), nothing GPU is linked. Say where they were looked for.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -r "$CUDA_HOME/include/cuda.h" ] && [ -r "$CUDA_HOME/include/nccl.h" ]; then
	echo "bootstrap: CUDA Toolkit headers found in $CUDA_HOME/include"
elif [ -r /usr/include/cuda.h ] && [ -r /usr/include/nccl.h ]; then
	echo "bootstrap: CUDA Toolkit headers found in /usr/include (build with: make CUDA_HOME=/usr)"
else
	echo "bootstrap: cuda.h and nccl.h not found in $CUDA_HOME/include: install the CUDA Toolkit and NCCL" >&2
	echo "  (NVIDIA's repository: packages cuda-toolkit and libnccl-dev), or set CUDA_HOME" >&2
	exit 1
fi
