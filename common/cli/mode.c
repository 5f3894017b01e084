// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduler mode names and numbers (include/scxkit/mode.h). The numbers
 * are org.scx.Loader's; the names are those of upstream's scx_loader
 * configuration (gaming_mode, powersave_mode, ...) without the suffix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <scxkit/mode.h>

static const char *const names[SCXK_NR_MODES] = {
	[SCXK_MODE_AUTO] = "auto",	     [SCXK_MODE_GAMING] = "gaming",
	[SCXK_MODE_POWERSAVE] = "powersave", [SCXK_MODE_LOWLATENCY] = "lowlatency",
	[SCXK_MODE_SERVER] = "server",
};

const char *scxk_mode_name(unsigned int m)
{
	return m < SCXK_NR_MODES ? names[m] : NULL;
}

int scxk_mode_parse(const char *s)
{
	char *end;
	unsigned long v;
	unsigned int m;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] >= '0' && s[0] <= '9') {
		v = strtoul(s, &end, 10);
		return *end || v >= SCXK_NR_MODES ? -EINVAL : (int)v;
	}
	/* upstream's enum spells them LowLatency and PowerSave; people write low-latency */
	if (!strcasecmp(s, "low-latency"))
		return SCXK_MODE_LOWLATENCY;
	if (!strcasecmp(s, "power-save"))
		return SCXK_MODE_POWERSAVE;
	for (m = 0; m < SCXK_NR_MODES; m++)
		if (!strcasecmp(s, names[m]))
			return (int)m;
	return -EINVAL;
}
