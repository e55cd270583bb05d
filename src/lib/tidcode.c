/*-------------------------------------------------------------------------
 *
 * tidcode.c
 *	  TID code: heap TIDs in key order, delta-coded in groups with a
 *	  directory for random access (format in tidcode.h).
 *
 * src/lib/tidcode.c
 *
 *-------------------------------------------------------------------------
 */
#include "tidcode.h"

#include <string.h>

/* Longest varint we read: 5 bytes, 35 bits */
#define TIDCODE_VARINT_MAX	5

/* Read a native-order uint16 at p. */
static inline unsigned
rd16(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Write a native-order uint16 at p. */
static inline void
wr16(uint8_t *p, unsigned v)
{
	uint16_t	x = (uint16_t) v;

	memcpy(p, &x, sizeof(x));
}

/* Bytes the varint of v takes. */
static inline size_t
varint_size(uint64_t v)
{
	size_t		n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* Write the varint of v at p; returns its length. */
static inline size_t
put_varint(uint8_t *p, uint64_t v)
{
	size_t		n = 0;

	while (v >= 0x80)
	{
		p[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t) v;
	return n;
}

/*
 * Read a varint from p, not past end; returns its length, or 0 if it runs
 * past end, is longer than TIDCODE_VARINT_MAX bytes or is overlong.
 */
static inline size_t
get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t	x = 0;
	size_t		n = 0;

	/* one byte, the usual case (a delta within a heap page) */
	if (p < end && !(p[0] & 0x80))
	{
		*v = p[0];
		return 1;
	}
	for (;;)
	{
		uint8_t		b;

		if (p + n >= end || n >= TIDCODE_VARINT_MAX)
			return 0;
		b = p[n];
		x |= (uint64_t) (b & 0x7F) << (7 * n);
		n++;
		if (!(b & 0x80))
		{
			if (b == 0 && n > 1)
				return 0;		/* overlong */
			*v = x;
			return n;
		}
	}
}

/* zigzag: 0, -1, 1, -2, ... to 0, 1, 2, 3, ... */
static inline uint64_t
zigzag(int64_t d)
{
	return ((uint64_t) d << 1) ^ (uint64_t) (d >> 63);
}

/* Inverse of zigzag. */
static inline int64_t
unzigzag(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

/* Is tid a TID the code can hold? */
static inline bool
tid_valid(const TidCodeTid *tid)
{
	return tid->block <= TIDCODE_MAX_BLOCK && tid->offset >= 1;
}

/*
 * Bytes tid takes coded after prev (NULL: coded whole, as a group's
 * first).  prev and tid must differ.
 */
size_t
tidcode_entry_size(const TidCodeTid *prev, const TidCodeTid *tid)
{
	if (prev == NULL)
		return varint_size(tid->block) + varint_size(tid->offset);
	if (prev->block == tid->block)
		return varint_size(zigzag((int64_t) tid->offset - prev->offset) << 1);
	return varint_size((zigzag((int64_t) tid->block - (int64_t) prev->block) << 1) | 1) +
		varint_size(tid->offset);
}

/* Write tid coded after prev (NULL: whole) at p; returns its length. */
static size_t
put_entry(uint8_t *p, const TidCodeTid *prev, const TidCodeTid *tid)
{
	size_t		n;

	if (prev == NULL)
	{
		n = put_varint(p, tid->block);
		return n + put_varint(p + n, tid->offset);
	}
	if (prev->block == tid->block)
		return put_varint(p, zigzag((int64_t) tid->offset - prev->offset) << 1);
	n = put_varint(p, (zigzag((int64_t) tid->block - (int64_t) prev->block) << 1) | 1);
	return n + put_varint(p + n, tid->offset);
}

/*
 * Read one TID coded after prev (NULL: whole) from p, not past end, into
 * *tid; returns its length, or 0 if the bytes are not a valid entry.
 */
static size_t
get_entry(const uint8_t *p, const uint8_t *end, const TidCodeTid *prev,
		  TidCodeTid *tid)
{
	uint64_t	v;
	uint64_t	off;
	size_t		n;
	size_t		m;

	if ((n = get_varint(p, end, &v)) == 0)
		return 0;
	if (prev == NULL)
	{
		if (v > TIDCODE_MAX_BLOCK || (m = get_varint(p + n, end, &off)) == 0 ||
			off < 1 || off > TIDCODE_MAX_OFFSET)
			return 0;
		tid->block = (uint32_t) v;
		tid->offset = (uint16_t) off;
		return n + m;
	}
	if (v & 1)
	{
		int64_t		d = unzigzag(v >> 1);
		int64_t		blk = (int64_t) prev->block + d;

		if (d == 0 || blk < 0 || blk > (int64_t) TIDCODE_MAX_BLOCK ||
			(m = get_varint(p + n, end, &off)) == 0 ||
			off < 1 || off > TIDCODE_MAX_OFFSET)
			return 0;
		tid->block = (uint32_t) blk;
		tid->offset = (uint16_t) off;
		return n + m;
	}
	else
	{
		int64_t		d = unzigzag(v >> 1);
		int64_t		o = (int64_t) prev->offset + d;

		if (d == 0 || o < 1 || o > (int64_t) TIDCODE_MAX_OFFSET)
			return 0;
		tid->block = prev->block;
		tid->offset = (uint16_t) o;
		return n;
	}
}

/* First position of group g. */
static inline int
group_first(const TidCode *tc, int g)
{
	return (int) rd16(tc->buf + TIDCODE_HEADER_SIZE + g * TIDCODE_DIR_ENTRY);
}

/* Offset of group g's data. */
static inline size_t
group_off(const TidCode *tc, int g)
{
	return rd16(tc->buf + TIDCODE_HEADER_SIZE + g * TIDCODE_DIR_ENTRY + 2);
}

/* Number of entries of group g. */
static inline int
group_count(const TidCode *tc, int g)
{
	return (g + 1 < tc->ngroups ? group_first(tc, g + 1) : tc->n) - group_first(tc, g);
}

/* End of group g's data. */
static inline size_t
group_end(const TidCode *tc, int g)
{
	return g + 1 < tc->ngroups ? group_off(tc, g + 1) : tc->datalen;
}

/*
 * Open the code of n TIDs in buf[0..len): check its header (constant
 * time).  Returns false if it is invalid.  Each group's directory entry
 * and data are checked when the group is read (group_valid), so readers
 * never go past the code, and tidcode_check reads them all.
 */
bool
tidcode_open(TidCode *tc, const uint8_t *buf, size_t len, int n)
{
	int			ng;

	memset(tc, 0, sizeof(*tc));
	tc->buf = buf;
	if (n < 0 || n > TIDCODE_MAX_TIDS)
		return false;
	if (len == 0)
		return n == 0;
	if (n == 0 || len < TIDCODE_HEADER_SIZE || (len & 1) == 0 ||
		buf[0] != TIDCODE_MAGIC || (buf[1] & ~TIDCODE_PADDED) != 0 ||
		rd16(buf + 2) != (unsigned) n)
		return false;
	tc->len = len;
	tc->datalen = len;
	if (buf[1] & TIDCODE_PADDED)
	{
		if (buf[len - 1] != 0)
			return false;
		tc->datalen--;
	}
	ng = (int) rd16(buf + 4);
	if (ng < 1 || ng > n ||
		TIDCODE_HEADER_SIZE + (size_t) ng * TIDCODE_DIR_ENTRY >= tc->datalen)
		return false;
	tc->n = n;
	tc->ngroups = ng;
	return true;
}

/*
 * Is group g's directory entry sound: 1..TIDCODE_GROUP_MAX TIDs, data of
 * at least 2 bytes after the directory and within the code, the first
 * group at position 0 right after the directory?
 */
static bool
group_valid(const TidCode *tc, int g)
{
	size_t		dirend = TIDCODE_HEADER_SIZE + (size_t) tc->ngroups * TIDCODE_DIR_ENTRY;
	int			count = group_count(tc, g);
	size_t		off = group_off(tc, g);
	size_t		end = group_end(tc, g);

	if (g == 0 && (group_first(tc, 0) != 0 || off != dirend))
		return false;
	return count >= 1 && count <= TIDCODE_GROUP_MAX &&
		off >= dirend && off + 2 <= end && end <= tc->datalen;
}

/* Largest group whose first position is <= pos. */
static int
find_group(const TidCode *tc, int pos)
{
	int			lo = 0,
				hi = tc->ngroups - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (group_first(tc, mid) <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Decode the first upto TIDs of group g into out (which may be NULL when
 * only the last is wanted, then stored in *last).  When upto is the whole
 * group its data must end exactly where the group ends.
 */
static bool
decode_group(const TidCode *tc, int g, int upto, TidCodeTid *out,
			 TidCodeTid *last)
{
	const uint8_t *p;
	const uint8_t *end;
	TidCodeTid	prev,
				cur;
	int			count;

	if (g < 0 || g >= tc->ngroups || !group_valid(tc, g))
		return false;
	p = tc->buf + group_off(tc, g);
	end = tc->buf + group_end(tc, g);
	count = group_count(tc, g);
	if (upto < 0 || upto > count)
		return false;
	for (int i = 0; i < upto; i++)
	{
		size_t		n = get_entry(p, end, i == 0 ? NULL : &prev, &cur);

		if (n == 0)
			return false;
		p += n;
		if (out)
			out[i] = cur;
		prev = cur;
	}
	if (upto == count && p != end)
		return false;
	if (last && upto > 0)
		*last = prev;
	return true;
}

/* Read the TID at position pos into *tid; false if damaged or out of range. */
bool
tidcode_get(const TidCode *tc, int pos, TidCodeTid *tid)
{
	int			g;

	if (pos < 0 || pos >= tc->n)
		return false;
	g = find_group(tc, pos);
	if (pos < group_first(tc, g))
		return false;			/* a damaged directory */
	return decode_group(tc, g, pos - group_first(tc, g) + 1, NULL, tid);
}

/*
 * Decode the TIDs of the group holding position pos, from the group's
 * first up to pos, into out (TIDCODE_GROUP_MAX entries) and set *first to
 * the group's first position; returns the number decoded (pos - *first +
 * 1), or 0 if damaged or out of range.  A reader that needs several TIDs
 * near one another decodes their group once.
 */
int
tidcode_get_group(const TidCode *tc, int pos, TidCodeTid *out, int *first)
{
	int			g;
	int			upto;

	if (pos < 0 || pos >= tc->n)
		return 0;
	g = find_group(tc, pos);
	if (pos < group_first(tc, g))
		return 0;				/* a damaged directory */
	upto = pos - group_first(tc, g) + 1;
	if (!decode_group(tc, g, upto, out, NULL))
		return 0;
	*first = group_first(tc, g);
	return upto;
}

/*
 * Decode the TIDs at positions start..start+count-1 into out; false if
 * damaged or out of range.
 */
bool
tidcode_decode(const TidCode *tc, int start, int count, TidCodeTid *out)
{
	int			done = 0;
	int			g;

	if (count == 0)
		return start >= 0 && start <= tc->n;
	if (start < 0 || count < 0 || start + count > tc->n)
		return false;
	g = find_group(tc, start);
	while (done < count)
	{
		TidCodeTid	tmp[TIDCODE_GROUP_MAX];
		int			first = group_first(tc, g);
		int			gc = group_count(tc, g);
		int			from = start + done - first;
		int			take = gc - from < count - done ? gc - from : count - done;

		if (g >= tc->ngroups || from < 0 || !decode_group(tc, g, gc, tmp, NULL))
			return false;
		memcpy(out + done, tmp + from, (size_t) take * sizeof(TidCodeTid));
		done += take;
		g++;
	}
	return true;
}

/*
 * Decode every group: is the whole code valid, with no two neighbours
 * equal (across groups too)?
 */
bool
tidcode_check(const TidCode *tc)
{
	TidCodeTid	last = {0, 0};

	for (int g = 0; g < tc->ngroups; g++)
	{
		TidCodeTid	first;

		if (!decode_group(tc, g, 1, NULL, &first) ||
			(first.block == last.block && first.offset == last.offset) ||
			!decode_group(tc, g, group_count(tc, g), NULL, &last))
			return false;
	}
	return true;
}

/*
 * Encode tids[0..n) as one group at out[0..room); returns its length, or
 * 0 if it does not fit or the TIDs are invalid (neighbours equal).
 */
static size_t
encode_group(const TidCodeTid *tids, int n, uint8_t *out, size_t room)
{
	size_t		w = 0;

	for (int i = 0; i < n; i++)
	{
		const TidCodeTid *prev = i == 0 ? NULL : &tids[i - 1];

		if (!tid_valid(&tids[i]) ||
			(prev && prev->block == tids[i].block && prev->offset == tids[i].offset))
			return 0;
		if (tidcode_entry_size(prev, &tids[i]) > room - w)
			return 0;
		w += put_entry(out + w, prev, &tids[i]);
	}
	return w;
}

/* Write the header of a code of n TIDs in ng groups, padding it; new length. */
static long
finish_code(uint8_t *out, size_t outsz, size_t w, int n, int ng)
{
	uint8_t		flags = 0;

	if ((w & 1) == 0)
	{
		if (w >= outsz)
			return -1;
		out[w++] = 0;
		flags = TIDCODE_PADDED;
	}
	out[0] = TIDCODE_MAGIC;
	out[1] = flags;
	wr16(out + 2, (unsigned) n);
	wr16(out + 4, (unsigned) ng);
	return (long) w;
}

/* Set directory entry g of out. */
static inline void
set_dir(uint8_t *out, int g, int first, size_t off)
{
	wr16(out + TIDCODE_HEADER_SIZE + g * TIDCODE_DIR_ENTRY, (unsigned) first);
	wr16(out + TIDCODE_HEADER_SIZE + g * TIDCODE_DIR_ENTRY + 2, (unsigned) off);
}

/*
 * Encode tids[0..n) afresh, in groups of TIDCODE_GROUP, into out[0..outsz).
 * Returns the code's length (0 for an empty list), or -1 if it does not
 * fit or the list is invalid (a TID out of range, equal neighbours).
 */
long
tidcode_encode(const TidCodeTid *tids, int n, uint8_t *out, size_t outsz)
{
	int			ng = (n + TIDCODE_GROUP - 1) / TIDCODE_GROUP;
	size_t		w = TIDCODE_HEADER_SIZE + (size_t) ng * TIDCODE_DIR_ENTRY;

	if (n == 0)
		return 0;
	if (n < 0 || n > TIDCODE_MAX_TIDS || w > outsz)
		return -1;
	for (int g = 0; g < ng; g++)
	{
		int			first = g * TIDCODE_GROUP;
		int			cnt = n - first < TIDCODE_GROUP ? n - first : TIDCODE_GROUP;
		size_t		len;

		if (w > 0xFFFF)
			return -1;
		/* a neighbour across the group boundary must differ as well */
		if (g > 0 && tids[first - 1].block == tids[first].block &&
			tids[first - 1].offset == tids[first].offset)
			return -1;
		if ((len = encode_group(tids + first, cnt, out + w, outsz - w)) == 0)
			return -1;
		set_dir(out, g, first, w);
		w += len;
	}
	return finish_code(out, outsz, w, n, ng);
}

/*
 * Write into out[0..outsz) the code tc with tid inserted at position pos
 * (0..n): the group taking it is decoded and coded again, split in two
 * halves when it would hold more than TIDCODE_GROUP_MAX; the others'
 * bytes are copied.  Returns the new length, or -1 if it does not fit, the
 * group is damaged, or tid is invalid or equals a neighbour.  out must not
 * overlap tc's buffer.
 */
long
tidcode_insert(const TidCode *tc, int pos, TidCodeTid tid, uint8_t *out,
			   size_t outsz)
{
	TidCodeTid	arr[TIDCODE_GROUP_MAX + 1];
	int			g,
				first,
				cnt,
				ng;
	bool		split;
	size_t		w;

	if (pos < 0 || pos > tc->n || tc->n >= TIDCODE_MAX_TIDS || !tid_valid(&tid))
		return -1;
	if (tc->n == 0)
		return tidcode_encode(&tid, 1, out, outsz);

	g = pos == tc->n ? tc->ngroups - 1 : find_group(tc, pos);
	if (!group_valid(tc, g))
		return -1;
	first = group_first(tc, g);
	cnt = group_count(tc, g);
	if (pos < first || pos > first + cnt || !decode_group(tc, g, cnt, arr, NULL))
		return -1;
	memmove(arr + (pos - first) + 1, arr + (pos - first),
			(size_t) (cnt - (pos - first)) * sizeof(TidCodeTid));
	arr[pos - first] = tid;
	cnt++;
	/* equal to a neighbour in the group (a split may cut between them) */
	for (int i = pos - first - 1; i <= pos - first + 1; i += 2)
		if (i >= 0 && i < cnt && arr[i].block == tid.block &&
			arr[i].offset == tid.offset)
			return -1;
	/* the TIDs around the group must differ from their new neighbours */
	if (pos == first && g > 0)
	{
		TidCodeTid	before;

		if (!decode_group(tc, g - 1, group_count(tc, g - 1), NULL, &before) ||
			(before.block == tid.block && before.offset == tid.offset))
			return -1;
	}
	if (pos - first == cnt - 1 && g + 1 < tc->ngroups)
	{
		TidCodeTid	after;

		if (!decode_group(tc, g + 1, 1, NULL, &after) ||
			(after.block == tid.block && after.offset == tid.offset))
			return -1;
	}

	split = cnt > TIDCODE_GROUP_MAX;
	ng = tc->ngroups + (split ? 1 : 0);
	w = TIDCODE_HEADER_SIZE + (size_t) ng * TIDCODE_DIR_ENTRY;
	if (w > outsz)
		return -1;
	for (int i = 0, o = 0; i < tc->ngroups; i++, o++)
	{
		if (w > 0xFFFF)
			return -1;
		if (i != g)
		{
			size_t		len;

			if (!group_valid(tc, i))
				return -1;
			len = group_end(tc, i) - group_off(tc, i);
			if (len > outsz - w)
				return -1;
			memcpy(out + w, tc->buf + group_off(tc, i), len);
			set_dir(out, o, group_first(tc, i) + (i > g ? 1 : 0), w);
			w += len;
		}
		else
		{
			int			left = split ? cnt / 2 : cnt;
			size_t		len;

			if ((len = encode_group(arr, left, out + w, outsz - w)) == 0)
				return -1;
			set_dir(out, o, first, w);
			w += len;
			if (split)
			{
				if (w > 0xFFFF ||
					(len = encode_group(arr + left, cnt - left, out + w, outsz - w)) == 0)
					return -1;
				o++;
				set_dir(out, o, first + left, w);
				w += len;
			}
		}
	}
	return finish_code(out, outsz, w, tc->n + 1, ng);
}

/*
 * Write into out[0..outsz) the code tc without the TIDs at the npos
 * positions (ascending, distinct): each group losing some is coded again
 * with the rest, an emptied group dropped, the others' bytes copied.  The
 * result is never longer than tc (tidcode.h).  Returns the new length, or
 * -1 if the positions are invalid, a group they touch is damaged or out
 * is too small.  out must not overlap tc's buffer.
 */
long
tidcode_delete(const TidCode *tc, const int *positions, int npos,
			   uint8_t *out, size_t outsz)
{
	int			ng = 0;
	int			k = 0;
	int			removed = 0;
	size_t		w;

	for (int i = 0; i < npos; i++)
		if (positions[i] < 0 || positions[i] >= tc->n ||
			(i > 0 && positions[i] <= positions[i - 1]))
			return -1;
	if (npos == tc->n)
		return 0;

	/* groups left: those not losing every TID */
	for (int g = 0; g < tc->ngroups; g++)
	{
		if (!group_valid(tc, g))
			return -1;
	}
	for (int g = 0; g < tc->ngroups; g++)
	{
		int			end = group_first(tc, g) + group_count(tc, g);
		int			lose = 0;

		while (k < npos && positions[k] < end)
		{
			k++;
			lose++;
		}
		if (lose < group_count(tc, g))
			ng++;
	}

	w = TIDCODE_HEADER_SIZE + (size_t) ng * TIDCODE_DIR_ENTRY;
	if (w > outsz)
		return -1;
	k = 0;
	for (int g = 0, o = 0; g < tc->ngroups; g++)
	{
		int			first = group_first(tc, g);
		int			cnt = group_count(tc, g);
		int			k0 = k;

		while (k < npos && positions[k] < first + cnt)
			k++;
		if (k == k0)
		{
			size_t		len = group_end(tc, g) - group_off(tc, g);

			if (len > outsz - w || w > 0xFFFF)
				return -1;
			memcpy(out + w, tc->buf + group_off(tc, g), len);
			set_dir(out, o++, first - removed, w);
			w += len;
		}
		else
		{
			TidCodeTid	arr[TIDCODE_GROUP_MAX];
			int			kept = 0;
			int			j = k0;
			size_t		len;

			if (!decode_group(tc, g, cnt, arr, NULL))
				return -1;
			for (int i = 0; i < cnt; i++)
			{
				if (j < k && positions[j] == first + i)
					j++;
				else
					arr[kept++] = arr[i];
			}
			if (kept > 0)
			{
				if (w > 0xFFFF ||
					(len = encode_group(arr, kept, out + w, outsz - w)) == 0)
					return -1;
				set_dir(out, o++, first - removed, w);
				w += len;
			}
			removed += k - k0;
		}
	}
	return finish_code(out, outsz, w, tc->n - npos, ng);
}
