/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracepoint format file as tracefs shows it, for tests that write
 * trace files (kftgen, test_kft): /sys/kernel/tracing/events/syscalls/
 * sys_enter_write/format on the development machine; and the fields it
 * shares with every other event's.
 */
#ifndef KFIT_TEST_TPFORMATS_H
#define KFIT_TEST_TPFORMATS_H

/* What every event's format has after its name and ID: the common_ fields */
#define TP_COMMON_FIELDS \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

static const char write_format[] =
	"name: sys_enter_write\n"
	"ID: 840\n"
	TP_COMMON_FIELDS
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", "
	"((unsigned long)(REC->fd)), ((unsigned long)(REC->buf)), "
	"((unsigned long)(REC->count))\n";

#endif
