// L-shaped bracket (lengths in mm): a base plate with two bolt holes through it and an upright
// flange with one bolt hole, joined by a fillet. Clamped at the base's bolt holes, loaded on the
// flange's top face.
//   gmsh -3 bracket.geo -setnumber h 4 -format msh41 -o bracket.msh
SetFactory("OpenCASCADE");
DefineConstant[ h = {6, Min 0.1, Max 50, Name "h (element size, mm)"} ];

L = 80; W = 40; T = 6;   // base: length, width, thickness
H = 50;                  // flange height above the base's bottom face
R = 4;                   // bolt hole radius
F = 5;                   // inner fillet radius

Box(1) = {0, 0, 0, L, W, T};
Box(2) = {0, 0, 0, T, W, H};
u[] = BooleanUnion{ Volume{1}; Delete; }{ Volume{2}; Delete; };
// Round the inner corner, the edge along y where the flange meets the base's top face; a sharp
// re-entrant edge would put a stress singularity there.
e = 1e-6;
inner[] = Curve In BoundingBox{T - e, -e, T - e, T + e, W + e, T + e};
f[] = Fillet{u[0]}{inner[0]}{F};

Cylinder(10) = {55, 10, -1, 0, 0, T + 2, R};
Cylinder(11) = {55, 30, -1, 0, 0, T + 2, R};
Cylinder(12) = {-1, W / 2, 35, T + 2, 0, 0, R};
part[] = BooleanDifference{ Volume{f[0]}; Delete; }{ Volume{10, 11, 12}; Delete; };

// The walls of the two base holes (cylinders around the z axis at (55,10) and (55,30)).
fixed[] = Surface In BoundingBox{55 - R - e, 10 - R - e, -e, 55 + R + e, 10 + R + e, T + e};
fixed[] += Surface In BoundingBox{55 - R - e, 30 - R - e, -e, 55 + R + e, 30 + R + e, T + e};
load[] = Surface In BoundingBox{-e, -e, H - e, T + e, W + e, H + e};

Physical Volume("steel", 1) = {part[]};
Physical Surface("fixed", 2) = {fixed[]};
Physical Surface("load", 3) = {load[]};

Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h / 4;
// Bolt holes and the fillet get at least this many elements around a full circle.
Mesh.CharacteristicLengthFromCurvature = 1;
Mesh.MinimumElementsPerTwoPi = 12;
