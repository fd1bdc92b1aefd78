// SPDX-License-Identifier: GPL-2.0
/*
 * boottime: prints the boot clock (CLOCK_BOOTTIME) in seconds with
 * nanoseconds, "12.345678901", the clock bootsum records on. The boot
 * benchmark (tools/bench/bootsum.sh) reads it in the VM at the end of the
 * scripted boot: /proc/uptime has only hundredths.
 */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts)) {
		perror("boottime: clock_gettime");
		return 1;
	}
	printf("%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	return 0;
}
