"""The compiled hash passes of :mod:`nbparallel.data.factorize`: strings and object pointers to dense ids.

Open addressing with linear probing over ``uint64`` keys. A string of at most
7 bytes is packed with its length into its key and compared without touching
its bytes; a longer one is hashed and compared byte by byte with a copy of the
first occurrence; an object is keyed by its pointer. Each pass either writes an
index per row or (``out is None``, pruned at compile time) adds the row to its
value's per-class counts.
"""

import numpy as np
from numba import njit

FIRST_SLOTS = 64


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # multiplier of the 8-byte words of long strings


_MIX_1 = np.uint64(0xFF51AFD7ED558CCD)


_MIX_2 = np.uint64(0xC4CEB9FE1A85EC53)


_FNV_BASIS = np.uint64(0xCBF29CE484222325)


EMPTY_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)  # an empty string slot's key: no string's key


_LONG_FLAG = np.uint64(0xFF) << np.uint64(56)  # top byte of a long string's key (a short one's is its length)


_HASH_BITS = np.uint64(0x00FFFFFFFFFFFFFE)  # a long string's key: these bits of its hash


@njit(nogil=True, cache=True, inline="always")
def _mix(key):
    """MurmurHash3's 64-bit finaliser: every bit of ``key`` reaches the low bits that pick a slot.

    (Keys of short strings that differ only in their last byte, such as
    "level_0".."level_9", differ only in their high bits.)
    """
    h = key ^ (key >> np.uint64(33))
    h *= _MIX_1
    h ^= h >> np.uint64(33)
    h *= _MIX_2
    return h ^ (h >> np.uint64(33))


@njit(nogil=True, cache=True, inline="always")
def _load8(data, at):
    """The 8 bytes ``data[at:at + 8]`` as a little-endian ``uint64`` (LLVM makes it one unaligned load)."""
    at = np.uint64(at)
    key = np.uint64(0)
    for b in range(8):
        key |= np.uint64(data[at + np.uint64(b)]) << np.uint64(8 * b)
    return key


@njit(nogil=True, cache=True, inline="always")
def _slot_shift(n_slots):
    """``64 - log2(n_slots)``: a hash's top bits, shifted down by it, pick one of ``n_slots`` (a power of two)."""
    bits = 0
    while (1 << bits) < n_slots:
        bits += 1
    return np.uint64(64 - bits)


@njit(nogil=True, cache=True)
def rehash(keys, hashes, count, slot_keys, slot_ids):
    """Fill empty tables ``slot_keys``, ``slot_ids`` (-1 = empty) with ids ``0..count - 1`` at their hashes."""
    mask = np.uint64(len(slot_ids) - 1)
    shift = _slot_shift(len(slot_ids))
    for u in range(count):
        s = hashes[u] >> shift
        while slot_ids[s] >= 0:
            s = (s + np.uint64(1)) & mask
        slot_keys[s] = keys[u]
        slot_ids[s] = u


@njit(nogil=True, cache=True)
def pointer_indices(pointers, begin, out, classes, counts, slot_keys, slot_ids, keys, hashes, first, count):
    """Ids of distinct pointers, in order of first appearance, for rows ``begin..``.

    Writes each row's id ``u`` into ``out``, or, when ``out`` is None,
    adds the row to ``counts[1 + u, classes[i]]`` instead. A slot holds a
    pointer and its id (-1 = empty); ``keys[u]``, ``hashes[u]``, ``first[u]``
    are the pointer, its hash and the first row of id ``u``. Stops before a
    row that needs a new id once the table is half full. Returns ``(row reached, count)``.
    """
    mask = np.uint64(len(slot_ids) - 1)
    shift = _slot_shift(len(slot_ids))
    full = len(slot_ids) // 2
    counting = out is None  # decided when the kernel is compiled: its loop holds one mode only
    n_classes, flat = np.uint64(counts.shape[1]), counts.ravel()
    for i in range(begin, len(pointers)):
        p = np.uint64(pointers[i])
        h = _mix(p)
        s = h >> shift
        while True:
            if slot_keys[s] == p:
                u = slot_ids[s]
                break
            if slot_ids[s] < 0:
                if count >= full:
                    return i, count
                slot_keys[s], slot_ids[s] = p, count
                keys[count], hashes[count], first[count] = p, h, i
                u = count
                count += 1
                break
            s = (s + np.uint64(1)) & mask
        if counting:
            flat[np.uint64(u + 1) * n_classes + np.uint64(classes[i])] += 1
        else:
            out[i] = u
    return len(pointers), count


