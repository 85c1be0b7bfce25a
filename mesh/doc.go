// Package mesh holds unstructured meshes of tetrahedra and hexahedra with their
// physical groups, as Gmsh writes them, for package fem to assemble.
package mesh
