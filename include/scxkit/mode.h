/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mode.h - the five scheduler modes of upstream's scx_loader D-Bus
 * interface (org.scx.Loader, property SchedulerMode), with its numbers:
 * the numbers are part of that interface, the names are what scxctl,
 * /etc/default/scx (SCX_MODE) and --mode-flags accept. Each scheduler
 * declares the flags of every mode next to its option table
 * (struct scxk_cli.modes); Auto is the scheduler's own defaults.
 */
#ifndef __SCXKIT_MODE_H
#define __SCXKIT_MODE_H

enum scxk_mode {
	SCXK_MODE_AUTO = 0,
	SCXK_MODE_GAMING = 1,
	SCXK_MODE_POWERSAVE = 2,
	SCXK_MODE_LOWLATENCY = 3,
	SCXK_MODE_SERVER = 4,
	SCXK_NR_MODES,
};

/* The names in the order of the numbers, for messages and --help. */
#define SCXK_MODE_NAMES "auto, gaming, powersave, lowlatency, server"

/**
 * scxk_mode_name - the lowercase name of mode @m ("gaming")
 * Return: the name, or NULL if @m is not a mode.
 */
const char *scxk_mode_name(unsigned int m);

/**
 * scxk_mode_parse - a mode from its name (any case, "low-latency" too) or number
 * @s: "gaming", "Gaming", "1", ...
 * Return: the mode (0..SCXK_NR_MODES-1), or -EINVAL.
 */
int scxk_mode_parse(const char *s);

#endif /* __SCXKIT_MODE_H */
