// Unit cube [0,1]^3 as a structured hexahedral mesh (transfinite, recombined): Q1/Q2 elements,
// for PETSc's ex17 as cube.geo is for tetrahedra (the same "marker" group with tag 1 on all six
// faces) and for blockamg's hexahedral path. h sets the number of cells per side, round(1/h).
//   gmsh -3 hexbox.geo -setnumber h 0.125 -format msh41 -o hexbox.msh
SetFactory("OpenCASCADE");
DefineConstant[ h = {0.25, Min 0.005, Max 1, Name "h (element size)"} ];
n = Round(1 / h);

Box(1) = {0, 0, 0, 1, 1, 1};
Transfinite Curve{:} = n + 1;
Transfinite Surface{:};
Recombine Surface{:};
Transfinite Volume{1};

Physical Volume("solid", 1) = {1};
Physical Surface("marker", 1) = Surface{:};
