/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_DENY_H
#define KFIT_DENY_H

/*
 * Kernel functions not traced by default: those the tracing machinery
 * runs itself (a probe on them recurses, is missed or deadlocks) and
 * those whose time says nothing about the traced work. Tools skip them
 * with the reason unless asked not to (--no-deny).
 */

/* Why name is denied ("lock internals: ..."), or NULL when it is not */
const char *kfit_deny_reason(const char *name);

#endif
