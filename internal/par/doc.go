// Package par runs loops over index ranges on a fixed number of goroutines.
//
// Every helper here splits work into contiguous chunks whose boundaries depend only on
// the range and the chunk count, never on timing, and each index is handled by exactly
// one goroutine. Kernels that write only to their own rows are therefore bitwise
// deterministic for any worker count, which is a project-wide requirement.
package par