@njit(nogil=True, cache=True)
def remap(out, table):
    """``out[i] = table[out[i]]`` in place: ids of one pass mapped to the ids of the merged values."""
    for i in range(len(out)):
        out[i] = table[out[i]]


@njit(nogil=True, cache=True)
def string_indices(offsets, data, validity, start, n, begin, row0, out, classes, counts, slot_keys, slot_ids,
                    keys, hashes, first, store, ends, count):
    """Ids of the distinct strings of one Arrow chunk, in order of first appearance, for rows ``begin..n``.

    The chunk's row ``i`` is the bytes ``data[offsets[start + i]:offsets[start + i + 1]]``,
    missing when bit ``start + i`` of ``validity`` is 0 (an empty ``validity``
    means no row is missing); its id ``u`` goes to ``out[row0 + i]`` (-1 for
    missing), or, when ``out`` is None, the row is added to
    ``counts[1 + u, classes[row0 + i]]`` (row 0 for missing) instead.
    A slot holds a key and its id (-1 = empty). Id ``u`` has the key
    ``keys[u]`` (a short string's bytes and length; for a string longer than 7
    bytes, 55 bits of its hash and a flag, the bytes being
    ``store[ends[u]:ends[u + 1]]``), hash ``hashes[u]`` and first row
    ``first[u]`` (counted from the column's first row). Stops before a row that
    needs a new id once the table is half full, or whose bytes do not fit in
    ``store``. Returns ``(row reached, count)``.
    """
    mask = np.uint64(len(slot_ids) - 1)
    shift = _slot_shift(len(slot_ids))
    full = len(slot_ids) // 2
    has_validity = len(validity) > 0
    counting = out is None  # decided when the kernel is compiled: its loop holds one mode only
    n_classes, flat = np.uint64(counts.shape[1]), counts.ravel()
    size = np.uint64(len(data))
    for i in range(begin, n):
        bit = np.uint64(start + i)
        if has_validity and not (validity[bit >> np.uint64(3)] >> (bit & np.uint64(7))) & 1:
            if counting:
                flat[np.uint64(classes[row0 + i])] += 1
            else:
                out[row0 + i] = -1
            continue
        lo = np.uint64(offsets[bit])
        length = np.int64(offsets[bit + np.uint64(1)]) - np.int64(lo)
        if length < 8:
            if lo + np.uint64(8) <= size:  # one 8-byte read, masked to the string's bytes
                key = _load8(data, lo) & ((np.uint64(1) << np.uint64(8 * length)) - np.uint64(1))
            else:
                key = _load_tail(data, lo, length)
            key |= np.uint64(length) << np.uint64(56)
            h = key * _GOLDEN  # Fibonacci hashing: the top bits, which pick the slot, depend on every bit
        else:
            h = _hash_bytes(data, lo, length, size)
            key = (h & _HASH_BITS) | _LONG_FLAG  # top byte 255: no short key, never the empty slot's key
        s = h >> shift
        while True:
            if slot_keys[s] == key:
                u = slot_ids[s]
                if length < 8 or _same_bytes(data, lo, length, store, ends, u):
                    break
            elif slot_ids[s] < 0:
                if count >= full:
                    return i, count
                stored = ends[count]
                if length >= 8:
                    if stored + length > len(store):
                        return i, count
                    store[stored : stored + length] = data[lo : lo + np.uint64(length)]
                    stored += length
                slot_keys[s], slot_ids[s] = key, count
                keys[count], hashes[count], first[count] = key, h, row0 + i
                ends[count + 1] = stored
                u = count
                count += 1
                break
            s = (s + np.uint64(1)) & mask
        if counting:
            flat[np.uint64(u + 1) * n_classes + np.uint64(classes[row0 + i])] += 1
        else:
            out[row0 + i] = u
    return n, count


