package amg

// minChunk is the least work (stored blocks plus rows, or vector entries) of a
// parallel chunk of the set-up's row loops, so that small levels run on one
// goroutine. Tests lower it to drive the parallel paths on small problems; it never
// changes results, only the split.
var minChunk = 1 << 13
