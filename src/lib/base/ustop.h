/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_USTOP_H
#define KFIT_USTOP_H

#include "kfit/rec.h"

/*
 * What stopped the unwinding of a user stack, in words for the frame
 * that ends a stack cut short ("stack copy too small"), the summaries and
 * -j ("copy"); "?" beyond the enum
 */
const char *kfit_ustop_name(unsigned int why);
const char *kfit_ustop_key(unsigned int why);

#endif
