// Package cycle runs an amg.Hierarchy on a backend.Backend: the V-cycle with a
// registered Smoother (Chebyshev or damped block Jacobi), restriction by Pᵀ, prolongation by P and a coarse
// solve, a backend.Preconditioner for backend.PCG; and, on a backend.Resetter, the
// numeric set-up itself (UploadResident, Cycle.Update). Written once against the
// backend's primitives, the same code runs on the CPU backend and, with every vector
// and operator resident on the GPU, on the CUDA backend: AMGCL's separation of solver
// and backend. Backends that offer the optional fused kernels (backend.ChebStepper,
// backend.Lanczoser) get them; the others run the same steps unfused. With a
// ChebStepper a Chebyshev step writes its new iterate to a second vector, so the
// smoother alternates between a level's x and its scratch t, arranged to end in x.
// On a backend.Marker, Update times its phases with device marks instead of waiting
// for the device after each.
//
// # Two ways to put a hierarchy on a backend
//
// Upload copies each level's operator, prolongator (with its transpose, built once so
// that restriction is a gather without atomics) and inverted diagonal blocks, as the
// host computed them. UploadResident copies only the fine operator, the tentative
// prolongators and the patterns; the backend computes every other value, and Update
// recomputes them for new fine values (a Newton or time step) with no operator
// crossing the bus: block-diagonal inverses, CG–Lanczos λ estimates (backend.CGLanczos, krylov's
// iteration and start vector), P smoothing on its fixed pattern, filtering, the Pᵀ
// refresh, the Galerkin products; the coarsest operator comes to the host to be
// factored.
//
// # What crosses the host–device boundary
//
// During a solve only the scalars of the inner products travel when the coarsest
// level is small enough to be solved by its dense inverse on the backend (up to 2048
// unknowns); otherwise its right-hand side and solution go to the host's Cholesky
// factor once per cycle. A resident Update moves the CG–Lanczos scalars, the coarsest
// operator and its inverse. The backend's Counters record this per phase.
//
// # One cycle for every backend
//
// This is the only V-cycle of blockamg: the CPU solve runs it on backend/cpu, whose
// kernels keep the host set-up's arithmetic, and a GPU solve on backend/cuda.
// Repeated runs on one backend are bitwise identical because every backend primitive
// is; the CPU and the GPU agree to rounding (different summation order on the device).
package cycle
