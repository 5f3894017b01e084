// SPDX-License-Identifier: GPL-2.0-only
/*
 * The human stats format: a server's stats as an aligned table with units
 * and per-second rates, for --monitor on a terminal and for scxctl top.
 *
 * Everything it knows about a field comes from the server's stats_meta: the
 * description, and the user attributes _scxk_unit and _scxk_kind that
 * stats.c adds from the scheduler's one declaration of the stat. A server
 * without them (an upstream one) still gets a table, only without units
 * and rates. Nothing here names a scheduler or a field.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/stats.h>

#define RATE_LEN 32

/* How a field's value relates to time (_scxk_kind in its meta). */
enum vkind {
	VK_VALUE, /* a gauge or a setting: shown as it is */
	VK_DELTA, /* counted since the previous read: rate = value / interval */
	VK_TOTAL, /* counted since attach: rate = difference / interval */
};

struct vfield {
	const char *name, *desc, *unit; /* point into the meta, which the view holds */
	size_t desc_len;		/* desc without its " (unit)" suffix */
	enum vkind kind;
	const char *sub; /* a dict of structs: the struct's name */
};

struct scxk_stats_view {
	json_t *meta;  /* the whole stats_meta response */
	json_t *top;   /* its top struct */
	json_t *prev;  /* the latest sample */
	double prev_t; /* when it was taken; < 0: none */
	json_t *older; /* the one before, for TOTAL rates */
	double dt;     /* seconds between the two; 0: unknown */
	struct vfield *f;
	size_t nr;
};

static const char *user_attr(json_t *field, const char *key)
{
	return json_string_value(json_object_get(json_object_get(field, "user"), key));
}

static void field_of(struct vfield *vf, const char *name, json_t *fj)
{
	const char *kind = user_attr(fj, "_scxk_kind");
	json_t *dict = json_object_get(fj, "dict");
	size_t ul, dl;

	vf->name = name;
	vf->desc = json_string_value(json_object_get(fj, "desc"));
	if (!vf->desc)
		vf->desc = "";
	vf->unit = user_attr(fj, "_scxk_unit");
	vf->desc_len = dl = strlen(vf->desc);
	/* the meta's desc reads "help (unit)" (scxk_stats_field_desc); the unit gets a column */
	if (vf->unit && (ul = strlen(vf->unit)) + 3 <= dl && vf->desc[dl - 1] == ')' &&
	    !strncmp(vf->desc + dl - ul - 3, " (", 2) &&
	    !strncmp(vf->desc + dl - ul - 1, vf->unit, ul))
		vf->desc_len = dl - ul - 3;
	vf->kind = !kind		    ? VK_VALUE
		   : !strcmp(kind, "delta") ? VK_DELTA
		   : !strcmp(kind, "total") ? VK_TOTAL
					    : VK_VALUE;
	vf->sub = json_string_value(json_object_get(json_object_get(dict, "datum"), "struct"));
}

int scxk_stats_view_new(struct scxk_stats_view **out, json_t *meta)
{
	struct scxk_stats_view *v = calloc(1, sizeof(*v));
	const char *key;
	json_t *st, *fj;
	size_t i = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	v->prev_t = -1;
	v->meta = json_incref(meta);
	json_object_foreach(meta, key, st)
	{
		if (!strcmp(json_string_value(json_object_get(st, "top")) ?: "", "true"))
			v->top = st;
	}
	if (v->top) {
		json_t *fields = json_object_get(v->top, "fields");

		v->f = calloc(json_object_size(fields) + 1, sizeof(*v->f));
		if (!v->f) {
			scxk_stats_view_free(v);
			return -ENOMEM;
		}
		json_object_foreach(fields, key, fj)
		{
			field_of(&v->f[i++], key, fj);
		}
		v->nr = i;
	}
	*out = v;
	return 0;
}

void scxk_stats_view_free(struct scxk_stats_view *v)
{
	if (!v)
		return;
	json_decref(v->meta);
	json_decref(v->prev);
	json_decref(v->older);
	free(v->f);
	free(v);
}

static const struct vfield *find_field(const struct scxk_stats_view *v, const char *name)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->f[i].name, name))
			return &v->f[i];
	return NULL;
}

