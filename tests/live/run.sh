#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/live/run.sh BUILD_DIR: the live suite, on the running kernel.
# Runs every tests/live/test_*.sh with KFIT_BIN=BUILD_DIR/bin and
# KFIT_HELPERS=BUILD_DIR/tests (unless KFIT_HELPERS is set), and ends with
# "live: N passed, N failed, N skipped". Also used inside the VM.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
if [ ! -d "$1" ]; then
	echo "$0: $1: no such directory" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export KFIT_BIN="$build/bin" KFIT_HELPERS="${KFIT_HELPERS:-$build/tests}"

if [ "$(id -u)" != 0 ]; then
	T_SKIP_ALL="live tests need root (uid $(id -u))"
	export T_SKIP_ALL
fi

. "$here/../suite.sh"

# KFIT_LIVE_EXCLUDE: test files not run here (tests/vm/run.sh says why)
for f in "$here"/test_*.sh; do
	[ -e "$f" ] || continue
	case " ${KFIT_LIVE_EXCLUDE:-} " in
	*" $(basename "$f") "*) echo "=== $(basename "$f"): not run here (KFIT_LIVE_EXCLUDE)"; continue ;;
	esac
	suite_run "$(basename "$f")" bash "$f"
done

suite_end live
