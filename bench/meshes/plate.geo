// Thin plate (lengths in mm): 100 x 100 x 1 with a central hole, cantilevered from its x = 0 side
// and loaded on its top face. The in-plane size h is much larger than the thickness, and the mesh
// is extruded through the thickness in nt layers, so the elements are stretched: aspect ratio
// about h / (t / nt). Tetrahedra by default; -setnumber hex 1 recombines into hexahedra.
//   gmsh -3 plate.geo -setnumber h 5 -setnumber nt 2 -format msh41 -o plate.msh
SetFactory("OpenCASCADE");
DefineConstant[
  h   = {5, Min 0.05, Max 50, Name "h (in-plane element size, mm)"}
  nt  = {2, Min 1, Max 100, Step 1, Name "nt (element layers through the thickness)"}
  hex = {0, Choices {0 = "tetrahedra", 1 = "hexahedra"}, Name "hex"}
];

A = 100; t = 1; r = 15;  // side, thickness, hole radius

Rectangle(1) = {0, 0, 0, A, A};
Disk(2) = {A / 2, A / 2, 0, r};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
If (hex)
  Recombine Surface{3};
  out[] = Extrude{0, 0, t}{ Surface{3}; Layers{nt}; Recombine; };
Else
  out[] = Extrude{0, 0, t}{ Surface{3}; Layers{nt}; };
EndIf

e = 1e-6;
Physical Volume("aluminium", 1) = {out[1]};
Physical Surface("fixed", 2) = Surface In BoundingBox{-e, -e, -e, e, A + e, t + e};
Physical Surface("load", 3) = {out[0]};

Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h / 4;
Mesh.CharacteristicLengthFromCurvature = 1;
Mesh.MinimumElementsPerTwoPi = 16;
If (hex)
  // Quadrangles from the blossom recombination, then hexahedra by extrusion.
  Mesh.RecombinationAlgorithm = 1;
EndIf
