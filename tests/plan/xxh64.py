"""XXH64 (seed 0) written from the xxHash specification (doc/xxhash_spec.md), apart from
the C library the tools use: the tests check a plan's seat text with it."""
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
M = (1 << 64) - 1


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def _round(acc, lane):
    return (_rotl((acc + lane * P2) & M, 31) * P1) & M


def _merge(acc, v):
    return ((acc ^ _round(0, v)) * P1 + P4) & M


def xxh64(data, seed=0):
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 32 <= n:
            for j in range(4):
                v[j] = _round(v[j], int.from_bytes(data[i + 8 * j:i + 8 * j + 8], "little"))
            i += 32
        acc = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M
        for x in v:
            acc = _merge(acc, x)
    else:
        acc = (seed + P5) & M
    acc = (acc + n) & M
    while i + 8 <= n:
        acc = ((_rotl(acc ^ _round(0, int.from_bytes(data[i:i + 8], "little")), 27) * P1) + P4) & M
        i += 8
    if i + 4 <= n:
        acc = ((_rotl(acc ^ (int.from_bytes(data[i:i + 4], "little") * P1 & M), 23) * P2) + P3) & M
        i += 4
    while i < n:
        acc = (_rotl(acc ^ (data[i] * P5 & M), 11) * P1) & M
        i += 1
    acc ^= acc >> 33
    acc = (acc * P2) & M
    acc ^= acc >> 29
    acc = (acc * P3) & M
    acc ^= acc >> 32
    return acc


def seat_text(n, assign):
    """A plan's seat text as shardcc writes it: the header with the check, then the lines sorted."""
    body = "".join("%s\t%d\n" % (k, v) for k, v in sorted(assign.items()))
    return "shardcc-plan\t%d\t%016x\n%s" % (n, xxh64(body.encode()), body)


if __name__ == "__main__":
    # the specification's vectors
    assert xxh64(b"") == 0xEF46DB3751D8E999, hex(xxh64(b""))
    assert xxh64(b"a") == 0xD24EC4F1A98C6E5B, hex(xxh64(b"a"))
    assert xxh64(b"abc") == 0x44BC2CF5AD770999, hex(xxh64(b"abc"))
    print("ok")
