#!/bin/sh
# Regenerates the gmsh-made meshes in this directory from their .geo files, each in
# ASCII and binary MSH 4.1. The .msh files are committed: the tests do not need gmsh.
# Made with gmsh 4.8.4; another version may place nodes differently.
set -eu
cd "$(dirname "$0")"
GMSH=${GMSH:-gmsh}
mesh() { # geo out extra-options...
	geo=$1 out=$2
	shift 2
	"$GMSH" -3 -format msh41 "$@" -o "$out.msh" "$geo" >/dev/null
	"$GMSH" -3 -format msh41 -bin "$@" -o "$out.bin.msh" "$geo" >/dev/null
}
mesh cube.geo cube_tet4
mesh cube.geo cube_tet10 -order 2
mesh hex.geo hex8
mesh two.geo two_tet4
mesh cube.geo cube_part -part 2
