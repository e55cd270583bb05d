/*-------------------------------------------------------------------------
 *
 * seqtree_fuzz.c
 *	  libFuzzer target for the SeqTree (src/lib/seqtree.c), run by
 *	  "make fuzz FUZZ_SECONDS=N".
 *
 * The input is read as a small header followed by a sequence of
 * operations.  The tree is checked against a model, a sorted array of the
 * keys: every result, the number of keys read through the callback, the
 * structure and the image byte for byte against one built from scratch.
 * Some operations instead feed raw, possibly nonsensical arguments
 * (insert_at bits, bits arrays, whole images) to scratch trees; those must
 * be refused or give a structurally valid tree, and must never touch
 * memory outside the image; seqtree_insert_check must agree with
 * seqtree_insert_at on them (and on what a search of a random image hands
 * back) without changing the image.  Any mismatch aborts, which libFuzzer reports
 * as a crash.
 *
 * Input layout:
 *	byte 0	key part width - 1 (low 5 bits); bit 5 set: append a 6-byte TID
 *	byte 1	BlindiTree depth (mod 8)
 *	byte 2	capacity in keys - 1 (the image's space is sized for that
 *			many keys at the initial depth; a shallower depth later holds
 *			more)
 *	then	operations: one opcode byte and its argument bytes
 *
 * test/fuzz/seqtree_fuzz.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqtree.h"

#define FZ_MAX_KEYS		300		/* model holds twice this */
#define FZ_MAX_KEYLEN	38
#define FZ_SPACE		(SEQTREE_HEADER_SIZE + 2 * 255 + 2 * FZ_MAX_KEYS + 64)

/* Abort with a message when a check fails (libFuzzer reports the crash). */
#define FZ_ASSERT(cond, what) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "seqtree_fuzz: %s:%d: %s (%s)\n", __FILE__, __LINE__, \
					what, #cond); \
			abort(); \
		} \
	} while (0)

/* Cursor over the input. */
typedef struct Input
{
	const uint8_t *data;
	size_t		size;
	size_t		off;
} Input;

/* Next input byte, 0 once the input is used up. */
static int
in_byte(Input *in)
{
	if (in->off >= in->size)
		return 0;
	return in->data[in->off++];
}

/* Next two input bytes as a number. */
static int
in_u16(Input *in)
{
	int			hi = in_byte(in);

	return (hi << 8) | in_byte(in);
}

/* The model: sorted keys, also serving the callback. */
typedef struct Model
{
	int			keylen;
	int			n;
	uint8_t		keys[2 * FZ_MAX_KEYS][FZ_MAX_KEYLEN];
	long		reads;
	struct Model *next;			/* keys after ours, during a merge */
} Model;

static Model model,
			left_model,
			right_model;

/* SeqTreeGetKey over a model (and the one chained after it). */
static const uint8_t *
fz_get(void *arg, int pos)
{
	Model	   *m = (Model *) arg;

	m->reads++;
	if (pos >= m->n && m->next != NULL)
	{
		FZ_ASSERT(pos - m->n < m->next->n, "merge callback position out of range");
		return m->next->keys[pos - m->n];
	}
	FZ_ASSERT(pos >= 0 && pos < m->n, "callback position out of range");
	return m->keys[pos];
}

/* Keys fz_get_masked reports unreadable, per position. */
static bool fz_unreadable[2 * FZ_MAX_KEYS];

/* SeqTreeGetKey over the model with the keys in fz_unreadable unreadable. */
static const uint8_t *
fz_get_masked(void *arg, int pos)
{
	const uint8_t *k = fz_get(arg, pos);

	return fz_unreadable[pos] ? NULL : k;
}

/* Key served for every position by fz_get_any, for damaged images. */
static uint8_t any_key[SEQTREE_MAX_KEYLEN];
static int	any_n;

/* SeqTreeGetKey for a tree of unknown keys: only checks the position. */
static const uint8_t *
fz_get_any(void *arg, int pos)
{
	FZ_ASSERT(pos >= 0 && pos < any_n, "callback position out of range (damaged image)");
	return any_key;
}

