// Unit cube of tetrahedra. make.sh meshes it twice: first order (tet4) and with
// -order 2 (tet10).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
MeshSize{ PointsOf{ Volume{1}; } } = 0.4;
eps = 1e-6;
Physical Volume("solid") = {1};
Physical Surface("fixed") = Surface In BoundingBox{-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
Physical Surface("load") = Surface In BoundingBox{1 - eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
