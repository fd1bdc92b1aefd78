#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The column names of attach-run.sh's rows
printf '%-26s %-13s %6s %10s %8s %10s %8s %6s %8s\n' RUN MECHANISM FUNCS \
	"ATTACH ms" "FN/s" "DETACH ms" "FN/s" FDS "WALL s"
