// Unit cube [0,1]^3 in tetrahedra, for PETSc's ex17 (bench/petsc/ex17). ex17's elas_trig problem
// puts its Dirichlet condition on the points of label "marker" with value 1; read with
// -dm_plex_gmsh_use_regions, PETSc names labels after physical groups and gives each point the
// group's tag as value, hence a group named "marker" with tag 1 (explicit: gmsh would otherwise
// number it) over all six faces.
//   gmsh -3 cube.geo -setnumber h 0.125 -format msh41 -o cube.msh
SetFactory("OpenCASCADE");
DefineConstant[ h = {0.25, Min 0.005, Max 1, Name "h (element size)"} ];

Box(1) = {0, 0, 0, 1, 1, 1};

Physical Volume("solid", 1) = {1};
Physical Surface("marker", 1) = Surface{:};

Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h;
