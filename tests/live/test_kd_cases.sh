#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kd's renders as data: every tests/cases/kd/*.case (KD_CASES_DIR names
# another directory), each case one test, run by tests/cases-lib.sh (its
# header says the format; its own tests are tests/live/test_usage.sh's).
# A case writes a trace file of known content with tests/helpers/kftgen
# (SETUP), runs kd on it and compares its stdout with the case's EXPECT
# lines, written from kftgen's design (its header comment), not from what
# kd printed. No BPF, no root. KFIT_BLESS=1 rewrites the EXPECT lines
# that differ (docs/testing.md): read them before committing them.
#
#	NAME tree: the call trees of three iterations
#	SETUP kftgen -n 3 a.kft
#	RUN kd a.kft
#	EXIT 0
#	EXPECT
#	| Traced 5 functions (uprobe) and tracepoints for 700ms
#	| ...
#
# What is not a render (truncated, corrupt and foreign files, outputs that
# cannot be written, the sanitized kd) stays in tests/live/test_kd.sh.
. "$(dirname "$0")/../lib.sh"
. "$T_REPO/tests/cases-lib.sh"

cases_define "${KD_CASES_DIR:-$T_REPO/tests/cases/kd}"
cases_run_all