/* A value as text: integers plain, reals with two decimals, nested ones as JSON. */
static void value_text(json_t *val, char *buf, size_t len)
{
	char *s;

	switch (json_typeof(val)) {
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(val));
		break;
	case JSON_REAL:
		snprintf(buf, len, "%.2f", json_real_value(val));
		break;
	case JSON_STRING:
		snprintf(buf, len, "%s", json_string_value(val));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		snprintf(buf, len, "%s", json_is_true(val) ? "true" : "false");
		break;
	default:
		s = json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, len, "%s", s ? s : "?");
		free(s);
	}
}

int scxk_stats_rate_text(double rate, char *buf, size_t len)
{
	double a = rate < 0 ? -rate : rate;

	/* three significant digits at most, so the column stays narrow */
	if (a >= 1e9)
		return snprintf(buf, len, "%.1fG/s", rate / 1e9);
	if (a >= 1e6)
		return snprintf(buf, len, "%.1fM/s", rate / 1e6);
	if (a >= 1e4)
		return snprintf(buf, len, "%.1fk/s", rate / 1e3);
	return snprintf(buf, len, "%.1f/s", rate);
}

/* @f's rate in @cur, or false if it has none (not a counter, or no interval yet). */
static bool rate_of(const struct scxk_stats_view *v, const struct vfield *f, json_t *cur,
		    double *rate)
{
	json_t *now, *before;

	if (!f || f->kind == VK_VALUE || !(v->dt > 0))
		return false;
	now = json_object_get(cur, f->name);
	if (!json_is_number(now))
		return false;
	if (f->kind == VK_DELTA) {
		*rate = json_number_value(now) / v->dt;
		return true;
	}
	before = json_object_get(v->older, f->name);
	if (!json_is_number(before))
		return false;
	*rate = (json_number_value(now) - json_number_value(before)) / v->dt;
	return true;
}

/* Print @s cut to @room columns (no limit if @room <= 0). */
static void put_cut(FILE *out, const char *s, size_t n, int room)
{
	if (room > 0 && n > (size_t)room)
		n = room;
	fwrite(s, 1, n, out);
}

#define COL_GAP 2

/* The dicts of structs (strata's layers, balance's domains): one row per key. */
static void print_dict(const struct scxk_stats_view *v, const struct vfield *f, json_t *dict,
		       int width, FILE *out)
{
	json_t *st = json_object_get(v->meta, f->sub), *fields = json_object_get(st, "fields");
	const char *key, *fname;
	size_t nc = 0, c, r, nr = json_object_size(dict);
	const char **cols;
	int *w, line;
	json_t *row, *fj;
	char buf[256];

	cols = calloc(json_object_size(fields) + 1, sizeof(*cols));
	w = calloc(json_object_size(fields) + 1, sizeof(*w));
	if (!cols || !w)
		goto out;
	/* arrays (strata's lat_hist) do not fit a cell: they stay in the kv format */
	json_object_foreach(fields, fname, fj)
	{
		if (!json_object_get(fj, "array"))
			cols[nc++] = fname;
	}
	w[0] = (int)strlen(f->name);
	json_object_foreach(dict, key, row)
	{
		if ((int)strlen(key) > w[0])
			w[0] = (int)strlen(key);
	}
	for (c = 0; c < nc; c++) {
		const char *unit = user_attr(json_object_get(fields, cols[c]), "_scxk_unit");

		w[c + 1] = unit && *unit ? snprintf(buf, sizeof(buf), "%s[%s]", cols[c], unit)
					 : (int)strlen(cols[c]);
		json_object_foreach(dict, key, row)
		{
			value_text(json_object_get(row, cols[c]) ?: json_null(), buf, sizeof(buf));
			if ((int)strlen(buf) > w[c + 1])
				w[c + 1] = (int)strlen(buf);
		}
	}
	fprintf(out, "\n%s: %zu (%s)\n", f->name, nr,
		json_string_value(json_object_get(st, "desc")) ?: f->sub);
	/* the header row, then one row per key; each row cut at @width */
	for (r = 0; r <= nr; r++) {
		void *it = json_object_iter(dict);

		for (size_t k = 1; it && k < r; k++)
			it = json_object_iter_next(dict, it);
		row = r ? json_object_iter_value(it) : NULL;
		key = r ? json_object_iter_key(it) : f->name;
		line = fprintf(out, "%-*s", w[0], key);
		for (c = 0; c < nc; c++) {
			const char *unit =
				user_attr(json_object_get(fields, cols[c]), "_scxk_unit");
			int n;

			if (!r && unit && *unit)
				snprintf(buf, sizeof(buf), "%s[%s]", cols[c], unit);
			else if (!r)
				snprintf(buf, sizeof(buf), "%s", cols[c]);
			else
				value_text(json_object_get(row, cols[c]) ?: json_null(), buf,
					   sizeof(buf));
			n = COL_GAP + w[c + 1];
			if (width > 0 && line + n > width)
				break;
			line += fprintf(out, "%*s%*s", COL_GAP, "", w[c + 1], buf);
		}
		fputc('\n', out);
	}
out:
	free(cols);
	free(w);
}

