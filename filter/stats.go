package filter

// Stats counts what one filtering (one level's Plan) did. Dropped blocks are those of
// P absent from P_f; rows left unfiltered keep the blocks the threshold would have
// dropped, counted in BlocksNotDropped.
type Stats struct {
	Theta     float64 `json:"theta"`      // the level's drop threshold
	BlockRows int     `json:"block_rows"` // fine nodes
	BlockCols int     `json:"block_cols"` // coarse nodes
	R         int     `json:"r"`          // block rows of P's blocks (b)
	C         int     `json:"c"`          // block columns of P's blocks (k)

	NNZBlocksBefore int64 `json:"nnz_blocks_before"` // stored blocks of P
	NNZBlocksAfter  int64 `json:"nnz_blocks_after"`  // stored blocks of P_f
	DroppedBlocks   int64 `json:"dropped_blocks"`    // before − after

	RowsCorrected    int   `json:"rows_corrected"`     // rows that lost blocks and were projected
	RowsUnfiltered   int   `json:"rows_unfiltered"`    // rows with blocks under θ kept whole: M singular
	BlocksNotDropped int64 `json:"blocks_not_dropped"` // blocks under θ kept in those rows

	// BlocksKeptForRank counts blocks under θ kept by the column rule: without them
	// some coarse column of P_f would lose rank (see the package documentation).
	BlocksKeptForRank int64 `json:"blocks_kept_for_rank"`

	BytesBefore int64 `json:"bytes_before"` // memory of P (pattern and values)
	BytesAfter  int64 `json:"bytes_after"`  // memory of P_f (pattern and values)
	PlanBytes   int64 `json:"plan_bytes"`   // P_f's own pattern, row map and Cholesky factors
}
