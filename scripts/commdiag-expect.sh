# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=sh
#
# What this machine's hardware says commdiag must test: sourced by slurm-prolog.sh and
# ci-preflight.sh (not run), which find it beside themselves, in the source tree
# (scripts/) as installed ($(LIBEXECDIR)/commdiag/). One scan, so the prolog and the CI
# preflight cannot come to disagree about what a GPU or an HCA looks like.
#
# commdiag_expect SYSFS GPU_GROUPS
#   prints the rule groups for commdiag's --require, comma-joined: GPU_GROUPS ("gpu", or
#   "gpu,nccl") when the PCI bus under SYSFS has an NVIDIA (vendor 0x10de) VGA or 3D
#   controller (class 0x0300 or 0x0302: every NVIDIA compute GPU is one of the two), then
#   "ib" when SYSFS/class/infiniband has a device (InfiniBand or RoCE: the kernel lists
#   every RDMA device there). Empty when neither.
commdiag_expect() {
	_cx_groups=
	for _cx_dev in "$1"/bus/pci/devices/*; do
		if [ ! -r "$_cx_dev/vendor" ] || [ ! -r "$_cx_dev/class" ]; then continue; fi
		case $(cat "$_cx_dev/vendor")/$(cat "$_cx_dev/class") in
		0x10de/0x0300* | 0x10de/0x0302*) _cx_groups=$2; break ;;
		esac
	done
	for _cx_dev in "$1"/class/infiniband/*; do
		[ -e "$_cx_dev" ] || continue
		_cx_groups=${_cx_groups:+$_cx_groups,}ib
		break
	done
	echo "$_cx_groups"
}
