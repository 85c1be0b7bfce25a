#!/usr/bin/env python3
"""mshstat.py: counts in a Gmsh MSH 4.1 file (ASCII or binary), for make.sh's table.

    mshstat.py MESH.msh [--measure]

Prints one line: nodes, unknowns (3 x nodes), elements per type, and the physical groups with the
number of elements in each. --measure adds each physical group's volume or area, from the corner
nodes only (exact for straight-sided elements), as a check that a .geo selected the intended faces.
Only the standard library: the benchmark machines need no extra packages for this.
"""
import struct
import sys
from array import array

# element type -> (name, dimension, nodes per element), from the MSH 4.1 specification
TYPES = {
    1: ('line2', 1, 2), 2: ('tri3', 2, 3), 3: ('quad4', 2, 4), 4: ('tet4', 3, 4), 5: ('hex8', 3, 8),
    6: ('prism6', 3, 6), 7: ('pyr5', 3, 5), 8: ('line3', 1, 3), 9: ('tri6', 2, 6), 10: ('quad9', 2, 9),
    11: ('tet10', 3, 10), 12: ('hex27', 3, 27), 15: ('point', 0, 1), 16: ('quad8', 2, 8), 17: ('hex20', 3, 20),
}


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def line(self):
        q = self.d.index(b'\n', self.p)
        s, self.p = self.d[self.p:q], q + 1
        return s.decode().strip()

    def seek_section(self, name):
        """Moves past the next '$name' line at or after the current position."""
        tag = b'$' + name.encode() + b'\n'
        q = self.d.find(tag, self.p)
        if q < 0:
            return False
        self.p = q + len(tag)
        return True

    def take(self, fmt, n=1):
        size = struct.calcsize('<' + fmt)
        v = struct.unpack_from('<' + fmt * n, self.d, self.p)
        self.p += size * n
        return v

    def arr(self, code, n):
        a = array(code)
        a.frombytes(self.d[self.p:self.p + a.itemsize * n])
        self.p += a.itemsize * n
        if sys.byteorder != 'little':
            a.byteswap()
        return a


def read(path, measure):
    data = open(path, 'rb').read()
    r = Reader(data)
    if not r.seek_section('MeshFormat'):
        sys.exit(f'mshstat: {path}: no $MeshFormat')
    version, ftype, dsize = r.line().split()
    if not version.startswith('4.1'):
        sys.exit(f'mshstat: {path}: MSH {version}; only 4.1 is read (gmsh -format msh41)')
    binary = ftype == '1'
    if binary:
        one, = r.take('i')
        if one != 1 or dsize != '8':
            sys.exit(f'mshstat: {path}: only little-endian files with 8-byte size_t are read')

    names = {}
    if r.seek_section('PhysicalNames'):
        for _ in range(int(r.line())):
            dim, tag, name = r.line().split(maxsplit=2)
            names[(int(dim), int(tag))] = name.strip('"')

    r.p = 0
    if not r.seek_section('Entities'):
        sys.exit(f'mshstat: {path}: no $Entities')
    ent_phys = {}
    if binary:
        counts = r.take('Q', 4)
        for dim in range(4):
            for _ in range(counts[dim]):
                tag, = r.take('i')
                r.take('d', 3 if dim == 0 else 6)
                nph, = r.take('Q')
                ent_phys[(dim, tag)] = r.take('i', nph) if nph else ()
                if dim > 0:
                    nb, = r.take('Q')
                    r.take('i', nb)
    else:
        counts = list(map(int, r.line().split()))
        for dim in range(4):
            for _ in range(counts[dim]):
                f = r.line().split()
                k = 4 if dim == 0 else 7
                nph = int(f[k])
                ent_phys[(dim, int(f[0]))] = tuple(int(t) for t in f[k + 1:k + 1 + nph])

    if not r.seek_section('Nodes'):
        sys.exit(f'mshstat: {path}: no $Nodes')
    coords = {}
    if binary:
        nblocks, nnodes, _, _ = r.take('Q', 4)
        for _ in range(nblocks):
            dim, _, param = r.take('i', 3)
            n, = r.take('Q')
            tags = r.arr('Q', n)
            xyz = r.arr('d', n * (3 + (dim if param else 0)))
            if measure:
                w = 3 + (dim if param else 0)
                for i, t in enumerate(tags):
                    coords[t] = xyz[w * i:w * i + 3]
    else:
        nblocks, nnodes, _, _ = map(int, r.line().split())
        for _ in range(nblocks):
            dim, _, param, n = map(int, r.line().split())
            tags = [int(r.line()) for _ in range(n)]
            for t in tags:
                x = r.line()
                if measure:
                    coords[t] = list(map(float, x.split()[:3]))

    if not r.seek_section('Elements'):
        sys.exit(f'mshstat: {path}: no $Elements')
    per_type, per_group, size = {}, {}, {}
    if binary:
        nblocks, _, _, _ = r.take('Q', 4)
    else:
        nblocks = int(r.line().split()[0])
    for _ in range(nblocks):
        if binary:
            edim, etag, etype = r.take('i', 3)
            n, = r.take('Q')
        else:
            edim, etag, etype, n = map(int, r.line().split())
        if etype not in TYPES:
            sys.exit(f'mshstat: {path}: element type {etype} not in the table')
        name, tdim, nn = TYPES[etype]
        if binary:
            conn = r.arr('Q', n * (1 + nn))
            rows = (conn[i * (1 + nn) + 1:(i + 1) * (1 + nn)] for i in range(n)) if measure else ()
        else:
            lines = [r.line() for _ in range(n)]
            rows = ([int(t) for t in l.split()[1:]] for l in lines) if measure else ()
        per_type[name] = per_type.get(name, 0) + n
        groups = ent_phys.get((edim, etag), ())
        for g in groups:
            per_group[(edim, g)] = per_group.get((edim, g), 0) + n
        if measure and groups:
            m = sum(corner_measure(name, [coords[t] for t in row]) for row in rows)
            for g in groups:
                size[(edim, g)] = size.get((edim, g), 0.0) + m
    return nnodes, per_type, per_group, names, size


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(a[i] * b[i] for i in range(3))


def tri_area(a, b, c):
    n = cross(sub(b, a), sub(c, a))
    return 0.5 * dot(n, n) ** 0.5


def tet_vol(a, b, c, d):
    return abs(dot(sub(b, a), cross(sub(c, a), sub(d, a)))) / 6.0


def corner_measure(name, x):
    if name.startswith('tri'):
        return tri_area(x[0], x[1], x[2])
    if name.startswith('quad'):
        return tri_area(x[0], x[1], x[2]) + tri_area(x[0], x[2], x[3])
    if name.startswith('tet'):
        return tet_vol(x[0], x[1], x[2], x[3])
    if name.startswith('hex'):
        # six tetrahedra around the 0-6 diagonal; exact for parallelepipeds
        t = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
        return sum(tet_vol(*(x[i] for i in q)) for q in t)
    return 0.0


def main():
    args = [a for a in sys.argv[1:] if a != '--measure']
    if len(args) != 1:
        sys.exit('usage: mshstat.py MESH.msh [--measure]')
    nnodes, per_type, per_group, names, size = read(args[0], '--measure' in sys.argv)
    types = ' '.join(f'{k}={v}' for k, v in sorted(per_type.items()))
    groups = ' '.join(
        f'{names.get(k, k[1])}={v}' + (f'({size[k]:.6g})' if k in size else '')
        for k, v in sorted(per_group.items()))
    print(f'nodes={nnodes} unknowns={3 * nnodes} {types} groups: {groups}')


if __name__ == '__main__':
    main()
