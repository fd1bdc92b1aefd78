// SPDX-License-Identifier: GPL-2.0
/* Why user stacks end, in words (ustop.h). */
#include <stddef.h>
#include "ustop.h"

static const char *const names[KFIT_NUSTOPS] = {
	[KFIT_USTOP_END] = "whole",
	[KFIT_USTOP_COPY] = "stack copy too small",
	[KFIT_USTOP_NOINFO] = "no unwind info",
	[KFIT_USTOP_NOMAP] = "unmapped address",
	[KFIT_USTOP_RULE] = "unwind rule not handled",
	[KFIT_USTOP_BAD] = "bad frame",
	[KFIT_USTOP_DEPTH] = "deeper than kept",
	[KFIT_USTOP_NOREGS] = "no user stack",
	[KFIT_USTOP_FAULT] = "stack unreadable",
};

static const char *const keys[KFIT_NUSTOPS] = {
	[KFIT_USTOP_END] = "whole",
	[KFIT_USTOP_COPY] = "copy",
	[KFIT_USTOP_NOINFO] = "no_info",
	[KFIT_USTOP_NOMAP] = "unmapped",
	[KFIT_USTOP_RULE] = "rule",
	[KFIT_USTOP_BAD] = "bad_frame",
	[KFIT_USTOP_DEPTH] = "depth",
	[KFIT_USTOP_NOREGS] = "no_stack",
	[KFIT_USTOP_FAULT] = "unreadable",
};

const char *kfit_ustop_name(unsigned int why)
{
	return why < KFIT_NUSTOPS ? names[why] : "?";
}

const char *kfit_ustop_key(unsigned int why)
{
	return why < KFIT_NUSTOPS ? keys[why] : "?";
}