void scxk_stats_view_print(struct scxk_stats_view *v, json_t *resp, double t_s, int width,
			   FILE *out)
{
	int wn = 4, wv = 5, wu = 4, wr = 4, line;
	char val[256], rate[RATE_LEN], buf[1024];
	const struct vfield *f;
	const char *key;
	json_t *val_j;
	double r;

	scxk_stats_view_feed(v, resp, t_s);
	/* column widths from what this sample prints; nested fields get their own tables */
	json_object_foreach(resp, key, val_j)
	{
		f = find_field(v, key);
		if (json_is_object(val_j) && f && f->sub)
			continue;
		value_text(val_j, val, sizeof(val));
		if ((int)strlen(key) > wn)
			wn = (int)strlen(key);
		if ((int)strlen(val) > wv && !json_is_string(val_j))
			wv = (int)strlen(val);
		if (f && f->unit && (int)strlen(f->unit) > wu)
			wu = (int)strlen(f->unit);
		if (f && rate_of(v, f, resp, &r) &&
		    scxk_stats_rate_text(r, rate, sizeof(rate)) > wr)
			wr = (int)strlen(rate);
	}
	line = snprintf(buf, sizeof(buf), "%-*s  %*s  %-*s  %*s  %s", wn, "STAT", wv, "VALUE", wu,
			"UNIT", wr, "RATE", "DESCRIPTION");
	put_cut(out, buf, line, width);
	fputc('\n', out);
	json_object_foreach(resp, key, val_j)
	{
		f = find_field(v, key);
		if (json_is_object(val_j) && f && f->sub)
			continue;
		value_text(val_j, val, sizeof(val));
		rate[0] = '\0';
		if (f && rate_of(v, f, resp, &r))
			scxk_stats_rate_text(r, rate, sizeof(rate));
		/* strings (CPU lists) go left-aligned in the value column */
		line = snprintf(buf, sizeof(buf),
				json_is_string(val_j) ? "%-*s  %-*s  %-*s  %*s  %.*s"
						      : "%-*s  %*s  %-*s  %*s  %.*s",
				wn, key, wv, val, wu, f && f->unit ? f->unit : "", wr, rate,
				f ? (int)f->desc_len : 0, f ? f->desc : "");
		put_cut(out, buf, line < (int)sizeof(buf) ? line : (int)sizeof(buf) - 1, width);
		fputc('\n', out);
	}
	json_object_foreach(resp, key, val_j)
	{
		f = find_field(v, key);
		if (json_is_object(val_j) && f && f->sub)
			print_dict(v, f, val_j, width, out);
	}
}

void scxk_stats_view_feed(struct scxk_stats_view *v, json_t *resp, double t_s)
{
	/* the same sample again (a redraw) keeps the interval it came with */
	if (t_s == v->prev_t)
		return;
	json_decref(v->older);
	v->older = v->prev;
	v->dt = v->prev_t >= 0 && t_s > v->prev_t ? t_s - v->prev_t : 0;
	v->prev = json_incref(resp);
	v->prev_t = t_s;
}

double scxk_stats_view_interval(const struct scxk_stats_view *v)
{
	return v->dt;
}
