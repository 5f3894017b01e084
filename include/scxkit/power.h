/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * power.h - the system's power profile as user space declared it, for
 * schedulers that follow it (scx_cadence --autopower, scx_brisk).
 */
#ifndef __SCXKIT_POWER_H
#define __SCXKIT_POWER_H

#include <stddef.h>

enum scxk_power_profile {
	SCXK_PROFILE_POWERSAVE,
	SCXK_PROFILE_BALANCED,
	SCXK_PROFILE_PERFORMANCE,
};

/**
 * scxk_power_profile_read - the current power profile
 *
 * Read under the SCX_SYSFS_PREFIX root: the ACPI platform_profile first
 * (what power-profiles-daemon sets), then CPU 0's energy/performance
 * preference, then its cpufreq governor, where only "performance" says
 * anything (intel_pstate calls its balanced governor "powersave").
 *
 * Return: the profile; SCXK_PROFILE_BALANCED when nothing is readable.
 */
enum scxk_power_profile scxk_power_profile_read(void);

/** scxk_power_profile_name - "powersave", "balanced" or "performance" */
const char *scxk_power_profile_name(enum scxk_power_profile p);

#endif /* __SCXKIT_POWER_H */
