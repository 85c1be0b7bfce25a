package bsrkern

// Scratch33, Scratch66 and Scratch36 are the scratch values Mul33 (and Mul33F32),
// Mul66 (and Mul66F32) and Mul36 need per block row: the kernels leave each row's
// vector lanes there and the Go wrapper sums them.
const (
	Scratch33 = 9
	Scratch66 = 12
	Scratch36 = 6
)
