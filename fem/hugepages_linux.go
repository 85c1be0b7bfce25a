package fem

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks Linux to back v with transparent huge pages where the system
// allows it on request (transparent_hugepage=madvise, a common default). The values of
// a large matrix are first written by Numeric, and with 4 KiB pages that first touch
// costs one page fault per 4 KiB: two million faults for ne = 160, which dominated the
// first assembly on a virtual machine. The advice is only a hint; failure is ignored.
func adviseHugePages(v []float64) {
	const minBytes = 64 << 20 // small matrices gain nothing
	if len(v)*8 < minBytes {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*8)
	const madvHugePage = 14 // MADV_HUGEPAGE
	_ = syscall.Madvise(b, madvHugePage)
}