/* SeqTreeGetKey for a damaged image: every third position unreadable. */
static const uint8_t *
fz_get_some(void *arg, int pos)
{
	FZ_ASSERT(pos >= 0 && pos < any_n, "callback position out of range (damaged image)");
	return pos % 3 == 0 ? NULL : any_key;
}

/* Position of the largest model key <= key, or -1; *exact if equal. */
static int
model_pred(const Model *m, const uint8_t *key, int *exact)
{
	int			lo = 0,
				hi = m->n;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (memcmp(m->keys[mid], key, m->keylen) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*exact = lo > 0 && memcmp(m->keys[lo - 1], key, m->keylen) == 0;
	return lo - 1;
}

/* Insert key into the model at pos. */
static void
model_insert(Model *m, int pos, const uint8_t *key)
{
	memmove(m->keys[pos + 1], m->keys[pos], (size_t) (m->n - pos) * FZ_MAX_KEYLEN);
	memcpy(m->keys[pos], key, m->keylen);
	m->n++;
}

/* Delete the model key at pos. */
static void
model_delete(Model *m, int pos)
{
	memmove(m->keys[pos], m->keys[pos + 1], (size_t) (m->n - pos - 1) * FZ_MAX_KEYLEN);
	m->n--;
}

/* Compare the tree with the model: structure, keys, image. */
static void
fz_verify(const SeqTree *st, Model *m)
{
	static uint8_t refbuf[FZ_SPACE];
	SeqTree		ref;
	Model	   *saved_next = m->next;
	long		reads;

	FZ_ASSERT(st->nkeys == m->n, "key count differs from the model");
	m->next = NULL;
	reads = m->reads;
	FZ_ASSERT(seqtree_check(st, NULL, NULL, NULL) == NULL, "structure check failed");
	FZ_ASSERT(m->reads == reads, "structure check read keys");
	FZ_ASSERT(seqtree_check(st, fz_get, m, NULL) == NULL, "key check failed");
	FZ_ASSERT(m->reads == reads + m->n, "key check did not read each key once");
	FZ_ASSERT(seqtree_init(&ref, refbuf, sizeof(refbuf), st->keylen, st->levels),
			  "reference init");
	FZ_ASSERT(seqtree_build(&ref, m->n, fz_get, m), "reference build");
	FZ_ASSERT(seqtree_used(&ref) == seqtree_used(st) &&
			  memcmp(ref.img, st->img, seqtree_used(st)) == 0,
			  "image differs from one built from scratch");
	m->reads = reads;
	m->next = saved_next;
}

/*
 * Make a key from the input: raw bytes, a stored key with one byte
 * changed, or a fixed pattern with input bytes at the end, so that keys
 * with long shared prefixes and tiny differences are common.
 */
static void
fz_key(Input *in, const Model *m, uint8_t *key)
{
	int			keylen = m->keylen;
	int			kind = in_byte(in) % 4;
	int			i;

	switch (kind)
	{
		case 0:
			for (i = 0; i < keylen; i++)
				key[i] = (uint8_t) in_byte(in);
			break;
		case 1:
		case 2:
			if (m->n > 0)
				memcpy(key, m->keys[in_byte(in) % m->n], keylen);
			else
				memset(key, 0x5A, keylen);
			i = keylen - 1 - in_byte(in) % keylen;
			if (kind == 1)
				key[i] ^= (uint8_t) in_byte(in);
			else
				key[keylen - 1 - in_byte(in) % (keylen < 3 ? keylen : 3)] = (uint8_t) in_byte(in);
			break;
		default:
			memset(key, in_byte(in) & 1 ? 0xFF : 0x00, keylen);
			key[keylen - 1] = (uint8_t) in_byte(in);
			if (keylen > 1)
				key[keylen - 2] = (uint8_t) (in_byte(in) & 3);
			break;
	}
}

/* Run raw, possibly invalid arguments against scratch trees. */
static void
fz_raw(Input *in, const SeqTree *st)
{
	static uint8_t buf[FZ_SPACE];
	static uint16_t bits[FZ_MAX_KEYS];
	SeqTree		s;
	int			what = in_byte(in) % 3;

	if (what == 0)
	{
		/* insert_at with arbitrary bits into a copy of the tree */
		int			pos = in_u16(in) % (st->nkeys + 2);
		int			lbit = in_u16(in) % (st->keylen * 8 + 2);
		int			rbit = in_u16(in) % (st->keylen * 8 + 2);
		bool		ok;

		FZ_ASSERT(seqtree_serialize(st, buf, sizeof(buf)) > 0, "serialize");
		FZ_ASSERT(seqtree_attach(&s, buf, st->space), "attach copy");
		ok = seqtree_insert_check(&s, pos, lbit, rbit);
		FZ_ASSERT(memcmp(buf, st->img, seqtree_used(st)) == 0,
				  "insert_check changed the image");
		FZ_ASSERT(seqtree_insert_at(&s, pos, lbit, rbit) == ok,
				  "insert_check disagrees with insert_at");
		if (ok)
		{
			FZ_ASSERT(s.nkeys == st->nkeys + 1, "insert_at count");
			FZ_ASSERT(seqtree_check(&s, NULL, NULL, NULL) == NULL,
					  "insert_at accepted bits that break the structure");
		}
		else
			FZ_ASSERT(memcmp(buf, st->img, seqtree_used(st)) == 0,
					  "refused insert_at changed the image");
	}
	else if (what == 1)
	{
		/* build from an arbitrary bits array */
		int			n = in_byte(in) % 40;
		int			i;

		for (i = 0; i + 1 < n; i++)
			bits[i] = (uint16_t) (in_byte(in) % (st->keylen * 8 + 1));
		FZ_ASSERT(seqtree_init(&s, buf, sizeof(buf), st->keylen, in_byte(in) % 8),
				  "scratch init");
		if (seqtree_build_bits(&s, n, bits))
			FZ_ASSERT(seqtree_check(&s, NULL, NULL, NULL) == NULL,
					  "build_bits accepted bad bits");
		else
			FZ_ASSERT(s.nkeys == 0, "refused build_bits left keys");
	}
	else
	{
		/* an arbitrary image: every operation must stay inside it */
		size_t		len = (size_t) in_byte(in) % 128;
		size_t		i;
		SeqTreeLocation loc;
		int			r,
					seam;
		static uint8_t rbuf[FZ_SPACE];
		SeqTree		right;

		memset(buf, 0, sizeof(buf));
		for (i = 0; i < len; i++)
			buf[i] = (uint8_t) in_byte(in);
		if (!seqtree_attach(&s, buf, len + in_byte(in) % 8))
			return;
		any_n = s.nkeys;
		for (i = 0; i < (size_t) s.keylen; i++)
			any_key[i] = (uint8_t) in_byte(in);
		(void) seqtree_check(&s, NULL, NULL, NULL);
		r = seqtree_search(&s, any_key, fz_get_any, NULL, &loc);
		FZ_ASSERT(r >= -1 && r < s.nkeys, "search result out of range");
		if (!loc.exact)
		{
			/* what the search hands back: check and insert_at agree */
			static uint8_t cbuf[FZ_SPACE];
			SeqTree		c;
			bool		ok = seqtree_insert_check(&s, loc.pos + 1, loc.lbit,
												  loc.rbit);

			memcpy(cbuf, buf, sizeof(cbuf));
			FZ_ASSERT(seqtree_attach(&c, cbuf, s.space), "attach damaged copy");
			FZ_ASSERT(seqtree_insert_at(&c, loc.pos + 1, loc.lbit, loc.rbit) == ok,
					  "insert_check disagrees with insert_at on a damaged image");
			if (!ok)
				FZ_ASSERT(memcmp(cbuf, buf, sizeof(cbuf)) == 0,
						  "refused insert_at changed a damaged image");
		}
		r = seqtree_insert(&s, any_key, fz_get_any, NULL, &loc);
		FZ_ASSERT(r >= SEQTREE_CORRUPT && r <= s.nkeys, "insert result out of range");
		any_n = s.nkeys;
		if (s.nkeys > 0)
			seqtree_delete(&s, in_byte(in) % s.nkeys);
		any_n = s.nkeys;
		(void) seqtree_search(&s, any_key, fz_get_any, NULL, &loc);
		{
			int			minpos,
						maxpos;

			r = seqtree_search_tolerant(&s, any_key, fz_get_some, NULL, &loc,
										1 + in_byte(in) % 16, &minpos, &maxpos,
										NULL);
			FZ_ASSERT(r == SEQTREE_AMBIGUOUS || r == SEQTREE_CORRUPT ||
					  (r >= -1 && r < s.nkeys),
					  "tolerant search result out of range");
			if (r == SEQTREE_AMBIGUOUS)
				FZ_ASSERT(minpos >= -1 && minpos < maxpos && maxpos < s.nkeys,
						  "tolerant search range out of range");
		}
		if (seqtree_split(&s, s.nkeys / 2, &right, rbuf, sizeof(rbuf), &seam))
			(void) seqtree_merge_bit(&s, &right, seam);
	}
}

/* libFuzzer entry point: run one input's operations against the model. */
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[FZ_SPACE];
	static uint8_t rbuf[FZ_SPACE];
	Input		in = {data, size, 0};
	SeqTree		st;
	uint8_t		key[FZ_MAX_KEYLEN];
	int			b0 = in_byte(&in);
	int			keylen = 1 + (b0 & 31) + ((b0 & 32) ? 6 : 0);
	int			levels = in_byte(&in) % 8;
	int			cap = 1 + in_byte(&in) % FZ_MAX_KEYS;
	size_t		space = seqtree_size(cap, keylen, levels);
	int			nops = 0,
				nchanges = 0;

	memset(&model, 0, sizeof(model));
	model.keylen = keylen;
	FZ_ASSERT(seqtree_init(&st, buf, space, keylen, levels), "init");

	while (in.off < in.size && nops++ < 2000)
	{
		int			op = in_byte(&in) % 9;
		bool		changed = false;

		model.reads = 0;
		model.next = NULL;
		switch (op)
		{
			case 0:
			case 1:
				{
					/* insert */
					int			exact,
								want,
								got;
					bool		full = seqtree_size(model.n + 1, keylen, st.levels) > space;
					SeqTreeLocation loc;

					fz_key(&in, &model, key);
					want = model_pred(&model, key, &exact) + 1;
					if (op == 1 && !full)
					{
						seqtree_search(&st, key, fz_get, &model, &loc);
						got = loc.exact ? SEQTREE_DUPLICATE :
							(seqtree_insert_at(&st, loc.pos + 1, loc.lbit, loc.rbit) ?
							 loc.pos + 1 : -100);
					}
					else
						got = seqtree_insert(&st, key, fz_get, &model, NULL);
					if (full)
					{
						FZ_ASSERT(got == SEQTREE_FULL, "insert into a full tree");
						FZ_ASSERT(model.reads == 0, "full insert read a key");
					}
					else if (exact)
					{
						FZ_ASSERT(got == SEQTREE_DUPLICATE, "duplicate insert");
						FZ_ASSERT(model.reads == 1, "duplicate insert reads");
					}
					else
					{
						FZ_ASSERT(got == want, "insert position");
						FZ_ASSERT(model.reads == (model.n > 0 ? 1 : 0), "insert reads");
						model_insert(&model, want, key);
						changed = true;
					}
					break;
				}
			case 2:
				{
					/* search */
					SeqTreeLocation loc;
					int			exact;
					int			want,
								got;

					fz_key(&in, &model, key);
					want = model_pred(&model, key, &exact);
					got = seqtree_search(&st, key, fz_get, &model, &loc);
					FZ_ASSERT(got == want && loc.pos == want, "search position");
					FZ_ASSERT(loc.exact == (exact != 0), "search exactness");
					FZ_ASSERT(model.reads == (model.n > 0 ? 1 : 0), "search reads");
					if (!exact && want >= 0)
						FZ_ASSERT(loc.lbit == seqtree_diff_bit(model.keys[want], key, keylen),
								  "search lbit");
					if (!exact && want < model.n - 1)
						FZ_ASSERT(loc.rbit == seqtree_diff_bit(key, model.keys[want + 1], keylen),
								  "search rbit");

					/* again with some keys unreadable and a read budget */
					{
						int			unread = in_byte(&in);
						int			maxreads = 1 + in_byte(&in) % 16;
						int			minpos,
									maxpos,
									nreads;

						for (int j = 0; j < model.n; j++)
							fz_unreadable[j] = (in_byte(&in) & 0xFF) < unread;
						model.reads = 0;
						got = seqtree_search_tolerant(&st, key, fz_get_masked,
													  &model, &loc, maxreads,
													  &minpos, &maxpos, &nreads);
						FZ_ASSERT(nreads == model.reads && nreads <= maxreads,
								  "tolerant search reads");
						if (got == SEQTREE_AMBIGUOUS)
							FZ_ASSERT(minpos >= -1 && minpos < maxpos &&
									  maxpos < model.n && want >= minpos &&
									  want <= maxpos,
									  "tolerant search range");
						else
						{
							FZ_ASSERT(got == want && loc.exact == (exact != 0),
									  "tolerant search position");
							if (!exact && want >= 0)
								FZ_ASSERT(loc.lbit == seqtree_diff_bit(model.keys[want], key, keylen),
										  "tolerant search lbit");
							if (!exact && want < model.n - 1)
								FZ_ASSERT(loc.rbit == seqtree_diff_bit(key, model.keys[want + 1], keylen),
										  "tolerant search rbit");
						}
						memset(fz_unreadable, 0, sizeof(fz_unreadable));
					}

					/*
					 * the keys sharing a prefix with key, without a read:
					 * exactly those if any (unless more than maxrun), else
					 * one whole run of keys sharing it with each other
					 */
					{
						int			pbits = in_byte(&in) % (keylen * 8 + 1);
						int			maxrun = 1 + in_byte(&in) % 8;
						int			first = -1,
									last = -1,
									lo = -2,
									hi = -2;
						bool		ok;

						model.reads = 0;
						ok = seqtree_prefix_run(&st, key, pbits, maxrun, &lo, &hi);
						FZ_ASSERT(model.reads == 0, "prefix run read a key");
						for (int j = 0; j < model.n; j++)
							if (seqtree_diff_bit(model.keys[j], key, keylen) >= pbits)
							{
								if (first < 0)
									first = j;
								last = j;
							}
						if (first >= 0)
							FZ_ASSERT(last - first + 1 > maxrun ? !ok :
									  (ok && lo == first && hi == last),
									  "prefix run of matching keys");
						else if (ok)
						{
							FZ_ASSERT(lo >= 0 && lo <= hi && hi < model.n &&
									  hi - lo + 1 <= maxrun, "prefix run range");
							for (int j = lo; j < hi; j++)
								FZ_ASSERT(seqtree_diff_bit(model.keys[j], model.keys[j + 1],
														   keylen) >= pbits,
										  "prefix run is one run");
							FZ_ASSERT(lo == 0 ||
									  seqtree_diff_bit(model.keys[lo - 1], model.keys[lo],
													   keylen) < pbits,
									  "prefix run ends on the left");
							FZ_ASSERT(hi == model.n - 1 ||
									  seqtree_diff_bit(model.keys[hi], model.keys[hi + 1],
													   keylen) < pbits,
									  "prefix run ends on the right");
						}
						else
							FZ_ASSERT(model.n == 0 || maxrun < model.n,
									  "prefix run refused");
					}
					break;
				}
			case 3:
				if (model.n > 0)
				{
					int			pos = in_u16(&in) % model.n;

					seqtree_delete(&st, pos);
					model_delete(&model, pos);
					FZ_ASSERT(model.reads == 0, "delete read a key");
					changed = true;
				}
				break;
			case 4:
				{
					/* delete the positions whose input bit is set */
					static int	pos[2 * FZ_MAX_KEYS];
					int			np = 0,
								i,
								mask = 0;

					for (i = 0; i < model.n; i++)
					{
						if (i % 8 == 0)
							mask = in_byte(&in);
						if (mask & (1 << (i % 8)))
							pos[np++] = i;
					}
					seqtree_delete_many(&st, pos, np);
					for (i = np - 1; i >= 0; i--)
						model_delete(&model, pos[i]);
					FZ_ASSERT(model.reads == 0, "delete_many read a key");
					changed = true;
					break;
				}
			case 5:
			case 6:
				{
					/* split, then merge back in one of four ways or keep a half */
					int			at = in_u16(&in) % (model.n + 1);
					int			way = in_byte(&in) % 6;
					int			seam = -2;
					bool		ok;
					SeqTree		right;

					FZ_ASSERT(seqtree_split(&st, at, &right, rbuf, space, &seam), "split");
					FZ_ASSERT(model.reads == 0, "split read a key");
					FZ_ASSERT(seam == ((at > 0 && at < model.n) ?
									   seqtree_diff_bit(model.keys[at - 1], model.keys[at],
														keylen) : -1), "split seam bit");
					left_model.keylen = right_model.keylen = keylen;
					left_model.n = at;
					memcpy(left_model.keys, model.keys, sizeof(model.keys[0]) * at);
					right_model.n = model.n - at;
					memcpy(right_model.keys, model.keys[at],
						   sizeof(model.keys[0]) * (model.n - at));
					left_model.reads = right_model.reads = 0;
					left_model.next = right_model.next = NULL;
					fz_verify(&st, &left_model);
					fz_verify(&right, &right_model);
					left_model.next = &right_model;
					switch (way)
					{
						case 0:
							ok = seqtree_merge_bit(&st, &right, seam);
							FZ_ASSERT(left_model.reads == 0, "merge_bit read keys");
							break;
						case 1:
							ok = seqtree_merge(&st, &right, NULL, NULL, fz_get, &left_model);
							FZ_ASSERT(left_model.reads <= 2, "merge reads");
							break;
						case 2:
							ok = seqtree_merge(&st, &right,
											   at > 0 ? model.keys[at - 1] : NULL, NULL,
											   fz_get, &left_model);
							FZ_ASSERT(left_model.reads <= 1, "merge reads, left key given");
							break;
						case 3:
							ok = seqtree_merge(&st, &right, NULL,
											   at < model.n ? model.keys[at] : NULL,
											   fz_get, &left_model);
							FZ_ASSERT(left_model.reads <= 1, "merge reads, right key given");
							break;
						case 4:
							ok = true;
							model.n = at;
							break;
						default:
							ok = seqtree_serialize(&right, buf, space) > 0 &&
								seqtree_attach(&st, buf, space);
							memmove(model.keys, right_model.keys,
									sizeof(model.keys[0]) * right_model.n);
							model.n = right_model.n;
							break;
					}
					FZ_ASSERT(ok, "merge back after split");
					changed = true;
					break;
				}
			case 7:
				{
					/* change the BlindiTree depth in place */
					int			nl = in_byte(&in) % 8;

					if (seqtree_size(model.n, keylen, nl) <= space)
					{
						FZ_ASSERT(seqtree_copy(&st, &st, buf, space, nl), "relevel");
						changed = true;
					}
					else
						FZ_ASSERT(!seqtree_copy(&st, &st, buf, space, nl),
								  "relevel beyond the space");
					break;
				}
			default:
				fz_raw(&in, &st);
				break;
		}
		/* full verification is O(n); do it often, not always, on big trees */
		if (changed && (model.n <= 48 || ++nchanges % 8 == 0))
			fz_verify(&st, &model);
		else if (changed)
			FZ_ASSERT(seqtree_check(&st, NULL, NULL, NULL) == NULL,
					  "structure check failed");
	}
	fz_verify(&st, &model);
	return 0;
}
