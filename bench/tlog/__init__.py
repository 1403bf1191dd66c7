"""The host's Merkle log: what its proofs and its integrator's appends cost."""
