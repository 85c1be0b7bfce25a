/*
 * gamg_bench: time PETSc GAMG on a matrix written by `blockamg gen`, so that blockamg and
 * PETSc are measured on the same operator in the same run.
 *
 *   gamg_bench -f A.petsc -coords x.petsc [-rhs b.petsc] [-reuse_scale 1.5] [PETSc options]
 *
 * Steps, each timed with wall-clock MPI_Wtime around the PETSc call only:
 *   1. first setup   KSPSetUp with the rigid-body near-null space from the coordinates
 *   2. solve         KSPSolve from x0 = 0
 *   3. reuse setup   values of A changed (scaled) on the same pattern, KSPSetUp again; with
 *                    -pc_gamg_reuse_interpolation true GAMG keeps P and redoes PtAP
 *   4. solve again
 * It prints one line of key=value pairs that bench/compare.sh parses.
 */
#include <petscksp.h>
#include <sys/resource.h>

static double PeakRSSBytes(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss * 1024.0; /* Linux reports kilobytes */
}

int main(int argc, char **argv)
{
  char        file[PETSC_MAX_PATH_LEN] = "", cfile[PETSC_MAX_PATH_LEN] = "", rfile[PETSC_MAX_PATH_LEN] = "";
  PetscBool   hasf, hasc, hasr;
  PetscReal   scale = 1.5, rnorm, bnorm;
  PetscInt    its1, its2, bs;
  PetscViewer v;
  Mat         A;
  Vec         b, x, coords;
  KSP         ksp;
  MatNullSpace nsp;
  double      t0, tsetup, tsolve, treuse, tsolve2;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", file, sizeof(file), &hasf));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-coords", cfile, sizeof(cfile), &hasc));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rfile, sizeof(rfile), &hasr));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-reuse_scale", &scale, NULL));
  PetscCheck(hasf, PETSC_COMM_WORLD, PETSC_ERR_USER, "gamg_bench: -f A.petsc is required");

  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatLoad(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatGetBlockSize(A, &bs));

  PetscCall(MatCreateVecs(A, &x, &b));
  if (hasr) {
    Vec t;
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, rfile, FILE_MODE_READ, &v));
    PetscCall(VecCreate(PETSC_COMM_WORLD, &t));
    PetscCall(VecLoad(t, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(VecCopy(t, b));
    PetscCall(VecDestroy(&t));
  } else {
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, b));
  }
  if (hasc) {
    /* Coordinates are an interleaved Vec (x0 y0 z0 x1 …) in matrix node order; laid out like x. */
    Vec t;
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, cfile, FILE_MODE_READ, &v));
    PetscCall(VecCreate(PETSC_COMM_WORLD, &t));
    PetscCall(VecLoad(t, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(VecDuplicate(x, &coords));
    PetscCall(VecCopy(t, coords));
    PetscCall(VecDestroy(&t));
    PetscCall(VecSetBlockSize(coords, bs));
    PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
    PetscCall(MatSetNearNullSpace(A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(VecDestroy(&coords));
  }

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecNorm(b, NORM_2, &bnorm));

  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(KSPSetUp(ksp));
  tsetup = MPI_Wtime() - t0;
  PetscCall(VecSet(x, 0.0));
  t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  tsolve = MPI_Wtime() - t0;
  PetscCall(KSPGetIterationNumber(ksp, &its1));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));

  /* New values on the same pattern, as a Newton or time step would bring. */
  PetscCall(MatScale(A, scale));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(KSPSetUp(ksp));
  treuse = MPI_Wtime() - t0;
  PetscCall(VecSet(x, 0.0));
  t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  tsolve2 = MPI_Wtime() - t0;
  PetscCall(KSPGetIterationNumber(ksp, &its2));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "gamg_bench procs=%d iterations=%" PetscInt_FMT " relres=%.3e first_setup=%.4f solve=%.4f reuse_setup=%.4f solve2=%.4f iterations2=%" PetscInt_FMT " peak_rss_bytes=%.0f\n",
                        size, its1, (double)(rnorm / bnorm), tsetup, tsolve, treuse, tsolve2, its2, PeakRSSBytes()));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
