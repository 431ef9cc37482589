#!/usr/bin/env python3
"""Independent GlassLedger verifier, written from docs/FORMAT.md (section numbers below refer to it).

Reads every vector file in a directory, recomputes hashes and trees, verifies the valid proofs and checks that
every tampered one is rejected. Standard library only. Prints one line per failure and a closing line
"N passed, M failed"; exits non-zero if anything failed. With --exhaustive it also flips every bit of every valid
proof and checks each result is rejected (about 55 s).

    python3 tools/pyverify/verify_vectors.py ledger-core/src/test/resources/vectors
"""

import hashlib
import json
import os
import re
import sys

sys.setrecursionlimit(10000)  # lower proofs may nest 512 parts deep (§9.2); a few frames per level


class Reject(Exception):
    """Verification or decoding failed (§1.3: any failure rejects the whole proof)."""


ZERO = bytes(32)
MAX_KEY = 1024
MAX_VALUE = 1 << 20
FORMAT = b"glassledger/4"  # §6.2: the genesis block's format string
MAX_LEVEL = 254  # §4.4: a stored node's level, and so a proof's root level (§9.2)


def H(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


# ---------------------------------------------------------------- §1 encodings

def enc_varint(v):
    if v < 0:
        raise ValueError("negative varint")
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def enc_u64(v):
    return v.to_bytes(8, "big")


def lp(b):
    return enc_varint(len(b)) + b


class Reader:
    """Strict reader (§1.1, §1.3)."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def remaining(self):
        return len(self.data) - self.pos

    def take(self, n):
        if n < 0 or n > self.remaining():
            raise Reject("truncated")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def u8(self):
        return self.take(1)[0]

    def u64(self):
        return int.from_bytes(self.take(8), "big")

    def varint(self, limit=None):
        value = 0
        for i in range(9):
            b = self.u8()
            value |= (b & 0x7F) << (7 * i)
            if b & 0x80 == 0:
                if b == 0 and i > 0:
                    raise Reject("non-minimal varint")
                if limit is not None and value > limit:
                    raise Reject("varint %d over limit %d" % (value, limit))
                return value
        raise Reject("varint longer than 9 bytes")

    def hash(self):
        return self.take(32)

    def lp(self, limit):
        return self.take(self.varint(limit))

    def end(self):
        if self.remaining() != 0:
            raise Reject("%d trailing bytes" % self.remaining())


# ---------------------------------------------------------------- §3 entries

def entry_encoding(key, value, version):
    """§3: the storage encoding lp(key) ‖ valuefield ‖ varint version."""
    v = enc_varint(0) if value is None else enc_varint(len(value) + 1) + value
    return lp(key) + v + enc_varint(version)


def value_hash(value):
    """§3: H(03 ‖ value); None for a tombstone."""
    return None if value is None else H(b"\x03", value)


def value_ref(vhash):
    """§3: 00 for a tombstone, 01 ‖ valueHash otherwise."""
    return b"\x00" if vhash is None else b"\x01" + vhash


def hashed_form(key, vhash, version):
    """§3: lp(key) ‖ valueRef ‖ varint version."""
    return lp(key) + value_ref(vhash) + enc_varint(version)


def entry_hash_by_value_hash(key, vhash, version):
    return H(b"\x00", hashed_form(key, vhash, version))


def entry_hash(key, value, version):
    """§3: the entry hash covers the value's hash, not the value."""
    return entry_hash_by_value_hash(key, value_hash(value), version)


def read_entry(r):
    key = r.lp(MAX_KEY)
    if len(key) == 0:
        raise Reject("empty key")
    vlen = r.varint(MAX_VALUE + 1)
    value = None if vlen == 0 else r.take(vlen - 1)
    version = r.varint()
    return (key, value, version)


# ---------------------------------------------------------------- §4 POS-tree nodes

def shortest_separator(a, b):
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    if i >= len(b) or (i < len(a) and b[i] <= a[i]):
        raise ValueError("separator needs a < b")
    return b[:i + 1]


def count_split(lo, hi):
    """§4.3, leaves: the left half gets the larger share of items."""
    return lo + (hi - lo + 1) // 2


def weighted_split(counts, lo, hi):
    """§4.3, index nodes: the m in [lo + q, hi - q], q = max(1, (hi - lo) // 4), that best halves the entries under
    children lo..hi-1; the smallest such m on a tie."""
    q = max(1, (hi - lo) // 4)
    total = sum(counts[lo:hi])
    best, best_diff = None, None
    left = sum(counts[lo:lo + q])
    for m in range(lo + q, hi - q + 1):
        diff = abs(2 * left - total)
        if best is None or diff < best_diff:
            best, best_diff = m, diff
        left += counts[m]
    return best


def items_root(item_hashes, seps, split, lo, hi):
    """R(lo, hi) of §4.3; seps[i] is the separator before item i (i >= 1); split(lo, hi) is the node's split rule."""
    if hi - lo == 1:
        return item_hashes[lo]
    m = split(lo, hi)
    s = seps[m]
    return H(b"\x01", enc_varint(len(s)), s, items_root(item_hashes, seps, split, lo, m),
             items_root(item_hashes, seps, split, m, hi))


def node_hash(level, item_hashes, seps, counts):
    """§4.3. counts: the entry count under each child (index nodes); None for a leaf."""
    if level == 0:
        split = count_split
    else:
        split = lambda lo, hi: weighted_split(counts, lo, hi)
    return H(b"\x02", bytes([level]), items_root(item_hashes, seps, split, 0, len(item_hashes)))


class TreeNode:
    def __init__(self, level, items, seps, first_key, last_key):
        self.level = level
        self.items = items          # entries (tuples) at level 0, child TreeNodes above
        self.seps = seps            # seps[0] unused
        self.first_key = first_key
        self.last_key = last_key
        if level == 0:
            self.count = len(items)
            self.hash = node_hash(0, [entry_hash(*e) for e in items], seps, None)
        else:
            self.count = sum(c.count for c in items)
            self.hash = node_hash(level, [c.hash for c in items], seps, [c.count for c in items])

    def encoding(self):
        """§4.4"""
        out = bytearray([self.level]) + enc_varint(len(self.items))
        for i, item in enumerate(self.items):
            if self.level == 0:
                out += entry_encoding(*item)
            else:
                if i > 0:
                    out += lp(self.seps[i])
                out += enc_varint(item.count) + item.hash
        return bytes(out)


def decode_node(data):
    """§4.4: a node's storage encoding. Returns its node hash (§4.3), computed from the decoded items."""
    r = Reader(data)
    level = r.u8()
    if level > MAX_LEVEL:
        raise Reject("level %d: byte ff is a delta record's tag, never a node's level" % level)
    count = r.varint(1 << 20)
    if count == 0:
        raise Reject("empty node")
    if level == 0:
        entries = []
        for i in range(count):
            e = read_entry(r)
            if entries and entries[-1][0] >= e[0]:
                raise Reject("leaf keys not strictly increasing")
            entries.append(e)
        r.end()
        seps = [b""] + [shortest_separator(entries[i - 1][0], entries[i][0]) for i in range(1, count)]
        return node_hash(0, [entry_hash(*e) for e in entries], seps, None)
    seps, counts, children = [b""], [], []
    for i in range(count):
        if i > 0:
            sep = r.lp(MAX_KEY)
            if not sep or (i > 1 and seps[-1] >= sep):
                raise Reject("index separators not strictly increasing")
            seps.append(sep)
        c = r.varint()
        if c == 0:
            raise Reject("child with no entries")
        counts.append(c)
        if sum(counts) > 1 << 48:
            raise Reject("child entry counts sum to more than 2^48")
        children.append(r.hash())
    r.end()
    return node_hash(level, children, seps, counts)


# ---------------------------------------------------------------- §5 chunking

def key_cut(key):
    """§5.2: cut(key), the first 8 bytes, big-endian, of H(04 ‖ lp(key))."""
    return int.from_bytes(H(b"\x04", lp(key))[:8], "big")


def ends_leaf(key, leaf_target):
    """§5.2: a leaf ends after `key` when cut(key) AND (leafTargetKeys − 1) = 0."""
    return key_cut(key) & (leaf_target - 1) == 0


MAX_LEAF_KEYS = 1 << 16
MAX_FANOUT = 1024


def decode_params(b):
    r = Reader(b)
    p = (r.varint(1 << 30), r.varint(1 << 30), r.varint(1 << 20), r.varint(1 << 20))
    r.end()
    lt, lm, it, im = p
    pow2 = lambda v: v >= 2 and v & (v - 1) == 0
    if not pow2(lt) or not pow2(it) or lm < lt or lm > MAX_LEAF_KEYS or im < 2 or im < it or im > MAX_FANOUT:
        raise Reject("bad tree params")
    return p


def encode_params(p):
    return b"".join(enc_varint(x) for x in p)


def build_tree(entries, params):
    """§5.3-5.5. Returns (root hash, levels: list of lists of TreeNode, closing rule of each non-last node)."""
    leaf_target, leaf_max, index_target, index_max = params
    if not entries:
        return ZERO, [], set()
    rules = set()
    leaves = []
    cur = []

    def close_leaf(rule):
        seps = [b""] + [shortest_separator(cur[i - 1][0], cur[i][0]) for i in range(1, len(cur))]
        leaves.append((TreeNode(0, list(cur), seps, cur[0][0], cur[-1][0]), rule))

    for e in entries:
        if cur and cur[-1][0] >= e[0]:
            raise ValueError("entries out of order")
        cur.append(e)
        hit = ends_leaf(e[0], leaf_target)  # the key alone: never the value or the version (§5.3)
        if hit or len(cur) >= leaf_max:
            close_leaf("leaf-pattern" if hit else "leaf-max-keys")
            cur = []
    if cur:
        close_leaf(None)
    levels = [[n for n, _ in leaves]]
    rules.update(rule for _, rule in leaves[:-1])
    nodes, level = levels[0], 0
    while len(nodes) > 1:
        level += 1
        out, cur = [], []

        def close_index(rule):
            seps = [b""] + [shortest_separator(cur[i - 1].last_key, cur[i].first_key) for i in range(1, len(cur))]
            out.append((TreeNode(level, list(cur), seps, cur[0].first_key, cur[-1].last_key), rule))

        for c in nodes:
            cur.append(c)
            pattern = int.from_bytes(c.hash[:8], "big") & (index_target - 1) == 0
            if pattern or len(cur) >= index_max:
                close_index("index-pattern" if pattern else "index-max-fanout")
                cur = []
        if cur:
            close_index(None)
        rules.update(rule for _, rule in out[:-1])
        nodes = [n for n, _ in out]
        levels.append(nodes)
    return nodes[0].hash, levels, rules


# ---------------------------------------------------------------- §6 blocks, §7 upper tree, §8 digest

def block_body(timestamp, tx_ids, meta):
    out = bytearray(b"\x01") + enc_u64(timestamp) + enc_varint(len(tx_ids))
    for t in tx_ids:
        out += lp(t)
    out += enc_varint(len(meta))
    for k, v in sorted(meta, key=lambda kv: kv[0]):
        out += lp(k) + lp(v)
    return bytes(out)


def decode_record(record):
    """§6.1: a stored block record. Returns (lowerRoot, timestamp, txIds, meta as a list of (key, value))."""
    r = Reader(record)
    lower = r.hash()
    if r.u8() != 1:
        raise Reject("unknown block body version")
    ts = r.u64()
    if ts >= 1 << 63:
        raise Reject("timestamp over 2^63 - 1")
    tx_ids = [r.lp(256) for _ in range(r.varint(1 << 24))]
    if any(len(t) == 0 for t in tx_ids):
        raise Reject("empty transaction id")
    meta = []
    for _ in range(r.varint(1 << 16)):
        key = r.lp(1024)
        if not key:
            raise Reject("empty block meta key")
        if any(b < 0x21 or b > 0x7E for b in key):
            raise Reject("block meta key is not printable ASCII")
        if meta and meta[-1][0] >= key:
            raise Reject("block meta keys not strictly increasing")
        meta.append((key, r.lp(1 << 20)))
    r.end()
    return lower, ts, tx_ids, meta


def genesis_params(meta):
    """§6.2: a reader refuses a genesis block of another format or hash function; the tree parameters follow."""
    md = dict(meta)
    if md.get(b"format") != FORMAT:
        raise Reject("genesis format %r is not %r" % (md.get(b"format"), FORMAT))
    if md.get(b"hash") != b"SHA-256":
        raise Reject("genesis hash function is not SHA-256")
    if b"tree" not in md:
        raise Reject("genesis block without tree parameters")
    return decode_params(md[b"tree"])


def block_hash(number, lower_root, body_hash):
    return H(b"\x10", enc_u64(number), lower_root, body_hash)


def digest_tail(upper_root, body_hash):
    """§8: the part of a digest above the head block's lower root."""
    return H(b"\x21", upper_root, body_hash)


def digest_root(b, lower_root, tail):
    """§8: root = H(20 ‖ u64 b ‖ lowerRoot(b) ‖ tail), tail = digest_tail(upperRoot(b), bodyHash(b))."""
    return H(b"\x20", enc_u64(b), lower_root, tail)


def upper_inner(left, right):
    return H(b"\x31", left, right)


def mth(leaves):
    n = len(leaves)
    if n == 0:
        return ZERO
    if n == 1:
        return leaves[0]
    k = 1
    while k * 2 < n:
        k *= 2
    return upper_inner(mth(leaves[:k]), mth(leaves[k:]))


def root_from_inclusion(index, size, leaf, path):
    """§7.1"""
    if index < 0 or index >= size:
        raise Reject("leaf index outside the tree")
    fn, sn, r = index, size - 1, leaf
    for c in path:
        if sn == 0:
            raise Reject("inclusion path too long")
        if fn & 1 or fn == sn:
            r = upper_inner(c, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = upper_inner(r, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise Reject("inclusion path too short")
    return r


def root_from_consistency(m, n, root1, proof):
    """§7.2"""
    if m <= 0 or m >= n:
        raise Reject("consistency needs 0 < m < n")
    if not proof:
        raise Reject("empty consistency proof")
    p = ([root1] if m & (m - 1) == 0 else []) + list(proof)
    fn, sn = m - 1, n - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = p[0]
    for c in p[1:]:
        if sn == 0:
            raise Reject("consistency proof too long")
        if fn & 1 or fn == sn:
            fr = upper_inner(c, fr)
            sr = upper_inner(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = upper_inner(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise Reject("consistency proof too short")
    if fr != root1:
        raise Reject("consistency proof does not match the first root")
    return sr


# ---------------------------------------------------------------- §9 lower proof

# §9.2 symbols: 0 pruned, 1 child node (level >= 1) or claimed entry with owner 0 (level 0), 2 other entry forms
# (level 0 only), 3..6 Inner with a 1..4-byte separator suffix, 7 Inner with varint(n - 5) and an n-byte suffix.
SYM_PRUNED, SYM_ITEM, SYM_ENTRY, SYM_INNER_LONG = 0, 1, 2, 7
MAX_DEPTH = 512
MAX_SYMBOLS = 1 << 29


def common_prefix(lo, hi):
    """§9.2: length of the common prefix of a range's bounds; 0 when either bound is open (None)."""
    if lo is None or hi is None:
        return 0
    n = 0
    while n < len(lo) and n < len(hi) and lo[n] == hi[n]:
        n += 1
    return n


def decode_lower(r):
    """§9.2. Returns (root_level, root part) with root part None for the empty tree. Parts are tuples:
    ("P", hash), ("I", sep, left, right), ("B", content), ("L", owner, key, value_hash, version).
    key and value_hash are None in claimed form; value_hash is None for a hashed-form tombstone."""
    level_plus_one = r.varint(MAX_LEVEL + 1)
    if level_plus_one == 0:
        return (-1, None)
    count = r.varint(MAX_SYMBOLS)
    nbytes = (3 * count + 7) // 8
    if nbytes > r.remaining():
        raise Reject("symbol bytes do not fit")
    bits = int.from_bytes(r.take(nbytes), "big")
    pad = 8 * nbytes - 3 * count
    if bits & ((1 << pad) - 1):
        raise Reject("non-zero padding after the symbols")
    bits >>= pad
    symbols = [(bits >> (3 * (count - 1 - i))) & 7 for i in range(count)]
    nxt = [0]

    def content(depth, level, lo, hi):
        """The part at the top of, or inside, a node at `level`; lo, hi: the range bounds set by Inner ancestors
        (None = open). Node boundaries are implied: a child node is ("B", content one level down)."""
        if depth > MAX_DEPTH:
            raise Reject("nested too deep")
        if nxt[0] >= count:
            raise Reject("ran out of symbols")
        sym = symbols[nxt[0]]
        nxt[0] += 1
        if sym == SYM_PRUNED:
            return ("P", r.hash())
        if sym >= 3:
            cp = common_prefix(lo, hi)
            n = sym - 2 if sym < SYM_INNER_LONG else r.varint() + 5
            if cp + n > MAX_KEY:
                raise Reject("separator over %d bytes" % MAX_KEY)
            sep = (lo[:cp] if cp else b"") + r.take(n)
            left = content(depth + 1, level, lo, sep)
            right = content(depth + 1, level, sep, hi)
            return ("I", sep, left, right)
        if level >= 1:
            if sym != SYM_ITEM:
                raise Reject("entry inside an index node")
            return ("B", content(depth + 1, level - 1, lo, hi))
        owner, key, vhash = 0, None, None
        if sym == SYM_ENTRY:
            x = r.varint(1 << 20)
            if x == 0:
                # hashed form: lp(key) ‖ valueRef (u8 00, or u8 01 ‖ valueHash[32])
                owner = -1
                key = r.lp(MAX_KEY)
                if not key:
                    raise Reject("empty key")
                ref = r.u8()
                if ref == 1:
                    vhash = r.hash()
                elif ref != 0:
                    raise Reject("valueRef byte %02x is neither 00 nor 01" % ref)
            else:
                owner = x
        return ("L", owner, key, vhash, r.varint())

    root = ("B", content(1, level_plus_one - 1, None, None))
    if nxt[0] != count:
        raise Reject("symbols left over")
    return (level_plus_one - 1, root)


def evaluate(proof, claims):
    """§9.3. claims: list of (key, value or None). Returns (root, resolved) where resolved[i] is an entry tuple
    (key, value, version) or None."""
    if not claims:
        raise Reject("no claims")
    order = sorted(range(len(claims)), key=lambda i: claims[i][0])
    for a, b in zip(order, order[1:]):
        if claims[a][0] == claims[b][0]:
            raise Reject("duplicate claim")
    resolved = [None] * len(claims)
    root_level, root = proof
    if root is None:
        if any(v is not None for _, v in claims):
            raise Reject("empty tree, but a value is claimed")
        return ZERO, resolved
    if root[0] != "B":
        raise Reject("proof root is not a node")

    def E(p, level, slot, C):
        if p[0] == "P":
            if C:
                raise Reject("pruned subtree on a claimed key's path")
            return p[1]
        if not C:
            raise Reject("expanded subtree that no claim reaches")
        if slot:
            if p[0] != "B":
                raise Reject("expected a node boundary")
            if p[1][0] == "P":
                raise Reject("node with pruned content")
            return H(b"\x02", bytes([level]), E(p[1], level, False, C))
        if p[0] == "I":
            sep = p[1]
            left = [i for i in C if claims[i][0] < sep]
            right = [i for i in C if claims[i][0] >= sep]
            return H(b"\x01", enc_varint(len(sep)), sep, E(p[2], level, False, left), E(p[3], level, False, right))
        if p[0] == "B":
            if level == 0:
                raise Reject("node boundary inside a leaf")
            return E(p, level - 1, True, C)
        if level != 0:
            raise Reject("entry inside an index node")
        return leaf_hash(p, C)

    def leaf_hash(p, C):
        _, owner, key, vhash, version = p
        if owner >= 0:
            if owner >= len(C):
                raise Reject("claimed-form owner out of range")
            for j, i in enumerate(C):
                if j != owner and claims[i][1] is not None:
                    raise Reject("a claimed value for a key that is not in the tree")
            ck, cv = claims[C[owner]]
            if len(ck) < 1 or len(ck) > MAX_KEY or (cv is not None and len(cv) > MAX_VALUE):
                raise Reject("claim outside entry limits")
            entry = (ck, cv, version)
            resolved[C[owner]] = entry
            return entry_hash(*entry)  # the claimed value is hashed here
        for i in C:
            if claims[i][0] == key:
                raise Reject("hashed-form entry for a claimed key")
            if claims[i][1] is not None:
                raise Reject("a claimed value for a key that is not in the tree")
        return entry_hash_by_value_hash(key, vhash, version)

    return E(root, root_level, True, order), resolved


# ---------------------------------------------------------------- §10 keys proof

def decode_keys_proof(r):
    """§10.1. The anchor is ("tail", tail) for form 00 and ("older", bodyHash, path, digestLowerRoot,
    digestBodyHash) for form 01."""
    if r.u8() != 1:
        raise Reject("not a keys proof")
    block_no = r.varint()
    form = r.u8()
    if form == 0:
        anchor = ("tail", r.hash())
    elif form == 1:
        body_hash = r.hash()
        path = [r.hash() for _ in range(r.varint(64))]
        anchor = ("older", body_hash, path, r.hash(), r.hash())
    else:
        raise Reject("unknown anchor form %d" % form)
    lower = decode_lower(r)
    return dict(blockNo=block_no, anchor=anchor, lower=lower)


def verify_keys(kp, digest, claims):
    """§10.2. Returns (resolved, info)."""
    d, root = digest
    if kp["blockNo"] > d:
        raise Reject("proof is for a block after the digest")
    lower_root, resolved = evaluate(kp["lower"], claims)
    info = {"lowerRoot": lower_root}
    anchor = kp["anchor"]
    if anchor[0] == "tail":
        if kp["blockNo"] != d:
            raise Reject("form 00 anchors only a proof at the digest's block")
        computed = digest_root(d, lower_root, anchor[1])
    else:
        _, body_hash, path, digest_lower, digest_body = anchor
        if kp["blockNo"] == d:
            raise Reject("form 01 at the digest's own block")
        bh = block_hash(kp["blockNo"], lower_root, body_hash)
        upper = root_from_inclusion(kp["blockNo"], d, bh, path)
        computed = digest_root(d, digest_lower, digest_tail(upper, digest_body))
        info.update(blockHash=bh, upperRoot=upper)
    if computed != root:
        raise Reject("keys proof does not lead to the trusted digest")
    return resolved, info


def keys_proof(hexproof):
    r = Reader(bytes.fromhex(hexproof))
    kp = decode_keys_proof(r)
    r.end()
    return kp


def check_current_value(inp):
    kp = keys_proof(inp["proof"])
    digest = parse_digest(inp["digest"])
    if kp["blockNo"] != digest[0]:
        raise Reject("current-value proof is not at the digest's block")
    resolved, info = verify_keys(kp, digest, [(unhex(inp["key"]), present(inp["value"]))])
    if resolved[0] is None:
        raise Reject("claimed key is not in the tree")
    return info


def check_non_existence(inp):
    kp = keys_proof(inp["proof"])
    digest = parse_digest(inp["digest"])
    if kp["blockNo"] != digest[0]:
        raise Reject("non-existence proof is not at the digest's block")
    return verify_keys(kp, digest, [(unhex(inp["key"]), None)])[1]


def check_inclusion(inp):
    kp = keys_proof(inp["proof"])
    if kp["blockNo"] != inp["blockNo"]:
        raise Reject("proof is for another block")
    resolved, info = verify_keys(kp, parse_digest(inp["digest"]), [(unhex(inp["key"]), present(inp["value"]))])
    if resolved[0] is None:
        raise Reject("claimed key is not in the tree")
    return info


def check_batch(inp):
    kp = keys_proof(inp["proof"])
    if kp["blockNo"] != inp["blockNo"]:
        raise Reject("proof is for another block")
    claims = [(unhex(c["key"]), unhex(c["value"])) for c in inp["claims"]]
    return verify_keys(kp, parse_digest(inp["digest"]), claims)[1]


# ---------------------------------------------------------------- §11 append-only proof

def check_append_only(inp):
    """§11"""
    r = Reader(bytes.fromhex(inp["proof"]))
    if r.u8() != 2:
        raise Reject("not an append-only proof")
    b1, b2 = r.varint(), r.varint()
    upper1, lower1, body1, lower2, body2 = r.hash(), r.hash(), r.hash(), r.hash(), r.hash()
    cons = [r.hash() for _ in range(r.varint(128))]
    incl = [r.hash() for _ in range(r.varint(128))]
    r.end()
    (d1, root1), (d2, root2) = parse_digest(inp["older"]), parse_digest(inp["newer"])
    if d1 != b1 or d2 != b2:
        raise Reject("proof is for other blocks than the digests")
    if b1 >= b2:
        raise Reject("append-only proof needs b1 < b2")
    if digest_root(b1, lower1, digest_tail(upper1, body1)) != root1:
        raise Reject("proof does not match the older digest")
    upper2 = root_from_inclusion(b1, b2, block_hash(b1, lower1, body1), incl)
    if b1 == 0:
        if cons or upper1 != ZERO:
            raise Reject("from block 0 there is no consistency proof and the first upper root is ZERO")
    elif root_from_consistency(b1, b2, upper1, cons) != upper2:
        raise Reject("consistency and inclusion disagree")
    if digest_root(b2, lower2, digest_tail(upper2, body2)) != root2:
        raise Reject("proof does not match the newer digest")
    return {"upperRoot1": upper1, "upperRoot2": upper2}


# ---------------------------------------------------------------- §12 history proof

def expected_older(nversions, limit):
    """§12: the number of older proofs a history of nversions versions needs under limit; one more than the
    versions after the newest when the history is shorter than its limit (that proof shows nothing precedes it)."""
    if nversions == 0:
        return 0
    return nversions - 1 + (1 if nversions < limit else 0)


def check_history(inp):
    """§12: a head keys proof at the digest's block, then one keys proof per older version, each at the block
    before its successor was written, all against the same digest."""
    r = Reader(bytes.fromhex(inp["proof"]))
    if r.u8() != 3:
        raise Reject("not a history proof")
    head = decode_keys_proof(r)
    older = [decode_keys_proof(r) for _ in range(r.varint(65536))]
    r.end()
    digest = parse_digest(inp["digest"])
    key, limit = unhex(inp["key"]), inp["limit"]
    versions = [(unhex(v["value"]), v["blockNo"]) for v in inp["versions"]]
    # step 1
    if limit < 1:
        raise Reject("limit must be positive")
    if head["blockNo"] != digest[0]:
        raise Reject("history must start at the digest's block")
    if len(versions) > limit:
        raise Reject("more versions than the limit")
    # step 2
    if not versions:
        if older:
            raise Reject("older-version proofs for a history of no versions")
        resolved, _ = verify_keys(head, digest, [(key, None)])
        if resolved[0] is not None:
            raise Reject("key has history but none was claimed")
        return {}
    # step 3
    if len(older) != expected_older(len(versions), limit):
        raise Reject("older-proof count does not match the versions and the limit")
    # step 4
    resolved, _ = verify_keys(head, digest, [(key, versions[0][0])])
    e = resolved[0]
    if e is None:
        raise Reject("key is not in the tree")
    if e[2] != versions[0][1]:
        raise Reject("wrong version number")
    # step 5
    for i in range(1, len(older) + 1):
        p = older[i - 1]
        if p["blockNo"] != e[2] - 1:
            raise Reject("older version not proven at the block before its successor was written")
        if i == len(versions):
            # 5.2 and 5.5: the last proof of a history shorter than its limit
            resolved, _ = verify_keys(p, digest, [(key, None)])
            if resolved[0] is not None:
                raise Reject("history stops early although an older version exists")
            return {}
        resolved, _ = verify_keys(p, digest, [(key, versions[i][0])])
        found = resolved[0]
        if found is None:
            raise Reject("no older version: the key had no entry before its successor was written")
        if found[2] >= e[2]:
            raise Reject("versions must go strictly back in time")
        e = found
        if e[2] != versions[i][1]:
            raise Reject("wrong version number")
    return {}


# ---------------------------------------------------------------- §14.2, §16 Ed25519 (RFC 8032, strict)

ED_P = 2 ** 255 - 19
ED_L = 2 ** 252 + 27742317777372353535851937790883648493
ED_D = -121665 * pow(121666, ED_P - 2, ED_P) % ED_P
ED_I = pow(2, (ED_P - 1) // 4, ED_P)  # a square root of -1


def ed_add(P, Q):
    """Twisted Edwards addition (a = -1) in extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z."""
    x1, y1, z1, t1 = P
    x2, y2, z2, t2 = Q
    a = (y1 - x1) * (y2 - x2) % ED_P
    b = (y1 + x1) * (y2 + x2) % ED_P
    c = 2 * ED_D * t1 * t2 % ED_P
    d = 2 * z1 * z2 % ED_P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % ED_P, g * h % ED_P, f * g % ED_P, e * h % ED_P)


ED_ZERO = (0, 1, 1, 0)


def ed_mul(k, P):
    R = ED_ZERO
    for bit in bin(k)[2:] if k > 0 else "":
        R = ed_add(R, R)
        if bit == "1":
            R = ed_add(R, P)
    return R


def ed_equal(P, Q):
    return (P[0] * Q[2] - Q[0] * P[2]) % ED_P == 0 and (P[1] * Q[2] - Q[1] * P[2]) % ED_P == 0


def ed_decode(b):
    """RFC 8032 §5.1.3, strict: y < p, a square root exists, and x = 0 only with the sign bit clear."""
    if len(b) != 32:
        raise Reject("a point is 32 bytes")
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= ED_P:
        raise Reject("non-canonical point encoding (y >= p)")
    u, v = (y * y - 1) % ED_P, (ED_D * y * y + 1) % ED_P
    x = u * pow(v, 3, ED_P) * pow(u * pow(v, 7, ED_P), (ED_P - 5) // 8, ED_P) % ED_P
    if v * x * x % ED_P == (-u) % ED_P:
        x = x * ED_I % ED_P
    if v * x * x % ED_P != u:
        raise Reject("not a curve point")
    if x == 0 and sign:
        raise Reject("x = 0 with the sign bit set")
    if x & 1 != sign:
        x = ED_P - x
    return (x, y, 1, x * y % ED_P)


ED_B = ed_decode(bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666"))


def ed_small_order(P):
    return ed_equal(ed_mul(8, P), ED_ZERO)


def ed25519_verify(public_key, msg, sig):
    """§14.2: RFC 8032 §5.1.7 with its cofactored equation [8][S]B = [8]R + [8][k]A, plus: A canonical, not of small
    order and in the prime-order subgroup; R canonical and not of small order; S < L."""
    if len(public_key) != 32 or len(sig) != 64:
        raise Reject("Ed25519 keys are 32 bytes and signatures 64")
    A = ed_decode(public_key)
    if ed_small_order(A) or not ed_equal(ed_mul(ED_L, A), ED_ZERO):
        raise Reject("public key is not a point of the prime-order subgroup")
    R = ed_decode(sig[:32])
    if ed_small_order(R):
        raise Reject("R is of small order")
    s = int.from_bytes(sig[32:], "little")
    if s >= ED_L:
        raise Reject("S >= L")
    k = int.from_bytes(hashlib.sha512(sig[:32] + public_key + msg).digest(), "little") % ED_L
    if not ed_equal(ed_mul(8, ed_mul(s, ED_B)), ed_mul(8, ed_add(R, ed_mul(k, A)))):
        raise Reject("Ed25519 signature does not verify")


def check_signed_head(inp):
    """§16"""
    d, root = parse_digest(inp["digest"])
    msg = b"GLHEAD1" + inp["shard"].to_bytes(4, "big") + enc_u64(d) + root + enc_u64(inp["timestamp"])
    ed25519_verify(unhex(inp["serverKey"]), msg, unhex(inp["signature"]))
    return {}


def decode_transaction(enc):
    """§14.1, strict. Returns (txId, client key, signed form). The signed form (§14.2) is the encoding byte for byte,
    except that each put's lp(value), after its op byte 00, is replaced by the value hash H(03 ‖ value) (§3)."""
    r = Reader(enc)
    if r.u8() != 1:
        raise Reject("unknown transaction encoding version")
    tx_id = r.take(16)
    client = r.take(32)
    shard = r.varint(2 ** 31 - 1)
    n = r.varint(1024)
    parts = [r.varint(2 ** 31 - 1) for _ in range(n)]
    if n < 1 or len(set(parts)) != n or shard not in parts:
        raise Reject("participants must be 1..1024 distinct shards including the shard")
    signed = bytearray()
    copied = 0  # enc[:copied] is already in the signed form
    ops = 0
    for kind in ("reads", "writes"):
        count = r.varint(65536)
        ops += count
        last = None
        for _ in range(count):
            key = r.lp(MAX_KEY)
            if not key or (last is not None and key <= last):
                raise Reject("%s must have 1..1024-byte keys in strictly increasing order" % kind)
            last = key
            if kind == "reads":
                r.varint()
            else:
                op = r.u8()
                if op == 0:
                    signed += enc[copied:r.pos]  # everything up to and including the put's op byte 00
                    signed += value_hash(r.lp(MAX_VALUE))  # lp(value) becomes H(03 ‖ value)
                    copied = r.pos
                elif op != 1:
                    raise Reject("unknown write operation")
    if ops > 65536:
        raise Reject("more than 65536 operations")
    r.end()
    signed += enc[copied:]
    return tx_id, client, bytes(signed)


def decode_signed_record(record):
    """§14.2: record = varint len(encoding) ‖ encoding ‖ signature[64], nothing after the signature.
    Returns (encoding, signature)."""
    r = Reader(record)
    enc = r.take(r.varint(64 << 20))
    sig = r.take(64)
    r.end()
    return enc, sig


def verify_signed_record(record):
    """§14.1, §14.2: decode strictly and verify the signature over "GLTX" ‖ signedForm.
    Returns (txId, signed form, signature)."""
    enc, sig = decode_signed_record(record)
    tx_id, client, signed = decode_transaction(enc)
    ed25519_verify(client, b"GLTX" + signed, sig)
    return tx_id, signed, sig


def check_signed_transaction(inp):
    """§14.2"""
    verify_signed_record(unhex(inp["record"]))
    return {}


def txs_hash(signed_forms_and_signatures):
    """§14.3: block meta "txs" = H(40 ‖ varint n ‖ n × lp(hashed record)), hashed record = lp(signedForm) ‖
    signature[64], in commit order."""
    hashed = [lp(lp(signed) + sig) for signed, sig in signed_forms_and_signatures]
    return H(b"\x40", enc_varint(len(hashed)), *hashed)


# ---------------------------------------------------------------- vector harness

def unhex(s):
    return None if s is None else bytes.fromhex(s)


def present(s):
    if s is None:
        raise Reject("a value claim needs a value")
    return bytes.fromhex(s)


def parse_digest(d):
    return (d["blockNo"], bytes.fromhex(d["root"]))


VERIFIERS = {
    "verifyCurrentValue": check_current_value,
    "verifyNonExistence": check_non_existence,
    "verifyInclusion": check_inclusion,
    "verifyBatch": check_batch,
    "verifyHistory": check_history,
    "verifyAppendOnly": check_append_only,
    "verifySignedHead": check_signed_head,
    "verifySignedTransaction": check_signed_transaction,
}

FLIP = re.compile(r"modified-proof\[(\d+)\]-bit-@(\d)$")


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL " + what)


def run_proof_file(data, fname, t, exhaustive):
    check = VERIFIERS[data["verifier"]]
    for v in data["vectors"]:
        name = "%s %s" % (fname, v["name"])
        try:
            info = check(v["input"])
            bad = [k for k, want in v.get("expect", {}).items() if info.get(k, b"").hex() != want]
            t.check(not bad, name + ": valid proof verified but computed " + ",".join(bad) + " differ")
        except Reject as e:
            t.check(False, name + ": valid proof rejected: " + str(e))
        if exhaustive:
            flip_every_bit(check, v["input"], name, t, SIGNED_FIELD.get(data["verifier"], "proof"))
        for m in v["invalid"]:
            merged = dict(v["input"])
            merged.update(m["input"])
            what = "%s / %s" % (name, m["name"])
            fm = FLIP.match(m["name"])
            if fm:
                a = bytearray.fromhex(v["input"]["proof"])
                a[int(fm.group(1))] ^= 1 << int(fm.group(2))
                t.check(bytes(a).hex() == merged["proof"], what + ": does not flip the bit it names")
            try:
                check(merged)
                t.check(False, what + ": tampered input accepted")
            except Reject:
                t.check(True, what)


SIGNED_FIELD = {"verifySignedHead": "signature", "verifySignedTransaction": "record"}


def flip_every_bit(check, valid, name, t, field="proof"):
    """--exhaustive: every single-bit change of a valid proof (or signature, or transaction record) must be
    rejected."""
    proof = bytes.fromhex(valid[field])
    for i in range(len(proof)):
        for bit in range(8):
            p = bytearray(proof)
            p[i] ^= 1 << bit
            inp = dict(valid)
            inp[field] = p.hex()
            try:
                check(inp)
                t.check(False, "%s: proof with bit %d of byte %d flipped accepted" % (name, bit, i))
            except Reject:
                t.check(True, "")


def run_entry_hash(data, t):
    for v in data["vectors"]:
        e = (unhex(v["key"]), unhex(v["value"]), v["version"])
        t.check(entry_encoding(*e).hex() == v["encoding"], "entry-hash %s: encoding" % v["name"])
        t.check(entry_hash(*e).hex() == v["hash"], "entry-hash %s: hash" % v["name"])
        vh = value_hash(e[1])
        t.check((None if vh is None else vh.hex()) == v["valueHash"], "entry-hash %s: value hash" % v["name"])
        t.check(hashed_form(e[0], vh, e[2]).hex() == v["hashedForm"], "entry-hash %s: hashed form" % v["name"])
        r = Reader(bytes.fromhex(v["encoding"]))
        t.check(read_entry(r) == e and r.remaining() == 0, "entry-hash %s: decode" % v["name"])


def run_primitives(data, t):
    tags = {"entry": "00", "inner": "01", "node": "02", "value": "03", "keyCut": "04", "block": "10", "body": "11",
            "digest": "20", "digestTail": "21", "upperInner": "31"}
    t.check(data["tags"] == tags, "primitives: domain tags")
    for v in data["varint"]:
        t.check(enc_varint(v["value"]).hex() == v["encoding"], "primitives: varint %d" % v["value"])
        r = Reader(bytes.fromhex(v["encoding"]))
        t.check(r.varint() == v["value"] and r.remaining() == 0, "primitives: varint decode %d" % v["value"])
    for v in data["varintInvalid"]:
        try:
            Reader(bytes.fromhex(v["encoding"])).varint()
            t.check(False, "primitives: invalid varint %s accepted" % v["encoding"])
        except Reject:
            t.check(True, "")
    for v in data["u64"]:
        t.check(enc_u64(v["value"]).hex() == v["encoding"], "primitives: u64 %d" % v["value"])
    for v in data["ordering"]:
        a, b = bytes.fromhex(v["a"]), bytes.fromhex(v["b"])
        t.check((a > b) - (a < b) == v["cmp"], "primitives: ordering %s %s" % (v["a"], v["b"]))
    for v in data["separators"]:
        s = shortest_separator(bytes.fromhex(v["left"]), bytes.fromhex(v["right"]))
        t.check(s.hex() == v["separator"], "primitives: separator %s %s" % (v["left"], v["right"]))
    for v in data["keyCuts"]:
        t.check("%016x" % key_cut(bytes.fromhex(v["key"])) == v["cut"], "primitives: key cut %s" % v["key"])
    for v in data["treeParams"]:
        p = tree_params(v)
        t.check(encode_params(p).hex() == v["encoding"] and decode_params(bytes.fromhex(v["encoding"])) == p,
                "primitives: tree params " + v["name"])
    for v in data["treeParamsInvalid"]:
        try:
            decode_params(bytes.fromhex(v["encoding"]))
            t.check(False, "primitives: invalid tree params %s accepted" % v["name"])
        except Reject:
            t.check(True, "")
    for v in data["countSplits"]:
        got = []
        all_splits(count_split, 0, v["items"], got)
        t.check(got == v["splits"], "primitives: count splits of %d items" % v["items"])
    for v in data["indexSplits"]:
        got = []
        all_splits(lambda lo, hi: weighted_split(v["counts"], lo, hi), 0, len(v["counts"]), got)
        t.check(got == v["splits"], "primitives: index splits " + v["name"])
    for v in data["lowerProofLimits"]:
        try:
            VERIFIERS[v["verifier"]](v["input"])
            t.check(v["valid"], "primitives: lower-proof limit %s accepted" % v["name"])
        except Reject as e:
            t.check(not v["valid"], "primitives: lower-proof limit %s rejected: %s" % (v["name"], e))
    h = data["hashes"]
    x = lambda s: bytes.fromhex(s)
    i = h["inner"]
    t.check(H(b"\x01", enc_varint(len(x(i["sep"]))), x(i["sep"]), x(i["left"]), x(i["right"])).hex() == i["hash"],
            "primitives: inner hash")
    t.check(H(b"\x03", x(h["value"]["value"])).hex() == h["value"]["hash"], "primitives: value hash")
    n = h["node"]
    t.check(H(b"\x02", bytes([n["level"]]), x(n["itemsRoot"])).hex() == n["hash"], "primitives: node hash")
    b = h["block"]
    t.check(block_hash(b["blockNo"], x(b["lowerRoot"]), x(b["bodyHash"])).hex() == b["hash"], "primitives: block")
    t.check(H(b"\x11", x(h["body"]["body"])).hex() == h["body"]["hash"], "primitives: body hash")
    d = h["digest"]
    t.check(digest_root(d["blockNo"], x(d["lowerRoot"]), x(d["tail"])).hex() == d["hash"], "primitives: digest")
    d = h["digestTail"]
    t.check(digest_tail(x(d["upperRoot"]), x(d["bodyHash"])).hex() == d["hash"], "primitives: digest tail")
    u = h["upperInner"]
    t.check(upper_inner(x(u["left"]), x(u["right"])).hex() == u["hash"], "primitives: upper inner")


def tree_params(p):
    """§5.1: (leafTargetKeys, leafMaxKeys, indexTargetFanout, indexMaxFanout) from a vector's params object."""
    return (p["leafTargetKeys"], p["leafMaxKeys"], p["indexTargetFanout"], p["indexMaxFanout"])


def all_splits(split, lo, hi, out):
    """The split points [lo, hi, m] of a routing tree over items lo..hi-1, in preorder."""
    if hi - lo >= 2:
        m = split(lo, hi)
        out.append([lo, hi, m])
        all_splits(split, lo, m, out)
        all_splits(split, m, hi, out)


def run_tree_build(data, t, lower_roots):
    for v in data["vectors"]:
        name = "tree-build " + v["name"]
        p = v["params"]
        params = tree_params(p)
        t.check(encode_params(params).hex() == p["encoding"], name + ": params encoding")
        entries = [(unhex(e["key"]), unhex(e["value"]), e["version"]) for e in v["entries"]]
        root, levels, rules = build_tree(entries, params)
        t.check(root.hex() == v["root"], name + ": root")
        t.check([len(l) for l in levels] == v["nodesPerLevel"], name + ": nodes per level")
        t.check(sorted(rules) == v["boundaryRules"], name + ": boundary rules %s" % sorted(rules))
        if "nodes" in v:
            flat = [n for level in levels for n in level]
            want = [(n["level"], n["hash"], n["encoding"]) for n in v["nodes"]]
            got = [(n.level, n.hash.hex(), n.encoding().hex()) for n in flat]
            t.check(got == want, name + ": node-by-node")
            for n in v["nodes"]:
                t.check(decode_node(bytes.fromhex(n["encoding"])).hex() == n["hash"],
                        name + ": a node's hash from its storage encoding")
        if "lowerRootOf" in v:
            o = v["lowerRootOf"]
            t.check(lower_roots.get((o["ledger"], o["blockNo"])) == v["root"], name + ": equals the ledger's lower root")
    for v in data.get("invalidNodes", []):
        try:
            decode_node(bytes.fromhex(v["encoding"]))
            t.check(False, "tree-build invalid node %s accepted" % v["name"])
        except Reject:
            t.check(True, "")


def run_ledger(data, t):
    lower_roots = {}
    for l in data["vectors"]:
        hashes = []
        p = l["params"]
        params = tree_params(p)
        prev_ts = None
        for b in l["blocks"]:
            name = "ledger %s block %d" % (l["name"], b["number"])
            t.check(b["number"] == len(hashes), name + ": numbering")
            meta = [(m["key"].encode("utf-8"), bytes.fromhex(m["value"])) for m in b["meta"]]
            body = block_body(b["timestamp"], [bytes.fromhex(x) for x in b["txIds"]], meta)
            lower = bytes.fromhex(b["lowerRoot"])
            t.check((lower + body).hex() == b["record"], name + ": record")
            decoded = decode_record(bytes.fromhex(b["record"]))
            t.check(decoded == (lower, b["timestamp"], [bytes.fromhex(x) for x in b["txIds"]], meta),
                    name + ": record decodes")
            bh = H(b"\x11", body)
            t.check(bh.hex() == b["bodyHash"], name + ": body hash")
            blk = block_hash(b["number"], lower, bh)
            t.check(blk.hex() == b["blockHash"], name + ": block hash")
            upper = mth(hashes)
            t.check(upper.hex() == b["upperRoot"], name + ": upper root")
            t.check(digest_root(b["number"], lower, digest_tail(upper, bh)).hex() == b["digest"], name + ": digest")
            t.check(prev_ts is None or b["timestamp"] >= prev_ts, name + ": timestamp order")
            if b["number"] == 0:
                md = dict(meta)
                ok = lower == ZERO and not b["txIds"] and genesis_params(meta) == params
                t.check(ok, name + ": genesis")
            prev_ts = b["timestamp"]
            hashes.append(blk)
            lower_roots[(l["name"], b["number"])] = b["lowerRoot"]
    for v in data.get("invalidRecords", []):
        try:
            decode_record(bytes.fromhex(v["record"]))
            t.check(False, "ledger invalid record %s accepted" % v["name"])
        except Reject:
            t.check(True, "")
    for v in data.get("invalidGenesis", []):
        try:
            genesis_params(decode_record(bytes.fromhex(v["record"]))[3])
            t.check(False, "ledger invalid genesis %s accepted" % v["name"])
        except Reject:
            t.check(True, "")
    return lower_roots


def run_ledger_transactions(tx, t, exhaustive):
    """ledger.json "transactions" (§14): signed records, their signed forms, a block's txs meta and its record."""
    pairs, ids = [], []
    for i, rec in enumerate(tx["records"]):
        name = "ledger transactions record %d" % i
        try:
            tx_id, signed, sig = verify_signed_record(bytes.fromhex(rec))  # decodes strictly, verifies (§14.2)
            t.check(True, "")
        except Reject as e:
            t.check(False, name + ": rejected: " + str(e))
            continue
        t.check(signed.hex() == tx["signedForms"][i], name + ": signed form differs")
        pairs.append((signed, sig))
        ids.append(tx_id)
        if exhaustive:
            flip_every_bit(check_signed_transaction, {"record": rec}, name, t, "record")
    t.check(len(tx["records"]) == len(tx["signedForms"]), "ledger transactions: one signed form per record")
    txs = txs_hash(pairs)
    t.check(txs.hex() == tx["txs"], "ledger transactions: txs (§14.3) differs")
    _, _, tx_ids, meta = decode_record(bytes.fromhex(tx["blockRecord"]))
    t.check(meta == [(b"txs", txs)], "ledger transactions: the block's meta is not exactly txs = the computed hash")
    t.check(tx_ids == ids, "ledger transactions: the block's transaction ids are not the records' in order (§14.3)")


def main(argv):
    args = [a for a in argv[1:] if a != "--exhaustive"]
    exhaustive = len(args) != len(argv) - 1
    if len(args) != 1:
        print("usage: verify_vectors.py [--exhaustive] VECTOR_DIR", file=sys.stderr)
        return 2
    directory = args[0]
    t = Tally()
    files = sorted(f for f in os.listdir(directory) if f.endswith(".json"))
    loaded = {}
    for f in files:
        with open(os.path.join(directory, f), encoding="utf-8") as fh:
            loaded[f] = json.load(fh)
    lower_roots = {}
    if "ledger.json" in loaded:
        try:
            lower_roots = run_ledger(loaded["ledger.json"], t)
            run_ledger_transactions(loaded["ledger.json"]["transactions"], t, exhaustive)  # required since glassledger/4
        except (Reject, KeyError, ValueError) as e:
            t.check(False, "ledger.json: %s: %s" % (type(e).__name__, e))
    for f in files:
        data = loaded[f]
        try:
            if "verifier" in data:
                run_proof_file(data, f, t, exhaustive)
            elif f == "entry-hash.json":
                run_entry_hash(data, t)
            elif f == "primitives.json":
                run_primitives(data, t)
            elif f == "tree-build.json":
                run_tree_build(data, t, lower_roots)
            elif f != "ledger.json":
                t.check(False, f + ": unknown vector file")
        except (Reject, KeyError, ValueError) as e:
            t.check(False, "%s: %s: %s" % (f, type(e).__name__, e))
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 0 if t.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
