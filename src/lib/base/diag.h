/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_DIAG_H
#define KFIT_DIAG_H

/*
 * Messages: the floor of the library, which everything else may use and
 * which uses nothing of it (no libbpf, no mechanism checks).
 */

extern const char *kfit_prog;	/* the tool's name, for messages ("kfit" until set) */

/* Names the tool and sets the verbosity (-v counted) of what follows */
void kfit_diag_setup(const char *prog, int verbosity);
int kfit_verbosity(void);

/* "tool: message\n" on stderr */
void kfit_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kfit_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kfit_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same as kfit_info, shown only with -v */
void kfit_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Why a load or attach failed, in words, for a negative errno */
const char *kfit_reason(int err);
/* Why fentry/fexit failed where the errno has a tracing-specific meaning, else NULL */
const char *kfit_fentry_reason(int err);

#endif
