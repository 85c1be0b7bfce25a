// Bar with a stiff insert (lengths in mm): a 100 x 20 x 20 bar of "matrix" material with a
// cylindrical "insert" (radius 5, from x = 20 to x = 80) embedded along its axis. The two volumes
// share the insert's surface, so the mesh is conforming across the material interface. Clamped at
// x = 0, loaded at x = 100.
//   gmsh -3 twomat.geo -setnumber h 2 -format msh41 -o twomat.msh
SetFactory("OpenCASCADE");
DefineConstant[ h = {3, Min 0.05, Max 50, Name "h (element size, mm)"} ];

L = 100; B = 20; r = 5; x0 = 20; x1 = 80;

Box(1) = {0, -B / 2, -B / 2, L, B, B};
Cylinder(2) = {x0, 0, 0, x1 - x0, 0, 0, r};
// Fragments keeps both pieces and glues them: the bar with a cylindrical cavity, and the cylinder.
v[] = BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; };

e = 1e-6;
insert[] = Volume In BoundingBox{x0 - e, -r - e, -r - e, x1 + e, r + e, r + e};
all[] = Volume{:};
matrix[] = all[];
matrix[] -= insert[];

Physical Volume("matrix", 1) = {matrix[]};
Physical Volume("insert", 2) = {insert[]};
Physical Surface("fixed", 3) = Surface In BoundingBox{-e, -B / 2 - e, -B / 2 - e, e, B / 2 + e, B / 2 + e};
Physical Surface("load", 4) = Surface In BoundingBox{L - e, -B / 2 - e, -B / 2 - e, L + e, B / 2 + e, B / 2 + e};

Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h / 4;
Mesh.CharacteristicLengthFromCurvature = 1;
Mesh.MinimumElementsPerTwoPi = 12;
