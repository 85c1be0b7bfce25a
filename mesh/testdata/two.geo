// Two unit cubes side by side, [0,1] x [0,1]^2 and [1,2] x [0,1]^2, sharing the face
// x = 1 (fragmented so that their meshes are conforming): two physical volumes.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Box(2) = {1, 0, 0, 1, 1, 1};
BooleanFragments{ Volume{1, 2}; Delete; }{}
MeshSize{ PointsOf{ Volume{1, 2}; } } = 0.4;
eps = 1e-6;
Physical Volume("steel") = Volume In BoundingBox{-eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Physical Volume("rubber") = Volume In BoundingBox{1 - eps, -eps, -eps, 2 + eps, 1 + eps, 1 + eps};
Physical Surface("fixed") = Surface In BoundingBox{-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
Physical Surface("load") = Surface In BoundingBox{2 - eps, -eps, -eps, 2 + eps, 1 + eps, 1 + eps};
