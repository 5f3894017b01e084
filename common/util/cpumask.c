// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsing and formatting of CPU masks. The parsers are strict on purpose:
 * they read sysfs and command lines, and a silently misread mask would pin
 * tasks to the wrong CPUs, which is much harder to notice than an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <scxkit/cpumask.h>

#define HEX_DIGIT_BITS	 4
#define HEX_GROUP_DIGITS 8 /* sysfs prints 32-bit groups */
#define DECIMAL_BASE	 10

static int clamp_nr(int nr_cpus)
{
	return (nr_cpus <= 0 || nr_cpus > SCXK_MAX_CPUS) ? SCXK_MAX_CPUS : nr_cpus;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Length of @s without its trailing whitespace. */
static size_t trimmed_len(const char *s)
{
	size_t len = strlen(s);

	while (len && is_blank(s[len - 1]))
		len--;
	return len;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Read a decimal number at *@p (within @end), advancing *@p. Numbers too
 * large for any CPU are saturated to SCXK_MAX_CPUS so the caller sees a
 * range error rather than a wrapped value.
 * Return: 0, or -EINVAL if there is no digit.
 */
static int parse_num(const char **p, const char *end, int *val)
{
	const char *q = *p;
	long v = 0;

	if (q == end || !is_digit(*q))
		return -EINVAL;
	for (; q < end && is_digit(*q); q++) {
		v = v * DECIMAL_BASE + (*q - '0');
		if (v > SCXK_MAX_CPUS)
			v = SCXK_MAX_CPUS; /* saturate: anything this big is out of range */
	}
	*p = q;
	*val = (int)v;
	return 0;
}

int scxk_cpulist_parse(const char *s, struct scxk_cpumask *out, int nr_cpus)
{
	struct scxk_cpumask m;
	const char *p, *end;
	bool range_err = false;

	if (!s || !out)
		return -EINVAL;
	nr_cpus = clamp_nr(nr_cpus);
	scxk_cpumask_zero(&m);
	p = s;
	end = s + trimmed_len(s);

	while (p < end) {
		int lo, hi;

		if (parse_num(&p, end, &lo))
			return -EINVAL;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if (parse_num(&p, end, &hi))
				return -EINVAL;
			if (hi < lo)
				return -EINVAL;
		}
		if (p < end) {
			/* the only thing allowed after an item is ",item" */
			if (*p != ',' || p + 1 == end)
				return -EINVAL;
			p++;
		}
		if (hi >= nr_cpus) {
			/* keep going: a later syntax error is the more useful report */
			range_err = true;
			continue;
		}
		for (int cpu = lo; cpu <= hi; cpu++)
			scxk_cpumask_set(&m, cpu);
	}
	if (range_err)
		return -ERANGE;
	*out = m;
	return 0;
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + DECIMAL_BASE;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + DECIMAL_BASE;
	return -1;
}

static bool has_hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* Check the group structure first so the bit walk below can trust it. */
static int hex_syntax(const char *p, const char *end, bool *grouped)
{
	int digits = 0;

	*grouped = memchr(p, ',', end - p) != NULL;
	if (p == end)
		return -EINVAL;
	for (; p < end; p++) {
		if (*p == ',') {
			if (!digits)
				return -EINVAL;
			digits = 0;
			continue;
		}
		if (hex_val(*p) < 0)
			return -EINVAL;
		digits++;
		if (*grouped && digits > HEX_GROUP_DIGITS)
			return -EINVAL;
	}
	return digits ? 0 : -EINVAL;
}

int scxk_hexmask_parse(const char *s, struct scxk_cpumask *out, int nr_cpus)
{
	struct scxk_cpumask m;
	const char *start, *end, *p;
	bool grouped, range_err = false;
	long pos = 0; /* bit number of the lowest bit of the current digit */
	int group_digits = 0;
	int err;

	if (!s || !out)
		return -EINVAL;
	nr_cpus = clamp_nr(nr_cpus);
	start = has_hex_prefix(s) ? s + 2 : s;
	end = s + trimmed_len(s);
	if (end < start)
		return -EINVAL;
	if ((err = hex_syntax(start, end, &grouped)))
		return err;

	scxk_cpumask_zero(&m);
	/* Walk from the least significant digit, i.e. from the right. */
	for (p = end; p-- > start;) {
		int v;

		if (*p == ',') {
			/* a short group is zero-extended to its 32 bits */
			pos += (long)(HEX_GROUP_DIGITS - group_digits) * HEX_DIGIT_BITS;
			group_digits = 0;
			continue;
		}
		v = hex_val(*p);
		for (int b = 0; b < HEX_DIGIT_BITS; b++) {
			if (!(v & (1 << b)))
				continue;
			if (pos + b >= nr_cpus)
				range_err = true;
			else
				scxk_cpumask_set(&m, (int)(pos + b));
		}
		pos += HEX_DIGIT_BITS;
		group_digits++;
	}
	if (range_err)
		return -ERANGE;
	*out = m;
	return 0;
}

int scxk_cpumask_parse(const char *s, struct scxk_cpumask *out, int nr_cpus)
{
	if (!s || !out)
		return -EINVAL;
	if (has_hex_prefix(s))
		return scxk_hexmask_parse(s, out, nr_cpus);
	return scxk_cpulist_parse(s, out, nr_cpus);
}

/* Append with snprintf semantics but report overflow as -ENOSPC. */
static int append(char *buf, size_t len, size_t *used, const char *fmt, int a, int b)
{
	int n = snprintf(buf + *used, len - *used, fmt, a, b);

	if (n < 0 || (size_t)n >= len - *used)
		return -ENOSPC;
	*used += n;
	return 0;
}

int scxk_cpumask_format_list(const struct scxk_cpumask *m, char *buf, size_t len)
{
	size_t used = 0;
	int cpu;

	if (!m || !buf || !len)
		return -ENOSPC;
	buf[0] = '\0';
	cpu = scxk_cpumask_first(m);
	while (cpu >= 0) {
		int last = cpu, err;

		while (scxk_cpumask_test(m, last + 1))
			last++;
		if (last == cpu)
			err = append(buf, len, &used, used ? ",%d" : "%d", cpu, 0);
		else
			err = append(buf, len, &used, used ? ",%d-%d" : "%d-%d", cpu, last);
		if (err) {
			buf[0] = '\0';
			return err;
		}
		cpu = scxk_cpumask_next(m, last);
	}
	return (int)used;
}

int scxk_cpumask_format_hex(const struct scxk_cpumask *m, char *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned int nibble_mask = (1U << HEX_DIGIT_BITS) - 1;
	size_t need;
	int top, nd;

	if (!m || !buf || !len)
		return -ENOSPC;
	top = scxk_cpumask_last(m);
	nd = top < 0 ? 1 : top / HEX_DIGIT_BITS + 1; /* "0x0" for the empty mask */
	need = 2 + (size_t)nd + 1;
	if (len < need) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 0; i < nd; i++) {
		int bit = (nd - 1 - i) * HEX_DIGIT_BITS; /* most significant digit first */
		uint64_t word = m->bits[bit / SCXK_CPUMASK_WORD_BITS];

		buf[2 + i] = digits[(word >> (bit % SCXK_CPUMASK_WORD_BITS)) & nibble_mask];
	}
	buf[2 + nd] = '\0';
	return (int)(need - 1);
}
