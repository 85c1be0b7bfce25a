package backend

// CGStepper is implemented by backends that keep the scalars of PCG's recurrence (α,
// β and rᵀz) in their own memory, so that an iteration waits for the backend once, for
// ‖r‖ and the stopping test, instead of once per inner product: on a GPU each wait
// drains the device and costs the time to refill it. PCG uses it when the backend has
// it. A breakdown (a scalar that is not positive and finite) is recorded with the
// iteration and quantity that PCG's generic path reports; from then on the steps
// change nothing until the next CGStart, and CGRead returns it.
type CGStepper interface {
	// CGStart sets rz = rᵀz (restarting the recurrence at iteration it).
	CGStart(it int, r, z Vector)
	// CGUpdate computes pq = pᵀq and α = rz/pq, then x += α·p, r −= α·q and
	// rr = rᵀr, all in the backend's memory.
	CGUpdate(it int, p, q, x, r Vector)
	// CGDirection computes rzNew = rᵀz, p = z + (rzNew/rz)·p and rz = rzNew.
	CGDirection(it int, r, z, p Vector)
	// CGRead waits for the queued work and returns rr of the last CGUpdate and any
	// breakdown since the last CGStart (one transfer of a few scalars).
	CGRead() (CGScalars, error)
}

// CGScalars is what CGRead returns.
type CGScalars struct {
	RR float64 // rᵀr after the last CGUpdate
	// Break is set after a breakdown: at iteration BreakIteration, in quantity
	// BreakQuantity ("pᵀAp" or "rᵀz"), of value BreakValue.
	Break          bool
	BreakIteration int
	BreakQuantity  string
	BreakValue     float64
}