@njit(nogil=True, cache=True)
def short_string_indices(offsets, data, validity, start, n, begin, row0, out, classes, counts, slot_keys, slot_ids,
                          keys, hashes, first, store, ends, count):
    """:func:`string_indices` for strings of up to 7 bytes, whose key is their bytes: it also stops before
    a longer string (``store`` is unused).

    Its loop carries none of the long strings' hashing, byte comparison and
    storing, so it counts short strings with less work than the general pass.
    The ids, keys and hashes it gives are the same, so either pass continues
    the other's table. Its lines repeat the general pass's on purpose: moved
    into inlined helpers, the key, the new id and the per-row write made the
    loop slower.
    """
    mask = np.uint64(len(slot_ids) - 1)
    shift = _slot_shift(len(slot_ids))
    full = len(slot_ids) // 2
    has_validity = len(validity) > 0
    counting = out is None  # decided when the kernel is compiled: its loop holds one mode only
    n_classes, flat = np.uint64(counts.shape[1]), counts.ravel()
    size = np.uint64(len(data))
    for i in range(begin, n):
        bit = np.uint64(start + i)
        if has_validity and not (validity[bit >> np.uint64(3)] >> (bit & np.uint64(7))) & 1:
            if counting:
                flat[np.uint64(classes[row0 + i])] += 1
            else:
                out[row0 + i] = -1
            continue
        lo = np.uint64(offsets[bit])
        length = np.int64(offsets[bit + np.uint64(1)]) - np.int64(lo)
        if length >= 8:
            return i, count
        if lo + np.uint64(8) <= size:
            key = _load8(data, lo) & ((np.uint64(1) << np.uint64(8 * length)) - np.uint64(1))
        else:
            key = _load_tail(data, lo, length)
        key |= np.uint64(length) << np.uint64(56)
        h = key * _GOLDEN
        s = h >> shift
        while True:
            if slot_keys[s] == key:
                u = slot_ids[s]
                break
            elif slot_ids[s] < 0:
                if count >= full:
                    return i, count
                slot_keys[s], slot_ids[s] = key, count
                keys[count], hashes[count], first[count] = key, h, row0 + i
                ends[count + 1] = ends[count]
                u = count
                count += 1
                break
            s = (s + np.uint64(1)) & mask
        if counting:
            flat[np.uint64(u + 1) * n_classes + np.uint64(classes[row0 + i])] += 1
        else:
            out[row0 + i] = u
    return n, count


@njit(nogil=True, cache=True, inline="always")
def _load_tail(data, at, length):
    """The ``length < 8`` bytes ``data[at:at + length]`` as a little-endian ``uint64``, byte by byte."""
    key = np.uint64(0)
    for b in range(length):
        key |= np.uint64(data[at + np.uint64(b)]) << np.uint64(8 * b)
    return key


@njit(nogil=True, cache=True, inline="always")
def _hash_bytes(data, lo, length, size):
    """A 64-bit hash of ``data[lo:lo + length]``, 8 bytes at a time."""
    h = _FNV_BASIS ^ np.uint64(length)
    at, end = lo, lo + np.uint64(length)
    while at + np.uint64(8) <= end:
        h = (h ^ _load8(data, at)) * _GOLDEN
        h ^= h >> np.uint64(32)
        at += np.uint64(8)
    if at < end:
        rest = np.int64(end - at)
        if at + np.uint64(8) <= size:
            word = _load8(data, at) & ((np.uint64(1) << np.uint64(8 * rest)) - np.uint64(1))
        else:
            word = _load_tail(data, at, rest)
        h = (h ^ word) * _GOLDEN
    return _mix(h)


@njit(nogil=True, cache=True, inline="always")
def _same_bytes(data, lo, length, store, ends, u):
    """Whether ``data[lo:lo + length]`` are the stored bytes of id ``u``."""
    at = ends[u]
    if ends[u + 1] - at != length:
        return False
    b = 0
    while b + 8 <= length:
        if _load8(data, lo + np.uint64(b)) != _load8(store, np.uint64(at + b)):
            return False
        b += 8
    while b < length:
        if data[lo + np.uint64(b)] != store[at + b]:
            return False
        b += 1
    return True
