// Package mesh holds unstructured meshes of tetrahedra and hexahedra with their
// physical groups, as Gmsh writes them, for package fem to assemble.
//
// # What is read
//
// Read and ReadFile take Gmsh's MSH 4.1 format, ASCII or binary (either byte order,
// 8-byte size_t: what gmsh -format msh41 [-bin] writes). Other versions are refused
// with the way to get 4.1 (gmsh IN.msh -save -format msh41 -o OUT.msh converts a
// file; gmsh -format msh41 or Mesh.MshFileVersion = 4.1; in a .geo file meshes to
// it). The sections read are $MeshFormat, $PhysicalNames, $Entities,
// $PartitionedEntities, $Nodes and $Elements; every other one ($Periodic, $NodeData,
// $ElementData, $GhostElements, $Parametrizations, $Comments, …) is skipped to the
// line that starts with its $EndName. $Nodes, $Entities and $PartitionedEntities
// must come before $Elements, as the format orders them.
//
// Element types: tet4, tet10 and hex8 are volumes, tri3, tri6 and quad4 surfaces
// (Gmsh types 4, 11, 5, 2, 9, 3; Gmsh's node order, kept as is). Points and lines of
// any order are skipped. Any other 2D or 3D type (prisms, pyramids, 20- and 27-node
// hexahedra, …) is an error naming it and listing what is supported: leaving such
// elements out would leave holes in the body.
//
// # Groups
//
// An element's physical group is its entity's physical tag, from $Entities; names come
// from $PhysicalNames. Every volume element is kept: in group 0 (none) when its
// entity has no physical tag, in the first when it has several (with a Warning, since
// a material cannot be two). A surface element is kept only when its entity has a
// physical tag: it exists to carry a boundary condition. A surface entity in several
// groups has its elements repeated, once per group, so that each group's Elements
// rows are the whole boundary it names (a traction on "load" and a support on "fixed"
// may share a face). Mesh.Groups lists the volume groups, then the surface groups,
// each by tag: those named and those some entity has, elements or not. Point and
// curve groups are not read; each gets a Warning. In a partitioned file (gmsh -part
// N) the element blocks name partition entities, whose groups $PartitionedEntities
// gives; a partition interface inside a volume gets none (the groups it carries are
// its parent volume's), so its triangles are dropped like any ungrouped surface.
//
// # Nodes
//
// Node tags may be sparse and in any order: nodes become indices 0, 1, … in file
// order, and Mesh.NodeTag keeps the tags. Nodes that no volume element uses (a
// geometry's construction points, the nodes of skipped lines) are dropped with one
// Warning giving their count and a few tags. A surface element's nodes must be nodes
// of the volume mesh.
//
// # Errors and their locations
//
// A problem with a file's content is a *ParseError wrapping ErrMesh and a finer
// sentinel: ErrSyntax (a bad number or token, a missing $EndName, sections out of
// order), ErrTruncated (the input ends inside the mesh, or a header promises more data
// than the input holds), ErrVersion, ErrUnsupported (an element type, more than 2³¹−1
// nodes), ErrDuplicate (a node tag, a volume element tag, an entity, a group name),
// ErrUndefined (an element names an undefined node), ErrSurface (a surface node off
// the volume mesh), ErrEmpty (no volume elements); a failed read wraps the reader's
// error instead of ErrMesh. Its message locates the problem:
// "FILE:LINE: expected …, found …" in an ASCII file, "FILE: byte OFFSET: …" in a
// binary one; a problem of the whole mesh (no volume elements) names the file alone.
// Numbers in text must be decimal (Go's "1_0", "0x1p1" and "inf" are refused), finite,
// and within the range of their field. No input makes a reader panic; headers are
// checked against the input's size before anything is allocated from them.
//
// # Checks and summaries
//
// Check validates a mesh's structure (ErrInvalid, for meshes built by code) and its
// volume elements' corner Jacobians: an *ElementError wrapping ErrInverted or
// ErrDegenerate names the first bad element, its type, the corner and the Jacobian.
// Summary counts nodes, elements by type and per group, gives the bounding box and
// the scaled Jacobian of each volume type (jacobian.go says how it is measured); its
// Write prints them as small tables, for the command line's mesh subcommand.
package mesh
