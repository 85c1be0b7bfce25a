package filter

// Aliases that let the external tests (ex56_test.go, bench_test.go, in package
// filter_test because they import amg, which imports filter) reach test helpers.
var (
	XCheckFiltered = checkFiltered
	XCheckMinimal  = checkMinimal
	XDiffNorm      = diffNorm
	XFromPattern   = fromPattern
	XKernelTol     = kernelTol
	XNorm2         = norm2
	XPoisoned      = poisoned
	XRowTimesBc    = rowTimesBc
)
