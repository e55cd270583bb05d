#!/usr/bin/env python3
"""Leaf-fill model of "many sorted streams" (src/README.md, "Redistribution
between sibling leaves").

D devices append R rows each in ts order, interleaved: round t adds
(d, t) for every device d.  A leaf holds at most C entries (about 290 for
(int4, timestamp) keys on an 8 KB page).  Splits follow the core's rules
in outline: at the fill factor when the new entry goes at the leaf's end,
between two streams when the new entry ends the stream the leaf begins
with (and that stream fills half the leaf), else half and half moved to
the nearest stream boundary within an eighth of the leaf.  The parent
level is not modelled (a sibling under another parent is taken as usable).

Policies (argument 4):
  split   splits only (the core today)
  right   a full leaf first moves entries to its right sibling, if that
          has room, so that both hold the same number (B*-tree shift)
  right3  right, and when the right sibling is full too, the two become
          three leaves two thirds full (B*-tree 2-to-3 split)
  both3   right3, trying the left sibling too before the 2-to-3 split

Prints leaves, leaf fill, and the counts of splits, shifts, entries moved
by shifts and 2-to-3 splits.  Usage: fill_model.py D R C POLICY
(fill_model.py 10000 200 290 right3 takes about a minute).
"""
import bisect
import sys

FILLFACTOR = 0.9


def stream_aligned(leaf, pos, cap):
    """The stream boundary nearest to pos within cap/8 items, else pos."""
    best = None
    for p in range(max(1, pos - cap // 8), min(len(leaf) - 1, pos + cap // 8) + 1):
        if leaf[p][0] != leaf[p - 1][0] and (best is None or abs(p - pos) < abs(best - pos)):
            best = p
    return pos if best is None else best


def split_point(old, newpos, cap):
    """Where a leaf that held old splits when an entry comes at newpos."""
    n = len(old)
    if newpos == n:
        return max(1, int(n * FILLFACTOR))
    if (newpos >= n // 2 and old[0][0] == old[newpos - 1][0]
            and old[newpos][0] != old[0][0]):
        return newpos
    return stream_aligned(old, n // 2, cap)


def run(ndevices, nrounds, cap, policy):
    """Load the rows under policy; return the leaves and the counters."""
    leaves = [[]]
    lows = [(-1, -1)]
    count = dict(splits=0, shifts=0, moved=0, three=0)
    for t in range(nrounds):
        for d in range(ndevices):
            key = (d, t)
            i = bisect.bisect_right(lows, key) - 1
            leaf = leaves[i]
            pos = bisect.bisect_left(leaf, key)
            if len(leaf) < cap:
                leaf.insert(pos, key)
                continue
            leaf.insert(pos, key)
            if policy != 'split' and i + 1 < len(leaves) and len(leaves[i + 1]) < cap - 1:
                right = leaves[i + 1]
                keep = (len(leaf) + len(right) + 1) // 2
                moved = leaf[keep:]
                del leaf[keep:]
                leaves[i + 1] = moved + right
                lows[i + 1] = moved[0]
                count['shifts'] += 1
                count['moved'] += len(moved)
                continue
            if policy == 'both3' and i > 0 and len(leaves[i - 1]) < cap - 1:
                left = leaves[i - 1]
                give = len(leaf) - (len(leaf) + len(left) + 1) // 2
                left.extend(leaf[:give])
                del leaf[:give]
                lows[i] = leaf[0]
                count['shifts'] += 1
                count['moved'] += give
                continue
            if policy in ('right3', 'both3') and i + 1 < len(leaves):
                both = leaf + leaves[i + 1]
                a, b = len(both) // 3, 2 * len(both) // 3
                leaves[i:i + 2] = [both[:a], both[a:b], both[b:]]
                lows[i + 1:i + 2] = [both[a], both[b]]
                count['three'] += 1
                continue
            old = leaf[:pos] + leaf[pos + 1:]
            p = min(max(split_point(old, pos, cap), 1), len(leaf) - 1)
            leaves[i:i + 1] = [leaf[:p], leaf[p:]]
            lows.insert(i + 1, leaf[p])
            count['splits'] += 1
    return leaves, count


def main():
    ndevices, nrounds, cap = (int(a) for a in sys.argv[1:4])
    policy = sys.argv[4]
    leaves, count = run(ndevices, nrounds, cap, policy)
    rows = sum(len(leaf) for leaf in leaves)
    print(f"{policy}: devices={ndevices} rows={rows} leaves={len(leaves)} "
          f"fill={100.0 * rows / (len(leaves) * cap):.1f}% "
          f"splits={count['splits']} shifts={count['shifts']} "
          f"moved/row={count['moved'] / rows:.3f} three={count['three']}")


if __name__ == '__main__':
    main()
