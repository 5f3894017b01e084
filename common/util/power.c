// SPDX-License-Identifier: GPL-2.0-only
/* power.c - the system power profile from sysfs (see scxkit/power.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/fileio.h>
#include <scxkit/power.h>
#include <scxkit/topo.h>

enum scxk_power_profile scxk_power_profile_read(void)
{
	char w[64];

	if (!scxk_sysfs_read_word("/sys/firmware/acpi/platform_profile", w, sizeof(w))) {
		if (strstr(w, "low-power") || !strcmp(w, "quiet") || !strcmp(w, "cool"))
			return SCXK_PROFILE_POWERSAVE;
		if (!strcmp(w, "performance"))
			return SCXK_PROFILE_PERFORMANCE;
		return SCXK_PROFILE_BALANCED;
	}
	if (!scxk_sysfs_read_word(
		    "/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference", w,
		    sizeof(w))) {
		if (!strcmp(w, "power") || !strcmp(w, "balance_power"))
			return SCXK_PROFILE_POWERSAVE;
		if (!strcmp(w, "performance"))
			return SCXK_PROFILE_PERFORMANCE;
		return SCXK_PROFILE_BALANCED;
	}
	if (!scxk_sysfs_read_word("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", w,
				  sizeof(w)) &&
	    !strcmp(w, "performance"))
		return SCXK_PROFILE_PERFORMANCE;
	return SCXK_PROFILE_BALANCED;
}

const char *scxk_power_profile_name(enum scxk_power_profile p)
{
	switch (p) {
	case SCXK_PROFILE_POWERSAVE:
		return "powersave";
	case SCXK_PROFILE_PERFORMANCE:
		return "performance";
	default:
		return "balanced";
	}
}
