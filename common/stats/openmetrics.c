// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stats of any scx_stats server as OpenMetrics text, driven by its
 * stats_meta alone (so upstream servers work too): numbers become gauges,
 * strings info metrics, arrays gauges labelled by index, and a dict of
 * structs one family per field of the struct, labelled by the dict key
 * (the struct's _om_prefix and _om_label user attributes name them, as
 * upstream's exporter reads them). docs/stats-protocol.md has the mapping.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <scxkit/stats.h>

/* Families already written: OpenMetrics allows each name once. */
struct om {
	FILE *out;
	const char *prefix;
	char names[256][128];
	int nr;
};

/* [a-zA-Z_:][a-zA-Z0-9_:]* for metric names, without ':' for labels */
static bool om_name_ok(const char *s, bool label)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (!label && *s == ':')))
			return false;
	return true;
}

/* help text and label values: \, " and newline escaped */
static void om_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* Start family @name once; false if it cannot be (bad or taken name). */
static bool om_family(struct om *om, const char *name, const char *type, const char *help)
{
	char full[128];

	if (snprintf(full, sizeof(full), "%s%s", om->prefix, name) >= (int)sizeof(full) ||
	    !om_name_ok(full, false) || om->nr >= 256)
		return false;
	for (int i = 0; i < om->nr; i++)
		if (!strcmp(om->names[i], full))
			return false;
	strcpy(om->names[om->nr++], full);
	fprintf(om->out, "# TYPE %s %s\n# HELP %s ", full, type, full);
	om_escaped(om->out, help ? help : "");
	fputc('\n', om->out);
	return true;
}

/* A number as OpenMetrics writes it; false for anything else. */
static bool om_value(FILE *out, json_t *v)
{
	if (json_is_integer(v)) {
		fprintf(out, "%lld\n", (long long)json_integer_value(v));
		return true;
	}
	if (json_is_real(v) && isfinite(json_real_value(v))) {
		fprintf(out, "%.17g\n", json_real_value(v));
		return true;
	}
	return false;
}

/* One sample: NAME{LABELS} VALUE; labels are (name, value) pairs, NULL-ended. */
static void om_sample(struct om *om, const char *name, const char *suffix,
		      const char *const *labels, json_t *v)
{
	FILE *out = om->out;

	if (!json_is_number(v) && v)
		return;
	fprintf(out, "%s%s%s", om->prefix, name, suffix);
	for (int i = 0; labels && labels[i]; i += 2) {
		fprintf(out, "%s%s=\"", i ? "," : "{", labels[i]);
		om_escaped(out, labels[i + 1]);
		fputc('"', out);
		if (!labels[i + 2])
			fputc('}', out);
	}
	fputc(' ', out);
	if (!v)
		fputs("1\n", out); /* an info metric */
	else
		om_value(out, v);
}

static const char *datum_of(json_t *field, const char **kind)
{
	json_t *d;

	if ((d = json_object_get(field, "datum")) && json_is_string(d)) {
		*kind = "datum";
		return json_string_value(d);
	}
	if ((d = json_object_get(field, "array")) && json_is_string(d)) {
		*kind = "array";
		return json_string_value(d);
	}
	*kind = json_object_get(field, "dict") ? "dict" : "?";
	return NULL;
}

/*
 * One field of a struct: @vals maps each dict key (or "" at the top) to
 * the struct's object; @label names the key. Returns 0, or -EINVAL when
 * the family could not be written (a name clash).
 */
static int om_field(struct om *om, const char *fname, json_t *fmeta, const char *label,
		    json_t *vals, const char *om_prefix)
{
	const char *kind, *datum = datum_of(fmeta, &kind), *key, *desc;
	char name[128];
	json_t *obj, *v;
	bool numeric;

	desc = json_string_value(json_object_get(fmeta, "desc"));
	snprintf(name, sizeof(name), "%s%s", om_prefix ? om_prefix : "", fname);
	if (!datum || !label) /* dicts are expanded by their caller */
		return 0;
	numeric = strcmp(datum, "string");
	if (!om_family(om, name, numeric ? "gauge" : "info", desc))
		return -EINVAL;
	json_object_foreach(vals, key, obj)
	{
		const char *lv[7] = {*label ? label : NULL, key, NULL, NULL, NULL};
		int n = *label ? 2 : 0;

		v = json_object_get(obj, fname);
		if (!v)
			continue;
		if (!strcmp(kind, "datum") && numeric) {
			om_sample(om, name, "", n ? lv : NULL, v);
		} else if (!strcmp(kind, "datum") && json_is_string(v)) {
			lv[n] = fname;
			lv[n + 1] = json_string_value(v);
			om_sample(om, name, "_info", lv, NULL);
		} else if (!strcmp(kind, "array") && numeric && json_is_array(v)) {
			char idx[24];
			size_t i;
			json_t *e;

			json_array_foreach(v, i, e)
			{
				snprintf(idx, sizeof(idx), "%zu", i);
				lv[n] = "index";
				lv[n + 1] = idx;
				om_sample(om, name, "", lv, e);
			}
		}
	}
	return 0;
}

int scxk_stats_openmetrics(json_t *meta, json_t *stats, const char *prefix, FILE *out)
{
	static struct om om;
	json_t *top = NULL, *st, *fields, *f, *wrap;
	const char *key, *fname;
	int err = 0;

	memset(&om, 0, sizeof(om));
	om.out = out;
	om.prefix = prefix ? prefix : "";
	json_object_foreach(meta, key, st)
	{
		json_t *t = json_object_get(st, "top");

		if ((json_is_string(t) && !strcmp(json_string_value(t), "true")) || json_is_true(t))
			top = st;
	}
	if (!top || !json_is_object(stats))
		return -EINVAL;
	fields = json_object_get(top, "fields");
	wrap = json_pack("{s:O}", "", stats);
	json_object_foreach(fields, fname, f)
	{
		json_t *dict = json_object_get(f, "dict"), *sub, *subf, *sf, *vals;
		const char *sname, *sfname, *pfx, *lbl;
		char dpfx[128];

		if (!dict) {
			err = err ?: om_field(&om, fname, f, "", wrap, NULL);
			continue;
		}
		sname = json_string_value(
			json_object_get(json_object_get(dict, "datum"), "struct"));
		sub = sname ? json_object_get(meta, sname) : NULL;
		vals = json_object_get(stats, fname);
		if (!sub || !json_is_object(vals))
			continue;
		subf = json_object_get(sub, "fields");
		pfx = json_string_value(
			json_object_get(json_object_get(sub, "user"), "_om_prefix"));
		lbl = json_string_value(json_object_get(json_object_get(sub, "user"), "_om_label"));
		snprintf(dpfx, sizeof(dpfx), "%s_", fname);
		if (lbl && !om_name_ok(lbl, true))
			lbl = NULL;
		json_object_foreach(subf, sfname, sf)
		{
			err = err
				      ?: om_field(&om, sfname, sf, lbl ? lbl : "key", vals,
						  pfx ? pfx : dpfx);
		}
	}
	json_decref(wrap);
	fputs("# EOF\n", out);
	return err;
}
