// SPDX-License-Identifier: GPL-2.0-only
/* power.c - the system power profile from sysfs (see scxkit/power.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scxkit/power.h>
#include <scxkit/topo.h>

int scxk_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int scxk_sysfs_read_word(const char *rel, char *buf, size_t len)
{
	const char *prefix = getenv(SCXK_SYSFS_PREFIX_ENV);
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", prefix ? prefix : "", rel);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

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
	if (!scxk_sysfs_read_word("/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference", w,
		       sizeof(w))) {
		if (!strcmp(w, "power") || !strcmp(w, "balance_power"))
			return SCXK_PROFILE_POWERSAVE;
		if (!strcmp(w, "performance"))
			return SCXK_PROFILE_PERFORMANCE;
		return SCXK_PROFILE_BALANCED;
	}
	if (!scxk_sysfs_read_word("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", w, sizeof(w)) &&
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
